package sim

import (
	"slices"
	"testing"
	"time"
)

// TestLongestFirst: a round hands out its clients longest first, ties in
// client order, and the first round (nothing timed yet) in client order.
func TestLongestFirst(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		took []time.Duration
		want []int
	}{
		{[]time.Duration{0, 0, 0}, []int{0, 1, 2}},
		{[]time.Duration{3 * ms, 5 * ms, 4 * ms}, []int{1, 2, 0}},
		{[]time.Duration{2 * ms, 7 * ms, 2 * ms, 7 * ms}, []int{1, 3, 0, 2}},
		{nil, []int{}},
	} {
		if got := longestFirst(c.took); !slices.Equal(got, c.want) {
			t.Errorf("longestFirst(%v) = %v, want %v", c.took, got, c.want)
		}
	}
}
