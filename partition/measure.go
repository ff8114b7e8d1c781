package partition

import "math"

// EdgeCut returns the number of undirected edges of g whose ends lie in
// different parts: the entries (i, j) of the adjacency with i < j and
// parts[i] != parts[j]. For a valid Graph (every edge listed in both
// directions) that is every cut edge once. It returns -1 if parts does not
// hold one entry per vertex or g is malformed (Indptr empty, not
// monotone, or an index out of range); it does not check symmetry.
// Multilevel's internal cut works on its weighted int32 graphs, so this
// is a separate loop.
func EdgeCut(g Graph, parts []int) int {
	n := g.n()
	if n < 0 || len(parts) != n || g.Indptr[0] != 0 || g.Indptr[n] != len(g.Indices) {
		return -1
	}
	cut := 0
	for i := 0; i < n; i++ {
		lo, hi := g.Indptr[i], g.Indptr[i+1]
		if lo > hi || lo < 0 || hi > len(g.Indices) {
			return -1
		}
		for _, j := range g.Indices[lo:hi] {
			if j < 0 || j >= n {
				return -1
			}
			if i < j && parts[i] != parts[j] {
				cut++
			}
		}
	}
	return cut
}

// Imbalance returns the size of the largest part over the mean part size
// n/k, minus 1: 0 for perfectly balanced parts, 1 when the largest part is
// twice the mean. Parts must lie in 0..k-1; empty parts count in the mean.
// It returns NaN if parts is empty, k < 1 or a part lies outside
// 0..k-1.
func Imbalance(parts []int, k int) float64 {
	if len(parts) == 0 || k < 1 {
		return math.NaN()
	}
	size := make([]int, k)
	for _, p := range parts {
		if p < 0 || p >= k {
			return math.NaN()
		}
		size[p]++
	}
	largest := 0
	for _, s := range size {
		largest = max(largest, s)
	}
	return float64(largest)/(float64(len(parts))/float64(k)) - 1
}
