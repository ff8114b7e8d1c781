package share

import (
	"iter"
	"slices"
	"sync"
	"testing"
)

// TestOut checks that Out hands every number of 0..n-1 out once, each
// goroutine's in increasing order, on at most workers goroutines.
func TestOut(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100} {
		for _, workers := range []int{0, 1, 2, 3, 16} {
			var mu sync.Mutex
			var got []int
			works := 0
			Out(n, workers, func(tasks iter.Seq[int]) {
				var mine []int
				for k := range tasks {
					mine = append(mine, k)
				}
				if !slices.IsSorted(mine) {
					t.Errorf("n=%d workers=%d: one goroutine took %v, not in increasing order", n, workers, mine)
				}
				mu.Lock()
				works++
				got = append(got, mine...)
				mu.Unlock()
			})
			slices.Sort(got)
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			if !slices.Equal(got, want) {
				t.Errorf("n=%d workers=%d: handed out %v, want %v", n, workers, got, want)
			}
			if limit := max(1, workers); works > limit || (n > 0 && works < 1) || (n == 0 && works != 0) {
				t.Errorf("n=%d workers=%d: ran %d goroutines", n, workers, works)
			}
		}
	}
}
