package testkit

import (
	"os"
	"testing"
	"time"
)

// TestSlots: n slots are taken at once without waiting; one more is had
// only once a holder lets go, as a test binary that closes the file, or
// dies, does.
func TestSlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 2
	held := make([]*os.File, n)
	for i := range held {
		f, err := takeSlot(dir, n)
		if err != nil {
			t.Fatal(err)
		}
		held[i] = f
	}
	if held[0].Name() == held[1].Name() {
		t.Fatalf("two holders of %s", held[0].Name())
	}
	took := make(chan *os.File, 1)
	go func() {
		f, err := takeSlot(dir, n)
		if err != nil {
			t.Error(err)
		}
		took <- f
	}()
	select {
	case f := <-took:
		t.Fatalf("took %s while every slot was held", f.Name())
	default:
	}
	held[1].Close()
	select {
	case f := <-took:
		defer f.Close()
		if f.Name() == held[0].Name() {
			t.Errorf("took %s, which is still held", f.Name())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no slot 30 s after one was let go")
	}
	held[0].Close()
}

// TestHeavy: a heavy test's slot is let go when it ends, so that the next
// one gets it. (The slots are the test's own: the machine's are taken by
// other test binaries' load tests while this one runs.)
func TestHeavy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for range 3 {
		t.Run("load", func(t *testing.T) { heavyIn(t, dir, 1) })
	}
}

// TestHeavyRelease: a heavy test that lets its slot go lets the next one
// have it while it goes on; letting go twice, and then ending, is fine.
func TestHeavyRelease(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t.Run("released", func(t *testing.T) {
		release := heavyIn(t, dir, 1)
		release()
		next := make(chan *os.File, 1)
		go func() {
			f, err := takeSlot(dir, 1)
			if err != nil {
				t.Error(err)
			}
			next <- f
		}()
		select {
		case f := <-next:
			f.Close()
		case <-time.After(30 * time.Second):
			t.Fatal("the slot let go was not free 30 s later")
		}
		release()
	})
	t.Run("after", func(t *testing.T) { heavyIn(t, dir, 1) })
}
