package bench

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestInversions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		xs   []int64
		want int64
	}{
		{nil, 0},
		{[]int64{7}, 0},
		{[]int64{1, 2, 3, 4}, 0},
		{[]int64{1, 1, 2, 2}, 0}, // admitted in one round: not an inversion
		{[]int64{2, 1}, 1},
		{[]int64{4, 3, 2, 1}, 6},
		{[]int64{1, 3, 2, 4}, 1},
		{[]int64{2, 2, 1}, 2},
	}
	for _, tc := range tests {
		if got := inversions(slices.Clone(tc.xs)); got != tc.want {
			t.Errorf("inversions(%v) = %d, want %d", tc.xs, got, tc.want)
		}
	}
	// Against counting every pair.
	for range 50 {
		xs := make([]int64, rand.IntN(200))
		for i := range xs {
			xs[i] = rand.Int64N(20)
		}
		var want int64
		for i := range xs {
			for j := i + 1; j < len(xs); j++ {
				if xs[i] > xs[j] {
					want++
				}
			}
		}
		if got := inversions(slices.Clone(xs)); got != want {
			t.Fatalf("inversions(%v) = %d, want %d", xs, got, want)
		}
	}
}
