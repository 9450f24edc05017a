package testkit

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// echoServer accepts connections on a free loopback port and writes back
// what each sends, until the test ends.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// silence is how long a test listens to show that nothing arrives. A
// proxy that let bytes through would fail the test however long it is.
const silence = 200 * time.Millisecond

// roundTrip writes msg on c and reads it back.
func roundTrip(c net.Conn, msg string) error {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, msg); err != nil {
		return err
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if string(got) != msg {
		return errors.New("echo of " + msg + " was " + string(got))
	}
	return nil
}

// quiet writes msg on c and checks that no answer comes while listening
// for silence; the write itself succeeds.
func quiet(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	if _, err := io.WriteString(c, msg); err != nil {
		t.Fatalf("write while blackholed: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(silence))
	n, err := c.Read(make([]byte, 64))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read while blackholed: %d bytes, %v; want nothing until the deadline", n, err)
	}
}

// broken checks that c has been closed by the proxy: a read fails at once
// rather than waiting.
func broken(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "x") // may fail already
	_, err := c.Read(make([]byte, 1))
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read on a cut connection: %v, want EOF or a reset", err)
	}
}

// refused checks that a new connection to addr is reset: at once, or on
// its first read.
func refused(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("dial: %v, want a reset", err)
		}
		return
	}
	defer c.Close()
	broken(t, c)
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestProxy runs each fault against a connection opened before it and one
// opened during it, then heals and checks both old and new connections.
func TestProxy(t *testing.T) {
	t.Parallel()
	target := echoServer(t)
	for _, tc := range []struct {
		name  string
		fault func(p *Proxy)
		// during checks a connection opened before the fault (old) and
		// one opened during it (dialed through the proxy).
		during func(t *testing.T, old net.Conn, addr string)
		// kept: the old connection works again after Heal, its held
		// bytes delivered first.
		kept bool
	}{
		{
			name:  "forward",
			fault: func(*Proxy) {},
			during: func(t *testing.T, old net.Conn, addr string) {
				if err := roundTrip(old, "old"); err != nil {
					t.Fatal(err)
				}
				if err := roundTrip(dial(t, addr), "new"); err != nil {
					t.Fatal(err)
				}
			},
			kept: true,
		},
		{
			name:  "cut",
			fault: (*Proxy).Cut,
			during: func(t *testing.T, old net.Conn, addr string) {
				broken(t, old)
				refused(t, addr)
			},
		},
		{
			name:  "blackhole",
			fault: (*Proxy).Blackhole,
			during: func(t *testing.T, old net.Conn, addr string) {
				quiet(t, old, "held")
				quiet(t, dial(t, addr), "held")
			},
			kept: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := NewProxy(t, target)
			old := dial(t, p.Addr())
			if err := roundTrip(old, "before"); err != nil {
				t.Fatal(err)
			}
			tc.fault(p)
			tc.during(t, old, p.Addr())
			p.Heal()
			if tc.kept {
				if tc.name == "blackhole" { // the bytes held come first
					got := make([]byte, len("held"))
					old.SetDeadline(time.Now().Add(10 * time.Second))
					if _, err := io.ReadFull(old, got); err != nil || string(got) != "held" {
						t.Fatalf("after Heal: %q, %v; want the held bytes", got, err)
					}
				}
				if err := roundTrip(old, "after"); err != nil {
					t.Fatalf("old connection after Heal: %v", err)
				}
			}
			if err := roundTrip(dial(t, p.Addr()), "healed"); err != nil {
				t.Fatalf("new connection after Heal: %v", err)
			}
		})
	}
}

// TestProxyBlackholeNewConnection: a connection accepted while blackholed
// reaches the target after Heal, with what it sent meanwhile.
func TestProxyBlackholeNewConnection(t *testing.T) {
	t.Parallel()
	p := NewProxy(t, echoServer(t))
	p.Blackhole()
	c := dial(t, p.Addr())
	quiet(t, c, "early")
	p.Heal()
	got := make([]byte, len("early"))
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "early" {
		t.Fatalf("after Heal: %q, %v; want %q", got, err, "early")
	}
}

// TestProxyRedis talks to a real redis-server through the proxy, and
// checks that a command sent while blackholed is answered after Heal.
func TestProxyRedis(t *testing.T) {
	t.Parallel()
	p := NewProxy(t, SharedRedis(t).Addr())
	if got, err := redisDo(p.Addr(), 10*time.Second, "PING"); err != nil || got != "PONG" {
		t.Fatalf("PING through the proxy: %q, %v", got, err)
	}
	p.Blackhole()
	if _, err := redisDo(p.Addr(), silence, "PING"); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("PING while blackholed: %v, want a timeout", err)
	}
	p.Cut()
	if _, err := redisDo(p.Addr(), 10*time.Second, "PING"); err == nil {
		t.Fatal("PING while cut succeeded")
	}
	p.Heal()
	if got, err := redisDo(p.Addr(), 10*time.Second, "PING"); err != nil || got != "PONG" {
		t.Fatalf("PING after Heal: %q, %v", got, err)
	}
}

// TestProxyClose: Close ends every connection and the listener.
func TestProxyClose(t *testing.T) {
	t.Parallel()
	p, err := StartProxy(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p.Addr())
	if err := roundTrip(c, "x"); err != nil {
		t.Fatal(err)
	}
	p.Blackhole()
	waiting := dial(t, p.Addr()) // held until Heal, which never comes
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	broken(t, c)
	broken(t, waiting)
	if c, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		c.Close()
		t.Fatal("dial after Close succeeded")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
