package graphio

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// CSR is a sparse matrix in compressed sparse row form. Row i holds the
// column indices Indices[Indptr[i]:Indptr[i+1]] with values
// Values[Indptr[i]:Indptr[i+1]].
type CSR struct {
	Rows, Cols int
	Indptr     []int
	Indices    []int
	Values     []float64
}

// NNZ returns the number of stored entries.
func (c *CSR) NNZ() int { return len(c.Indices) }

// Row returns the column indices and values of row i.
func (c *CSR) Row(i int) ([]int, []float64) {
	lo, hi := c.Indptr[i], c.Indptr[i+1]
	return c.Indices[lo:hi], c.Values[lo:hi]
}

// Validate reports the first structural problem of c: wrong lengths, a row
// pointer that is not monotone, or a column index out of range.
func (c *CSR) Validate() error {
	if c.Rows < 0 || c.Cols < 0 {
		return fmt.Errorf("negative shape %dx%d", c.Rows, c.Cols)
	}
	if len(c.Indptr) != c.Rows+1 {
		return fmt.Errorf("indptr has length %d, want rows+1 = %d", len(c.Indptr), c.Rows+1)
	}
	if c.Indptr[0] != 0 {
		return fmt.Errorf("indptr[0] = %d, want 0", c.Indptr[0])
	}
	for i := 0; i < c.Rows; i++ {
		if c.Indptr[i+1] < c.Indptr[i] {
			return fmt.Errorf("indptr not monotone at row %d (%d > %d)", i, c.Indptr[i], c.Indptr[i+1])
		}
	}
	if n := c.Indptr[c.Rows]; n != len(c.Indices) || n != len(c.Values) {
		return fmt.Errorf("indptr ends at %d but there are %d indices and %d values", n, len(c.Indices), len(c.Values))
	}
	for k, j := range c.Indices {
		if j < 0 || j >= c.Cols {
			return fmt.Errorf("column index %d at entry %d out of range [0,%d)", j, k, c.Cols)
		}
	}
	return nil
}

// Graph is an undirected attributed graph with node labels. Adj is square,
// symmetric, free of self loops and duplicate entries, with sorted columns.
// Exactly one of Features (sparse) and Dense holds the node features.
type Graph struct {
	Name       string
	Adj        *CSR
	Features   *CSR
	Dense      *mat.Dense
	Labels     []int
	NumClasses int
}

// N returns the number of nodes.
func (g *Graph) N() int { return g.Adj.Rows }

// NumFeatures returns the feature dimension.
func (g *Graph) NumFeatures() int {
	if g.Dense != nil {
		_, c := g.Dense.Dims()
		return c
	}
	return g.Features.Cols
}

// NumEdges returns the number of undirected edges.
func (g *Graph) NumEdges() int { return g.Adj.NNZ() / 2 }

// Role is a node's part in the split.
type Role int8

// Roles of the split; the values match the `split` key of partition files.
const (
	Train Role = 0
	Val   Role = 1
	Test  Role = 2
)

// Client is one client's induced subgraph: Graph holds local node ids
// 0..n-1, Nodes maps them to the global graph, Roles gives each local
// node's split role.
type Client struct {
	ID    int
	Graph *Graph
	Nodes []int
	Roles []Role
	// Cut lists the client's cut edges, the edges of the whole graph from
	// one of its nodes to another client's, which Graph drops. Partition
	// sets it (nil otherwise); only FedGNN's graph expansion reads it.
	Cut []CutEdge
}

// A CutEdge is an edge from a client's node to a node of another client:
// Local is the local id of the client's end, Remote the global id of the
// other end. Cut edges are listed by local node, then by remote id.
type CutEdge struct {
	Local, Remote int
}
