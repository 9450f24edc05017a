package testkit

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections from a loopback port of its own to a
// target address, and breaks the network between the two on demand, so
// that a test can show what a client does when its server is cut off or
// goes silent:
//
//	pg := testkit.NewPostgres(t)
//	p := testkit.NewProxy(t, pg.Addr()) // connect to p.Addr() instead
//	p.Blackhole() // nothing gets through; nothing is reset either
//	p.Heal()      // the held bytes flow again, in order
//
// Cut resets every connection and refuses new ones, as a server that went
// away would. Blackhole keeps every connection open and accepts new ones,
// but forwards nothing either way, as a network that drops every packet
// would: a client sees its writes succeed and then waits for an answer
// until its own deadline. Heal ends either fault. What a connection sent
// while blackholed is held, not dropped, and delivered after Heal, as TCP
// retransmission would deliver it once the network came back; a connection
// accepted while blackholed reaches the target after Heal.
//
// Every method is safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup // the accept loop and every link

	mu     sync.Mutex
	mode   proxyMode
	open   chan struct{} // closed while bytes flow (mode forward)
	links  map[*link]struct{}
	closed bool
}

type proxyMode int

const (
	forward proxyMode = iota
	cut
	blackhole
)

// dialTimeout bounds the proxy's connection to the target.
const dialTimeout = 5 * time.Second

// StartProxy starts a proxy to target (host:port) on a free loopback
// port. The caller closes it.
func StartProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("testkit: proxy to %s: %w", target, err)
	}
	p := &Proxy{ln: ln, target: target, open: make(chan struct{}), links: map[*link]struct{}{}}
	close(p.open)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// NewProxy starts a proxy to target that is closed when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p, err := StartProxy(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// Addr returns the proxy's address, host:port, for clients to dial
// instead of the target's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut resets every connection now, and resets each new one as soon as it
// is accepted, until Heal.
func (p *Proxy) Cut() {
	p.mu.Lock()
	p.setModeLocked(cut)
	links := p.links
	p.links = map[*link]struct{}{}
	p.mu.Unlock()
	for l := range links {
		l.close()
	}
}

// Blackhole stops forwarding bytes either way on every connection, and
// accepts new connections without connecting them to the target, until
// Heal. Nothing is closed or reset.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setModeLocked(blackhole)
}

// Heal ends a Cut or a Blackhole: bytes flow again, including those held
// while blackholed, and new connections reach the target.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setModeLocked(forward)
}

func (p *Proxy) setModeLocked(m proxyMode) {
	switch {
	case m == forward && p.mode != forward:
		close(p.open)
	case m != forward && p.mode == forward:
		p.open = make(chan struct{})
	}
	p.mode = m
}

// Close stops listening, closes every connection and waits for the
// proxy's goroutines to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	links := p.links
	p.links = nil
	p.mu.Unlock()
	err := p.ln.Close()
	for l := range links {
		l.close()
	}
	p.wg.Wait()
	return err
}

// link is one client connection and, once dialed, its connection to the
// target.
type link struct {
	client net.Conn
	done   chan struct{} // closed by close

	mu     sync.Mutex
	server net.Conn
	once   sync.Once
}

// close resets both connections, once.
func (l *link) close() {
	l.once.Do(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		close(l.done)
		reset(l.client)
		if l.server != nil {
			reset(l.server)
		}
	})
}

// attach sets the link's connection to the target, or reports that the
// link was closed meanwhile.
func (l *link) attach(server net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.done:
		return false
	default:
		l.server = server
		return true
	}
}

// reset closes c with an RST rather than a FIN where it can.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		p.mu.Lock()
		if p.closed || p.mode == cut {
			p.mu.Unlock()
			reset(c)
			continue
		}
		l := &link{client: c, done: make(chan struct{})}
		p.links[l] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(l)
	}
}

// serve connects l to the target once bytes flow, and forwards until
// either side closes or the link is closed.
func (p *Proxy) serve(l *link) {
	defer p.wg.Done()
	defer func() {
		l.close()
		p.mu.Lock()
		delete(p.links, l)
		p.mu.Unlock()
	}()
	if !p.flowing(l) {
		return
	}
	server, err := net.DialTimeout("tcp", p.target, dialTimeout)
	if err != nil {
		return
	}
	if !l.attach(server) {
		reset(server)
		return
	}
	done := make(chan struct{}, 2)
	go func() { p.copy(l, server, l.client); done <- struct{}{} }()
	go func() { p.copy(l, l.client, server); done <- struct{}{} }()
	<-done // either way ending ends the link
	l.close()
	<-done
}

// copy forwards from src to dst until either fails, holding each chunk
// while the proxy is blackholed.
func (p *Proxy) copy(l *link, dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.flowing(l) {
				return
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// flowing waits until bytes may flow, and reports false if l was closed
// first.
func (p *Proxy) flowing(l *link) bool {
	p.mu.Lock()
	open := p.open
	p.mu.Unlock()
	select {
	case <-open:
		return true
	case <-l.done:
		return false
	}
}
