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
	// Postgres is the store's PostgreSQL, as pgx takes it, when it runs
	// on this machine. Its CPU is that of its postmaster and all the
	// postmaster's children, the backends that exit during the run
	// included; other PostgreSQL servers on the machine are not counted.
	Postgres string

	fs         procfs.FS
	postmaster int // the process ID of Postgres's postmaster, once found
	begun      bool
	at         time.Time
	start      cpuTimes
}

// cpuTimes are CPU seconds used so far, by kind of process.
type cpuTimes struct {
	bench, serve, postgres, machine float64
}

// Begin reads the CPU times so far.
func (c *CPUCost) Begin(ctx context.Context) error {
	if c.fs == (procfs.FS{}) {
		fs, err := procfs.NewDefaultFS()
		if err != nil {
			return fmt.Errorf("bench: CPU cost needs Linux's /proc: %w", err)
		}
		c.fs = fs
	}
	if c.Postgres != "" && c.postmaster == 0 {
		pid, err := c.findPostmaster(ctx)
		if err != nil {
			return err
		}
		c.postmaster = pid
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
	if c.Postgres != "" {
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
	if c.Postgres != "" {
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

// findPostmaster asks the store's PostgreSQL for the process ID of the
// backend serving a connection of its own; the backend's parent is the
// postmaster.
func (c *CPUCost) findPostmaster(ctx context.Context) (int, error) {
	conn, err := connectPostgres(ctx, c.Postgres)
	if err != nil {
		return 0, fmt.Errorf("bench: CPU cost: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return 0, fmt.Errorf("bench: CPU cost: %w", err)
	}
	notHere := fmt.Errorf("bench: CPU cost: PostgreSQL's backend is process %d, which is not a postgres process on this machine (is the store's PostgreSQL elsewhere, or in a container?)", backend)
	p, err := c.fs.Proc(backend)
	if err != nil {
		return 0, notHere
	}
	st, err := p.Stat()
	if err != nil || st.Comm != "postgres" {
		return 0, notHere
	}
	return st.PPID, nil
}

// postgresTime is the CPU seconds of the postmaster and its children,
// with those of its reaped children: a backend that exits during a run
// moves its time into the postmaster's children's time, so the sum goes
// on counting it.
//
// The kernel adds a child's time to its parent's when the parent reaps
// it, and then removes it from /proc: a child reaped while the children
// are listed would count twice or not at all, so the listing is taken
// again until the reaped time has not moved across it, and a child being
// reaped (state X, its time already the parent's) is left out. A zombie
// not yet reaped (state Z) still counts as a child.
func (c *CPUCost) postgresTime() (float64, error) {
	reaped := func() (own, children float64, err error) {
		pm, err := c.fs.Proc(c.postmaster)
		if err != nil {
			return 0, 0, fmt.Errorf("bench: CPU cost: PostgreSQL's postmaster, process %d, is gone: %w", c.postmaster, err)
		}
		st, err := pm.Stat()
		if err != nil {
			return 0, 0, fmt.Errorf("bench: CPU cost: PostgreSQL's postmaster, process %d: %w", c.postmaster, err)
		}
		return st.CPUTime(), float64(st.CUTime+st.CSTime) / userHZ, nil
	}
	for attempt := 0; ; attempt++ {
		_, before, err := reaped()
		if err != nil {
			return 0, err
		}
		procs, err := c.fs.AllProcs()
		if err != nil {
			return 0, fmt.Errorf("bench: CPU cost: %w", err)
		}
		var live float64
		for _, p := range procs {
			st, err := p.Stat()
			if err != nil || st.PPID != c.postmaster || st.State == "X" {
				continue // gone since listed, not this server's, or being reaped
			}
			live += st.CPUTime()
		}
		own, after, err := reaped()
		if err != nil {
			return 0, err
		}
		if after == before || attempt == 10 {
			return own + after + live, nil
		}
	}
}
