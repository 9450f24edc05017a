package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/stockade/stockade"
	"github.com/stockade/stockade/engine"
	"github.com/stockade/stockade/httpapi"
	"github.com/stockade/stockade/internal/bench"
)

// "stockade bench -instances 1,2,4" starts that many "stockade serve"
// processes on one store for each strategy, and drives them together, a
// request to each in turn (bench.Spread), over HTTP.

// instance is one "stockade serve" process that the bench started.
type instance struct {
	cmd  *exec.Cmd
	addr string
	done chan error // the process's exit, once
}

// listening is serve's log line that gives its address.
var listening = regexp.MustCompile(`msg=listening addr=(\S+)`)

// startInstances starts n serve processes of bin with args, each on a
// free loopback port, and returns them once each listens. On failure it
// stops those it started.
func startInstances(ctx context.Context, bin string, n int, args []string) ([]*instance, error) {
	var all []*instance
	for range n {
		in, err := startInstance(ctx, bin, args)
		if err != nil {
			stopInstances(all)
			return nil, err
		}
		all = append(all, in)
	}
	return all, nil
}

func startInstance(ctx context.Context, bin string, args []string) (*instance, error) {
	// At level info serve logs the line that gives its address.
	cmd := exec.Command(bin, append([]string{"serve", "-addr", "127.0.0.1:0", "-open", "-console=false", "-rate-limit", "-1", "-log-level", "info"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start %s serve: %w", bin, err)
	}
	in := &instance{cmd: cmd, done: make(chan error, 1)}
	found := make(chan string, 1)
	var tail strings.Builder // the log before the address, to say why it did not start
	go func() {
		sc := bufio.NewScanner(stderr)
		told := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !told {
				found <- m[1]
				told = true
				continue
			}
			if tail.Len() < 4096 {
				tail.WriteString(sc.Text() + "\n")
			}
		}
		in.done <- cmd.Wait()
	}()
	select {
	case addr := <-found:
		in.addr = addr
		return in, nil
	case err := <-in.done:
		return nil, fmt.Errorf("bench: serve exited before it listened (%v):\n%s", err, tail.String())
	case <-time.After(time.Minute):
	case <-ctx.Done():
	}
	stopInstances([]*instance{in})
	return nil, fmt.Errorf("bench: serve did not listen within a minute, or the bench was stopped")
}

// stopInstances stops the processes gracefully (SIGTERM, as an operator
// would), killing one that has not exited 30 s later.
func stopInstances(all []*instance) {
	for _, in := range all {
		in.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, in := range all {
		select {
		case <-in.done:
		case <-time.After(30 * time.Second):
			in.cmd.Process.Kill()
			<-in.done
		}
	}
}

// instancesStrategies are the strategies an instances sweep runs: those
// asked, or every one; the lock strategy only with a shared locker, since
// each process's in-memory locker would exclude only its own requests.
func instancesStrategies(asked []string, locker string) ([]string, error) {
	if asked == nil {
		asked = bench.Strategies()
		if locker == "" {
			asked = slices.DeleteFunc(slices.Clone(asked), func(s string) bool { return s == engine.Lock })
		}
		return asked, nil
	}
	if slices.Contains(asked, engine.Lock) && locker == "" {
		return nil, errors.New("bench: -instances with the lock strategy needs a -locker the instances share (redis://…, etcd://… or postgres)")
	}
	return asked, nil
}

// runInstances runs the bench on each strategy over each number of
// instances of c.instances, and writes the sweep.
func runInstances(ctx context.Context, c benchConfig, o bench.Options, stdout, stderr io.Writer) error {
	strategies, err := instancesStrategies(c.opts.Strategies, c.locker)
	if err != nil {
		return err
	}
	o.Strategies = nil
	sw := &bench.Sweep{Variable: bench.SweepInstances}
	var errs []error
	for _, n := range c.instances {
		var point *bench.Report
		for _, s := range strategies {
			args := []string{"-store", c.store.arg(), "-strategy", s}
			if c.locker != "" {
				args = append(args, "-locker", c.locker)
			}
			fmt.Fprintf(stderr, "bench: starting %d serve processes, -strategy %s\n", n, s)
			ins, err := startInstances(ctx, c.serveBin, n, args)
			if err != nil {
				return err
			}
			hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients, MaxIdleConns: o.Clients * n}}
			svcs := make([]stockade.StockService, n)
			for i, in := range ins {
				svcs[i] = httpapi.NewClient("http://"+in.addr, hc)
			}
			pids := make([]int, n)
			for i, in := range ins {
				pids[i] = in.cmd.Process.Pid
			}
			probes, closeProbes := c.probes(pids)
			ro := o
			ro.Service, ro.ServiceName, ro.Probes = bench.Spread(svcs...), s, probes
			ro.StoreName = fmt.Sprintf("%d serve processes on %s", n, c.store)
			rep, runErr := bench.Run(ctx, &ro)
			closeProbes()
			hc.CloseIdleConnections()
			stopInstances(ins)
			if rep == nil || !bench.Judged(runErr) {
				return fmt.Errorf("instances %d, %s: %w", n, s, runErr)
			}
			if runErr != nil {
				errs = append(errs, fmt.Errorf("instances %d: %w", n, runErr))
			}
			if point == nil {
				point = rep
			} else {
				point.Results = append(point.Results, rep.Results...)
			}
		}
		point.Store = fmt.Sprintf("serve processes on %s", c.store)
		sw.Points = append(sw.Points, bench.SweepPoint{Value: n, Report: point})
	}
	return writeSweep(c, sw, errors.Join(errs...), stdout, stderr)
}

// serveBinary is the stockade binary that -instances starts: this one.
func serveBinary() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("bench: -instances: find this binary: %w (give -serve-bin)", err)
	}
	return p, nil
}
