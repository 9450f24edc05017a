package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/procfs"
)

// userHZ is the unit of the CPU times in /proc/PID/stat: Linux reports
// them in ticks of 1/100 s whatever the kernel's own tick.
const userHZ = 100

// CPUCost is a Probe that reads, from Linux's /proc, the CPU time that
// this process, the service instances and the local PostgreSQL used
// during a run, and records in Result.CPU each one's cores and CPU per
// successful request, beside the machine's whole. On a machine shared by
// clients, services and database, that is what says what each would
// need on machines of its own: throughput × µs per request is the CPU a
// part needs.
type CPUCost struct {
	// Serve are the service instances' process IDs, if any.
	Serve []int
	// Postgres counts the CPU of every process named "postgres" (with
	// the backends that exit during the run): set it when the store is
	// a PostgreSQL on this machine.
	Postgres bool

	fs    procfs.FS
	begun bool
	at    time.Time
	start cpuTimes
}

// cpuTimes are CPU seconds used so far, by kind of process.
type cpuTimes struct {
	bench, serve, postgres, machine float64
}

// Begin reads the CPU times so far.
func (c *CPUCost) Begin(context.Context) error {
	if c.fs == (procfs.FS{}) {
		fs, err := procfs.NewDefaultFS()
		if err != nil {
			return fmt.Errorf("bench: CPU cost needs Linux's /proc: %w", err)
		}
		c.fs = fs
	}
	t, err := c.read()
	if err != nil {
		return err
	}
	c.begun, c.at, c.start = true, time.Now(), t
	return nil
}

// End reads the CPU times again and records the difference in res.CPU.
func (c *CPUCost) End(res *Result) error {
	if !c.begun {
		return errors.New("bench: CPU cost: End without Begin")
	}
	c.begun = false
	wall := time.Since(c.at).Seconds()
	t, err := c.read()
	if err != nil {
		return err
	}
	use := func(name string, used float64) CPUUse {
		u := CPUUse{Process: name, Cores: used / wall}
		if res.Successes > 0 {
			u.MicrosPerOK = used / float64(res.Successes) * 1e6
		}
		return u
	}
	res.CPU = []CPUUse{use("bench", t.bench-c.start.bench)}
	if len(c.Serve) > 0 {
		res.CPU = append(res.CPU, use("serve", t.serve-c.start.serve))
	}
	if c.Postgres {
		res.CPU = append(res.CPU, use("postgres", t.postgres-c.start.postgres))
	}
	res.CPU = append(res.CPU, use("machine", t.machine-c.start.machine))
	return nil
}

// read reads the CPU seconds used so far by each kind of process.
func (c *CPUCost) read() (cpuTimes, error) {
	var t cpuTimes
	self, err := c.fs.Self()
	if err != nil {
		return t, fmt.Errorf("bench: CPU cost: %w", err)
	}
	st, err := self.Stat()
	if err != nil {
		return t, fmt.Errorf("bench: CPU cost: %w", err)
	}
	t.bench = st.CPUTime()
	for _, pid := range c.Serve {
		p, err := c.fs.Proc(pid)
		if err != nil {
			return t, fmt.Errorf("bench: CPU cost: service process %d: %w", pid, err)
		}
		st, err := p.Stat()
		if err != nil {
			return t, fmt.Errorf("bench: CPU cost: service process %d: %w", pid, err)
		}
		t.serve += st.CPUTime()
	}
	if c.Postgres {
		if t.postgres, err = c.postgresTime(); err != nil {
			return t, err
		}
	}
	ms, err := c.fs.Stat()
	if err != nil {
		return t, fmt.Errorf("bench: CPU cost: %w", err)
	}
	all := ms.CPUTotal
	t.machine = all.User + all.Nice + all.System + all.IRQ + all.SoftIRQ + all.Steal
	return t, nil
}

// postgresTime is the CPU seconds of every postgres process, with those
// of its reaped children: a backend that exits during a run moves its
// time into the postmaster's children's time, so the sum goes on
// counting it.
func (c *CPUCost) postgresTime() (float64, error) {
	procs, err := c.fs.AllProcs()
	if err != nil {
		return 0, fmt.Errorf("bench: CPU cost: %w", err)
	}
	var sum float64
	found := false
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil || st.Comm != "postgres" {
			continue // gone since listed, or not PostgreSQL's
		}
		found = true
		sum += st.CPUTime() + float64(st.CUTime+st.CSTime)/userHZ
	}
	if !found {
		return 0, errors.New("bench: CPU cost: no process named postgres on this machine (is the store's PostgreSQL elsewhere?)")
	}
	return sum, nil
}
