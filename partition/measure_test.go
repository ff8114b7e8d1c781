package partition

import (
	"math"
	"testing"
)

func TestEdgeCut(t *testing.T) {
	cliques := testCliques(4)
	for _, tc := range []struct {
		name  string
		g     Graph
		parts []int
		want  int
	}{
		{"cliques split", cliques, []int{0, 0, 0, 0, 1, 1, 1, 1}, 1},
		{"cliques whole", cliques, make([]int, 8), 0},
		{"cliques one off", cliques, []int{1, 0, 0, 0, 1, 1, 1, 1}, 4}, // 0-1, 0-2, 0-3 and 3-4
		{"ring alternating", testRing(6), []int{0, 1, 0, 1, 0, 1}, 6},
		{"ring halves", testRing(6), []int{0, 0, 0, 1, 1, 1}, 2},
		{"no edges", Graph{Indptr: []int{0, 0, 0}}, []int{0, 1}, 0},
		{"too few parts", cliques, []int{0, 1}, -1},
		{"no indptr", Graph{}, nil, -1},
		{"index out of range", Graph{Indptr: []int{0, 1}, Indices: []int{5}}, []int{0}, -1},
		{"indptr not monotone", Graph{Indptr: []int{0, 2, 1, 2}, Indices: []int{1, 2}}, []int{0, 0, 0}, -1},
		{"indptr past indices", Graph{Indptr: []int{0, 3}, Indices: []int{0}}, []int{0}, -1},
	} {
		if got := EdgeCut(tc.g, tc.parts); got != tc.want {
			t.Errorf("%s: EdgeCut = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestEdgeCutMatchesMultilevel compares EdgeCut with the multilevel
// partitioner's internal weighted cut.
func TestEdgeCutMatchesMultilevel(t *testing.T) {
	g := testRandom(500, 900, 4)
	for _, k := range []int{2, 7, 16} {
		parts, err := Multilevel(g, k, MultilevelOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		where := make([]int32, len(parts))
		for i, p := range parts {
			where[i] = int32(p)
		}
		want := newGraph(g).cut(where)
		if got := EdgeCut(g, parts); got != want {
			t.Errorf("k=%d: EdgeCut %d, internal cut %d", k, got, want)
		}
		if got, _ := testCut(g, parts, k); got != want {
			t.Errorf("k=%d: testCut %d, internal cut %d", k, got, want)
		}
	}
}

func TestImbalance(t *testing.T) {
	for _, tc := range []struct {
		parts []int
		k     int
		want  float64
	}{
		{[]int{0, 1, 0, 1}, 2, 0},
		{[]int{0, 0, 0, 1}, 2, 0.5},
		{[]int{0, 0, 0, 0}, 2, 1},
		{[]int{0, 1, 2, 0, 1, 2, 0}, 3, 3.0/(7.0/3) - 1},
		{[]int{0}, 1, 0},
		{nil, 2, math.NaN()},
		{[]int{0, 1}, 0, math.NaN()},
		{[]int{0, 2}, 2, math.NaN()},
		{[]int{0, -1}, 2, math.NaN()},
	} {
		got := Imbalance(tc.parts, tc.k)
		ok := math.Abs(got-tc.want) <= 1e-12
		if math.IsNaN(tc.want) {
			ok = math.IsNaN(got)
		}
		if !ok {
			t.Errorf("Imbalance(%v, %d) = %v, want %v", tc.parts, tc.k, got, tc.want)
		}
	}
}
