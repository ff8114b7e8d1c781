package partition

import (
	"fmt"
	"math"
)

// Graph is an undirected graph without edge or vertex weights in
// compressed sparse row form: the neighbours of vertex i are
// Indices[Indptr[i]:Indptr[i+1]], so the graph has len(Indptr)-1 vertices.
// Every edge is listed in both directions; there are no self loops and no
// duplicate entries. Neighbour lists need not be sorted, but their order
// is part of the input: the partitioners are deterministic functions of it.
type Graph struct {
	Indptr  []int
	Indices []int
}

// n returns the number of vertices, or -1 if Indptr is empty.
func (g Graph) n() int { return len(g.Indptr) - 1 }

// check reports why g is not a valid undirected simple graph.
func (g Graph) check() error {
	n := g.n()
	if n < 0 {
		return fmt.Errorf("indptr is empty, want n+1 entries")
	}
	if g.Indptr[0] != 0 {
		return fmt.Errorf("indptr[0] = %d, want 0", g.Indptr[0])
	}
	for i := 0; i < n; i++ {
		if g.Indptr[i+1] < g.Indptr[i] {
			return fmt.Errorf("indptr not monotone at node %d (%d > %d)", i, g.Indptr[i], g.Indptr[i+1])
		}
	}
	nnz := len(g.Indices)
	if g.Indptr[n] != nnz {
		return fmt.Errorf("indptr ends at %d but there are %d indices", g.Indptr[n], nnz)
	}
	for e, j := range g.Indices {
		if j < 0 || j >= n {
			return fmt.Errorf("neighbour %d at entry %d out of range [0,%d)", j, e, n)
		}
	}
	if nnz >= math.MaxInt32 || n >= math.MaxInt32 {
		return fmt.Errorf("graph too large (%d nodes, %d entries)", n, nnz)
	}
	// Transpose by counting sort; row i of the transpose lists the rows
	// that hold column i. The graph is symmetric iff every row equals the
	// same row of the transpose as a set (and has no duplicates).
	tptr := make([]int, n+1)
	for _, j := range g.Indices {
		tptr[j+1]++
	}
	for i := 0; i < n; i++ {
		tptr[i+1] += tptr[i]
	}
	tind := make([]int, nnz)
	fill := make([]int, n)
	copy(fill, tptr[:n])
	for i := 0; i < n; i++ {
		for _, j := range g.Indices[g.Indptr[i]:g.Indptr[i+1]] {
			tind[fill[j]] = i
			fill[j]++
		}
	}
	mark := fill // reuse: mark[j] == i+1 means j is in row i
	for i := range mark {
		mark[i] = 0
	}
	for i := 0; i < n; i++ {
		row := g.Indices[g.Indptr[i]:g.Indptr[i+1]]
		for _, j := range row {
			if j == i {
				return fmt.Errorf("self loop at node %d", i)
			}
			if mark[j] == i+1 {
				return fmt.Errorf("duplicate entry (%d, %d)", i, j)
			}
			mark[j] = i + 1
		}
		if tptr[i+1]-tptr[i] != len(row) {
			return fmt.Errorf("adjacency not symmetric at node %d", i)
		}
		for _, j := range tind[tptr[i]:tptr[i+1]] {
			if mark[j] != i+1 {
				return fmt.Errorf("adjacency not symmetric: entry (%d, %d) without (%d, %d)", j, i, i, j)
			}
		}
	}
	return nil
}

// graph is the weighted graph of one level of the multilevel hierarchy
// (or of a bisection's subgraph). Every undirected edge is stored in both
// directions.
type graph struct {
	n      int
	xadj   []int32
	adjncy []int32
	adjwgt []int32
	vwgt   []int32
	tvwgt  int
	// cmap maps each vertex to its vertex in the next coarser graph.
	cmap []int32
}

func (g *graph) nedges() int { return len(g.adjncy) }

// newGraph converts a checked input graph into a unit-weight graph.
func newGraph(in Graph) *graph {
	n := in.n()
	nnz := len(in.Indices)
	g := &graph{
		n:      n,
		xadj:   make([]int32, n+1),
		adjncy: make([]int32, nnz),
		adjwgt: make([]int32, nnz),
		vwgt:   make([]int32, n),
		tvwgt:  n,
	}
	for i := 0; i <= n; i++ {
		g.xadj[i] = int32(in.Indptr[i])
	}
	for e, j := range in.Indices {
		g.adjncy[e] = int32(j)
		g.adjwgt[e] = 1
	}
	for i := range g.vwgt {
		g.vwgt[i] = 1
	}
	return g
}

// cut returns the total weight of the edges whose ends lie in different
// parts.
func (g *graph) cut(where []int32) int {
	c := 0
	for i := 0; i < g.n; i++ {
		wi := where[i]
		for e := g.xadj[i]; e < g.xadj[i+1]; e++ {
			if where[g.adjncy[e]] != wi {
				c += int(g.adjwgt[e])
			}
		}
	}
	return c / 2
}
