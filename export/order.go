package export

import (
	"fmt"
	"math"
	"slices"
)

// ClientOrder returns the order in which to show K clients so that groups
// of similar clients sit together: by true group (then id) when groups has
// one entry per client, else the leaf order of an average-linkage
// clustering of the matrix m (symmetrised) when it is k x k, else by id.
// k is the number of clients.
func ClientOrder(k int, groups []int, m [][]float64) []int {
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	switch {
	case len(groups) == k:
		slices.SortStableFunc(order, func(a, b int) int { return groups[a] - groups[b] })
	case len(m) == k && checkSquare(m) == nil:
		order = linkageOrder(m)
	}
	return order
}

// checkSquare reports the first row of m whose length is not len(m).
func checkSquare(m [][]float64) error {
	for i, row := range m {
		if len(row) != len(m) {
			return fmt.Errorf("row %d has %d entries, want %d", i, len(row), len(m))
		}
	}
	return nil
}

// linkageOrder clusters the rows of a square similarity matrix bottom up,
// always merging the two clusters of highest mean similarity (the first
// such pair on ties), and joins the two members' leaf lists at the ends
// that are most similar. The result is deterministic.
func linkageOrder(m [][]float64) []int {
	k := len(m)
	s := func(i, j int) float64 {
		v := (m[i][j] + m[j][i]) / 2
		if math.IsNaN(v) {
			return math.Inf(-1)
		}
		return v
	}
	clusters := make([][]int, k)
	for i := range clusters {
		clusters[i] = []int{i}
	}
	// link[a][b] is the sum of s over the pairs of clusters a and b.
	link := make([][]float64, k)
	for a := range link {
		link[a] = make([]float64, k)
		for b := range link[a] {
			link[a][b] = s(a, b)
		}
	}
	alive := make([]bool, k)
	for i := range alive {
		alive[i] = true
	}
	for n := k; n > 1; n-- {
		ba, bb, best := -1, -1, math.Inf(-1)
		for a := 0; a < k; a++ {
			if !alive[a] {
				continue
			}
			for b := a + 1; b < k; b++ {
				if !alive[b] {
					continue
				}
				v := link[a][b] / float64(len(clusters[a])*len(clusters[b]))
				if ba < 0 || v > best {
					ba, bb, best = a, b, v
				}
			}
		}
		clusters[ba] = join(clusters[ba], clusters[bb], s)
		alive[bb] = false
		for c := 0; c < k; c++ {
			link[ba][c] += link[bb][c]
			link[c][ba] = link[ba][c]
		}
	}
	for a := range clusters {
		if alive[a] {
			return clusters[a]
		}
	}
	return nil
}

// join concatenates a and b, each possibly reversed, so that the two
// clients that meet are as similar as possible.
func join(a, b []int, s func(i, j int) float64) []int {
	type end struct{ revA, revB bool }
	best, bv := end{}, math.Inf(-1)
	for _, e := range []end{{false, false}, {false, true}, {true, false}, {true, true}} {
		x, y := a[len(a)-1], b[0]
		if e.revA {
			x = a[0]
		}
		if e.revB {
			y = b[len(b)-1]
		}
		if v := s(x, y); v > bv {
			best, bv = e, v
		}
	}
	out := make([]int, 0, len(a)+len(b))
	out = append(out, a...)
	if best.revA {
		slices.Reverse(out)
	}
	tail := slices.Clone(b)
	if best.revB {
		slices.Reverse(tail)
	}
	return append(out, tail...)
}
