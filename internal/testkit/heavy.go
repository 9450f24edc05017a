package testkit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Heavy marks t as a load test: one that drives many concurrent clients at
// a contended resource (one hot SKU, one row of seats, a payment per
// order) and bounds how long it waits for them, so that how fast the
// machine serves it matters to whether it passes. Heavy waits until one of
// the machine's heavy slots is free, and holds it until t ends.
//
// The slots are shared by every test binary on the machine (a lock file
// each, in the system's temporary directory, taken with flock, so that a
// test binary that dies frees its slot), and there are half as many as
// CPUs, at least one. Run together, load tests starve one another: a
// transaction that holds a hot row waits for a CPU while every other
// buyer of the row waits for it, and a test that takes seconds alone
// takes minutes, past its bound. Tests that only wait on timers and
// servers need no slot and run beside them.
//
// The time spent waiting for a slot is part of the test's time.
//
// Heavy returns a function that lets the slot go before t ends, for a
// test whose load is over and whose checks bound no wait (a settle, a
// reconcile): the next load test need not wait for them. Calling it again,
// or not at all, is fine.
func Heavy(t testing.TB) (release func()) {
	t.Helper()
	return heavyIn(t, filepath.Join(os.TempDir(), "stockade-testkit"), heavySlots())
}

// heavyIn is Heavy with n slots in dir.
func heavyIn(t testing.TB, dir string, n int) (release func()) {
	t.Helper()
	start := time.Now()
	f, err := takeSlot(dir, n)
	if err != nil {
		t.Fatalf("testkit: a heavy slot: %v", err)
	}
	t.Logf("testkit: heavy slot %s after %v", filepath.Base(f.Name()), time.Since(start).Round(time.Millisecond))
	release = sync.OnceFunc(func() { f.Close() }) // closing releases the lock
	t.Cleanup(release)
	return release
}

// heavySlots is how many heavy tests may run at once on the machine.
func heavySlots() int { return max(1, runtime.NumCPU()/2) }

// takeSlot locks one of the n slot files in dir and returns it open: a free
// one if there is one, else waits for one chosen at random.
func takeSlot(dir string, n int) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	open := func(i int) (*os.File, error) {
		return os.OpenFile(filepath.Join(dir, fmt.Sprintf("heavy-%d.lock", i)), os.O_RDWR|os.O_CREATE, 0o666)
	}
	for i := range n {
		f, err := open(i)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			return f, nil
		}
		f.Close()
	}
	// None is free: wait in the kernel's queue of one of them.
	f, err := open(rand.IntN(n))
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
	}
}
