package testkit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// family is the processes of one server: its process group, which holds
// the leader and the children that stayed in it, and the leader's
// descendants at the time of the snapshot, which includes children that
// left for a session of their own, as every PostgreSQL backend does.
// Signals and waits must cover both, or a paused PostgreSQL would go on
// serving open connections and a killed one would leave backends behind.
type family struct {
	pgid    int
	members []procStat
}

// procStat is what /proc/<pid>/stat tells about a process.
type procStat struct {
	pid, ppid, pgrp int
	state           string
	start           uint64 // clock ticks after boot; tells a reused pid apart
}

// snapshot records the descendants of the leader pgid. Freeze the leader
// first (SIGSTOP to the group) when it must not fork meanwhile.
func snapshot(pgid int) family {
	procs, _ := scanProcs()
	children := make(map[int][]procStat)
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p)
	}
	f := family{pgid: pgid}
	queue := []int{pgid}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			f.members = append(f.members, c)
			queue = append(queue, c.pid)
		}
	}
	return f
}

// signal sends sig to the process group and to every recorded member that
// is still the same process.
func (f family) signal(sig syscall.Signal) {
	syscall.Kill(-f.pgid, sig)
	if len(f.members) == 0 {
		return
	}
	procs, _ := scanProcs()
	for _, p := range procs {
		if f.recorded(p) {
			syscall.Kill(p.pid, sig)
		}
	}
}

// alive reports whether a member of the group or a recorded member is
// still running. Zombies do not count: reaping orphans is init's job, which
// not every container's init does.
func (f family) alive() bool {
	procs, err := scanProcs()
	if err != nil {
		// No procfs: ask the kernel about the group, zombies included.
		return syscall.Kill(-f.pgid, 0) == nil
	}
	for _, p := range procs {
		if p.state == "Z" || p.state == "X" {
			continue
		}
		if p.pgrp == f.pgid || f.recorded(p) {
			return true
		}
	}
	return false
}

func (f family) recorded(p procStat) bool {
	return slices.ContainsFunc(f.members, func(m procStat) bool {
		return m.pid == p.pid && m.start == p.start
	})
}

// wait waits until the family is gone.
func (f family) wait(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for f.alive() {
		if time.Now().After(deadline) {
			return fmt.Errorf("processes of group %d still alive after %v", f.pgid, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// scanProcs reads every process's stat line from /proc.
func scanProcs() ([]procStat, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var procs []procStat
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// "pid (comm) state ppid pgrp ..." where comm may hold anything;
		// starttime is the 22nd field, the 20th after comm.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 20 {
			continue
		}
		p := procStat{pid: pid, state: f[0]}
		p.ppid, _ = strconv.Atoi(f[1])
		p.pgrp, _ = strconv.Atoi(f[2])
		p.start, _ = strconv.ParseUint(f[19], 10, 64)
		procs = append(procs, p)
	}
	return procs, nil
}
