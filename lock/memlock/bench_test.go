package memlock_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stockade/stockade/lock/internal/benchkit"
	"github.com/stockade/stockade/lock/memlock"
)

// BenchmarkAcquireRelease takes and gives back a key, alone on it and with
// goroutines taking turns on one key.
func BenchmarkAcquireRelease(b *testing.B) {
	ctx := context.Background()
	b.Run("alone", func(b *testing.B) {
		l := memlock.New(nil)
		b.ReportAllocs()
		for b.Loop() {
			le, err := l.Acquire(ctx, "k")
			if err != nil {
				b.Fatal(err)
			}
			if err := le.Release(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, g := range []int{8} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			l := memlock.New(nil)
			b.SetParallelism(g)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) { benchkit.LockUnlock(b, pb, l.Acquire, "k") })
		})
	}
}
