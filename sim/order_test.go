package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/fedaux/fedaux/graphio"
)

// TestLongestFirst: a round hands out its clients longest first, ties
// (every client in the first round, nothing timed yet) the largest graph
// first, then in client order.
func TestLongestFirst(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		took  []time.Duration
		nodes []int
		want  []int
	}{
		{[]time.Duration{0, 0, 0}, []int{5, 5, 5}, []int{0, 1, 2}},
		{[]time.Duration{0, 0, 0}, []int{4, 9, 6}, []int{1, 2, 0}},
		{[]time.Duration{0, 0, 0, 0}, []int{4, 9, 4, 9}, []int{1, 3, 0, 2}},
		{[]time.Duration{3 * ms, 5 * ms, 4 * ms}, []int{9, 1, 5}, []int{1, 2, 0}},
		{[]time.Duration{2 * ms, 7 * ms, 2 * ms, 7 * ms}, []int{1, 1, 3, 2}, []int{3, 1, 2, 0}},
		{nil, nil, []int{}},
	} {
		clients := make([]*graphio.Client, len(c.nodes))
		for i, n := range c.nodes {
			clients[i] = &graphio.Client{Graph: &graphio.Graph{Adj: &graphio.CSR{Rows: n, Cols: n}}}
		}
		if got := longestFirst(c.took, clients); !slices.Equal(got, c.want) {
			t.Errorf("longestFirst(%v, nodes %v) = %v, want %v", c.took, c.nodes, got, c.want)
		}
	}
}
