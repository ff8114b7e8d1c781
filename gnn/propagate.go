package gnn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// A Propagator applies the normalised adjacency of a graph,
//
//	A_hat = D^-1/2 (A + I) D^-1/2,   D_ii = sum_j (A + I)_ij,
//
// the GCN propagation of Eq. 1. A self loop of weight 1 is added only to
// nodes that have none (an existing self loop keeps its weight), and the
// degrees count the self loop, as PyG's gcn_norm does. A_hat is symmetric
// when A is, so the backward pass uses the same operator.
type Propagator struct {
	a CSR // A_hat
}

// NewPropagator builds A_hat from a square adjacency matrix whose values
// are the edge weights (1 for an unweighted graph). A node whose degree is
// zero (possible only with an explicit zero-weight self loop) gets a zero
// row, as in PyG.
func NewPropagator(adj *CSR) (*Propagator, error) {
	p, _, err := newPropagator(adj, nil)
	return p, err
}

// newPropagator builds A_hat with D_ii = sum_j (A + I)_ij + extra_i
// (extra nil: none) and returns it with the degrees D_ii; see
// NewExpansion.
func newPropagator(adj *CSR, extra []float64) (*Propagator, []float64, error) {
	if adj == nil {
		return nil, nil, fmt.Errorf("gnn: nil adjacency")
	}
	if err := adj.Validate(); err != nil {
		return nil, nil, err
	}
	if adj.Rows != adj.Cols {
		return nil, nil, fmt.Errorf("gnn: adjacency is %dx%d, want square", adj.Rows, adj.Cols)
	}
	n := adj.Rows
	if extra != nil && len(extra) != n {
		return nil, nil, fmt.Errorf("gnn: %d extra degrees for %d nodes", len(extra), n)
	}
	a := CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	a.Indices = make([]int, 0, adj.NNZ()+n)
	a.Values = make([]float64, 0, adj.NNZ()+n)
	deg := make([]float64, n)
	for i := 0; i < n; i++ {
		lo, hi := adj.Indptr[i], adj.Indptr[i+1]
		self := false
		for k := lo; k < hi; k++ {
			if adj.Indices[k] == i {
				self = true
				break
			}
		}
		// Keep the columns in order: the missing self loop goes before
		// the first larger column.
		added := self
		for k := lo; k < hi; k++ {
			j := adj.Indices[k]
			if !added && j > i {
				a.Indices = append(a.Indices, i)
				a.Values = append(a.Values, 1)
				deg[i]++
				added = true
			}
			a.Indices = append(a.Indices, j)
			a.Values = append(a.Values, adj.Values[k])
			deg[i] += adj.Values[k]
		}
		if !added {
			a.Indices = append(a.Indices, i)
			a.Values = append(a.Values, 1)
			deg[i]++
		}
		a.Indptr[i+1] = len(a.Indices)
	}
	for i, x := range extra {
		deg[i] += x
	}
	inv := make([]float64, n)
	for i, d := range deg {
		if d > 0 {
			inv[i] = 1 / math.Sqrt(d)
		}
	}
	for i := 0; i < n; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			a.Values[k] *= inv[i] * inv[a.Indices[k]]
		}
	}
	return &Propagator{a: a}, deg, nil
}

// N returns the number of nodes.
func (p *Propagator) N() int { return p.a.Rows }

// Matrix returns A_hat in CSR form. The caller must not modify it.
func (p *Propagator) Matrix() *CSR { return &p.a }

// Apply sets dst = A_hat * m for an N x k matrix m. dst must be N x k and
// must not share storage with m.
func (p *Propagator) Apply(dst, m *mat.Dense) { p.a.mulDense(dst, m) }
