package testkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Errors returned by the handles. Match them with errors.Is.
var (
	// ErrNotInstalled means the server's binary was not found. The error
	// text names the binary and the command that installs it.
	ErrNotInstalled = errors.New("testkit: server binary not installed")
	// ErrNotRunning is returned by Pause and Resume when the server has
	// been stopped or killed.
	ErrNotRunning = errors.New("testkit: server not running")
	// ErrClosed is returned by Restart, Pause and Resume after Close.
	ErrClosed = errors.New("testkit: server closed")
	// ErrShared is returned by Stop, Kill, Pause, Resume, Restart and Close on a
	// shared server: other tests are using it. Use a private instance
	// (NewRedis, NewPostgres, NewEtcd, NewNATS) to inject faults.
	ErrShared = errors.New("testkit: shared server cannot be stopped, killed or paused by a test")
)

const (
	// defaultStartTimeout bounds each wait for a server to become ready.
	defaultStartTimeout = 30 * time.Second
	// stopTimeout bounds a graceful stop before falling back to SIGKILL,
	// and the wait for a killed process group to disappear.
	stopTimeout = 10 * time.Second
	// portAttempts is how often a fresh server is started on a new port
	// when the previous one lost the race for its port.
	portAttempts = 3
)

// notInstalled returns the error for a missing binary.
func notInstalled(binary, pkg string) error {
	return fmt.Errorf("%w: %s not found; install it with: apt-get install %s", ErrNotInstalled, binary, pkg)
}

// process is one server process and the temporary directory it lives in.
// The directory outlives the process, so a restart finds its data again;
// close removes it. All methods are safe for concurrent use; lifecycle
// operations are serialized.
type process struct {
	name    string              // binary name, for messages
	path    string              // binary to run
	dir     string              // temporary directory, removed by close
	logPath string              // stdout and stderr of every run, appended
	env     []string            // environment of the process
	cred    *syscall.Credential // run as this user; nil for the current one
	stopSig syscall.Signal      // graceful shutdown signal for the leader
	timeout time.Duration       // bound on each readiness wait
	ready   func(ctx context.Context, pid int) error
	shared  bool // set once before the handle is published

	mu     sync.Mutex
	args   []string // command line of the last start, reused by restart
	cmd    *exec.Cmd
	done   chan struct{} // closed when cmd has exited
	closed bool
}

// startFresh starts the process on newly chosen free ports, trying again
// with new ports when the server could not bind (another process took the
// port between probing and binding). args builds the command line.
func (p *process) startFresh(nports int, args func(ports []int) []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	for range portAttempts {
		var ports []int
		ports, err = freePorts(nports)
		if err != nil {
			return err
		}
		var offset int64
		offset, err = p.startLocked(args(ports))
		if err == nil {
			err = p.waitReadyLocked()
		}
		if err == nil {
			return nil
		}
		p.killLocked()
		if !strings.Contains(strings.ToLower(p.logSince(offset)), "address already in use") {
			break
		}
	}
	return err
}

// startLocked starts the process with args and returns the log size before
// the start, so that callers can tell this run's output from earlier ones.
func (p *process) startLocked(args []string) (int64, error) {
	log, err := os.OpenFile(p.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", p.name, err)
	}
	defer log.Close()
	var offset int64
	if fi, err := log.Stat(); err == nil {
		offset = fi.Size()
	}
	cmd := exec.Command(p.path, args...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = sysProcAttr(p.cred)
	if err := cmd.Start(); err != nil {
		return offset, fmt.Errorf("start %s: %w", p.name, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	p.args, p.cmd, p.done = args, cmd, done
	return offset, nil
}

// waitReadyLocked polls p.ready until it succeeds, the process exits or the
// start timeout passes.
func (p *process) waitReadyLocked() error {
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	pid := p.cmd.Process.Pid
	for {
		probe, cancelProbe := context.WithTimeout(ctx, 2*time.Second)
		err := p.ready(probe, pid)
		cancelProbe()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("start %s: %s; log tail:\n%s", p.name, p.cmd.ProcessState, p.logTail())
		case <-ctx.Done():
			return fmt.Errorf("start %s: not ready after %v: %v; log tail:\n%s", p.name, p.timeout, err, p.logTail())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// runningLocked reports whether the leader of the last run is still alive.
func (p *process) runningLocked() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// running reports whether the server is running (or paused).
func (p *process) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runningLocked()
}

// stop shuts the server down gracefully. It returns nil when the server is
// not running.
func (p *process) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shared {
		return ErrShared
	}
	return p.stopLocked()
}

func (p *process) stopLocked() error {
	if p.cmd == nil {
		return nil
	}
	f := family{pgid: p.cmd.Process.Pid}
	if p.runningLocked() {
		f = snapshot(f.pgid)
		syscall.Kill(f.pgid, p.stopSig)
		// A paused server only sees the signal once it runs again.
		f.signal(syscall.SIGCONT)
		select {
		case <-p.done:
		case <-time.After(stopTimeout):
			p.killFamilyLocked(f)
			return fmt.Errorf("stop %s: still running after %v; killed it", p.name, stopTimeout)
		}
	}
	if err := f.wait(stopTimeout); err != nil {
		p.killFamilyLocked(f)
		return fmt.Errorf("stop %s: %w", p.name, err)
	}
	p.cmd = nil
	return nil
}

// kill sends SIGKILL to every process of the server and waits for them to
// be gone. It returns nil when the server is not running.
func (p *process) kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shared {
		return ErrShared
	}
	return p.killLocked()
}

func (p *process) killLocked() error {
	if p.cmd == nil {
		return nil
	}
	return p.killFamilyLocked(family{pgid: p.cmd.Process.Pid})
}

// killFamilyLocked kills f, and what the leader forked since f was taken
// if it still runs.
func (p *process) killFamilyLocked(f family) error {
	if p.runningLocked() {
		// Freeze the leader so that it forks nothing the snapshot misses.
		syscall.Kill(-f.pgid, syscall.SIGSTOP)
		f.members = append(snapshot(f.pgid).members, f.members...)
		f.signal(syscall.SIGKILL)
	} else if f.alive() {
		// The leader is reaped and its pid free for reuse: signal the group
		// only while it provably still has members.
		f.signal(syscall.SIGKILL)
	}
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		return fmt.Errorf("kill %s: process %d survived SIGKILL for %v", p.name, f.pgid, stopTimeout)
	}
	if err := f.wait(stopTimeout); err != nil {
		return fmt.Errorf("kill %s: %w", p.name, err)
	}
	p.cmd = nil
	return nil
}

// signal sends SIGSTOP or SIGCONT to every process of a running server.
func (p *process) signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.shared:
		return ErrShared
	case p.closed:
		return ErrClosed
	case !p.runningLocked():
		return ErrNotRunning
	}
	pgid := p.cmd.Process.Pid
	if sig == syscall.SIGSTOP {
		// Freeze the leader so that it forks nothing the snapshot misses.
		syscall.Kill(-pgid, sig)
	}
	snapshot(pgid).signal(sig)
	return nil
}

// restart stops the server if it is running and starts it again with the
// same command line, so on the same ports and directory.
func (p *process) restart() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.shared:
		return ErrShared
	case p.closed:
		return ErrClosed
	}
	if err := p.stopLocked(); err != nil {
		return err
	}
	if _, err := p.startLocked(p.args); err != nil {
		return err
	}
	if err := p.waitReadyLocked(); err != nil {
		p.killLocked()
		return fmt.Errorf("restart: %w", err)
	}
	return nil
}

// close stops the server and removes its directory. Closing twice is a
// no-op.
func (p *process) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	err := p.stopLocked()
	if rmErr := os.RemoveAll(p.dir); rmErr != nil && err == nil {
		err = fmt.Errorf("close %s: %w", p.name, rmErr)
	}
	return err
}

// logTail returns the last lines of the server's log.
func (p *process) logTail() string {
	const max = 4096
	f, err := os.Open(p.logPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	var offset int64
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		offset = fi.Size() - max
	}
	b, _ := io.ReadAll(io.NewSectionReader(f, offset, max))
	if offset > 0 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimRight(string(b), "\n")
}

// logSince returns what the server logged after offset.
func (p *process) logSince(offset int64) string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.NewSectionReader(f, offset, 1<<20))
	return string(b)
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("testkit: find free port: %w", err)
		}
		// Closed only after all are chosen, so the ports differ.
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

var versionRE = regexp.MustCompile(`\d+\.\d+(\.\d+)?`)

// binaryVersion runs "path --version" and returns the first version number
// it prints, or the first line of output if there is none.
func binaryVersion(path string, cred *syscall.Credential) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Dir = os.TempDir()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.Output()
	if err != nil {
		return "unknown"
	}
	if v := versionRE.Find(out); v != nil {
		return string(v)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}

// environ returns the current environment without the variables whose
// names start with one of prefixes.
func environ(prefixes ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		keep := true
		for _, prefix := range prefixes {
			if strings.HasPrefix(kv, prefix) {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// server carries the lifecycle methods that Redis, Postgres, Etcd and NATS
// share.
type server struct {
	p       *process
	version string
}

// Version returns the server's version number as its binary reports it,
// such as "7.0.15", for logging.
func (s *server) Version() string { return s.version }

// Stop shuts the server down gracefully and waits for it and its children
// to exit, falling back to SIGKILL after 10s. The directory is kept for
// Restart. Stopping a server that is not running returns nil.
func (s *server) Stop() error { return s.p.stop() }

// Kill sends SIGKILL to the server and all its children, as a crash
// would, and waits for them to exit. Killing a server that is not running
// returns nil. Kill works on a paused server.
func (s *server) Kill() error { return s.p.kill() }

// Pause freezes the server and all its children with SIGSTOP: open
// connections hang, new ones are accepted by the kernel but not answered,
// until Resume.
func (s *server) Pause() error { return s.p.signal(syscall.SIGSTOP) }

// Resume continues a paused server with SIGCONT. Resuming a server that is
// not paused does nothing.
func (s *server) Resume() error { return s.p.signal(syscall.SIGCONT) }

// Restart stops the server gracefully if it is running, then starts it
// again on the same port and directory and waits until it answers. It works
// after Stop, Kill and Pause. Redis runs without persistence, so it comes
// back empty; PostgreSQL, etcd and NATS (its JetStream streams) keep their
// data.
func (s *server) Restart() error { return s.p.restart() }

// Close stops the server and removes its directory. Closing twice returns
// nil. Servers from SharedRedis and friends are closed by Main, private
// ones from NewRedis and friends by the test's cleanup.
func (s *server) Close() error {
	if s.p.shared {
		return ErrShared
	}
	return s.p.close()
}
