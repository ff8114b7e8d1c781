package partition

import (
	"slices"
	"strings"
	"testing"
)

func TestRandom(t *testing.T) {
	for _, tc := range []struct{ n, k int }{
		{1, 1}, {10, 1}, {10, 3}, {10, 10}, {2485, 5}, {2485, 10}, {2485, 20}, {7, 4},
	} {
		for seed := uint64(0); seed < 3; seed++ {
			parts, err := Random(tc.n, tc.k, seed)
			if err != nil {
				t.Fatal(err)
			}
			checkParts(t, parts, tc.n, tc.k)
			sizes := make([]int, tc.k)
			for _, p := range parts {
				sizes[p]++
			}
			if lo, hi := slices.Min(sizes), slices.Max(sizes); lo != tc.n/tc.k || hi-lo > 1 {
				t.Fatalf("n=%d k=%d seed %d: sizes %v, want %d or %d", tc.n, tc.k, seed, sizes, tc.n/tc.k, (tc.n+tc.k-1)/tc.k)
			}
			again, _ := Random(tc.n, tc.k, seed)
			if !slices.Equal(parts, again) {
				t.Fatalf("n=%d k=%d seed %d: two calls differ", tc.n, tc.k, seed)
			}
		}
	}
	a, _ := Random(100, 4, 1)
	b, _ := Random(100, 4, 2)
	if slices.Equal(a, b) {
		t.Fatal("seeds 1 and 2 gave the same partition")
	}
}

func TestRandomErrors(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		want string
	}{
		{0, 1, "partition: random: n = 0, want n >= 1"},
		{-5, 1, "n = -5, want n >= 1"},
		{10, 0, "partition: random: k = 0, want 1 <= k <= 10 nodes"},
		{10, 11, "k = 11, want 1 <= k <= 10 nodes"},
	} {
		parts, err := Random(tc.n, tc.k, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Random(%d, %d): got %v, %v; want error containing %q", tc.n, tc.k, parts, err, tc.want)
		}
	}
}
