package gnn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// A RemoteNeighbor is a neighbour of a node that another client holds
// (FedGNN's graph expansion): its embedding at the input of the expanded
// layer, a constant, and its degree without the self loop.
type RemoteNeighbor struct {
	Embedding []float64
	Degree    float64
}

// Expansion is FedGNN's graph expansion of one GCN layer (docs/method.md#fedgnn,
// FedGNN-NC step 4). Node u of the client's graph has, beside its local
// neighbours N(u), remote neighbours R(u) whose input embeddings e_r
// arrive from other clients as constants. The expanded layer computes
//
//	h'_u = sum_{v in N(u) ∪ {u}} h_v W / sqrt(d_u d_v) + sum_{r in R(u)} e_r W / sqrt(d_u d_r) + b,
//
// with d_u = 1 + |N(u)| + |R(u)| for every local node and d_r = 1 + deg_r
// for a remote one. Prop is the local adjacency normalised with the
// expanded degrees d_u; the remote sums are gathered once, for the nodes
// Rows that have remote neighbours, into the constant
//
//	Remote_u = sum_{r in R(u)} e_r / sqrt(d_u d_r),
//
// so that the layer is H' = Prop (H W) + S Remote W + b, S scattering the
// rows of Remote to the nodes Rows, and its weight gradient gains
// Remote^T (dL/dH')[Rows]. The remote embeddings get no gradient.
type Expansion struct {
	// Layer is the index of the expanded layer (1: conv2, the layer whose
	// inputs are first-layer embeddings).
	Layer  int
	Prop   *Propagator
	Rows   []int      // nodes with remote neighbours, ascending
	Remote *mat.Dense // len(Rows) x In

	tmp buffer // len(Rows) x Out
	dw  buffer // In x Out
}

// NewExpansion builds the expansion of layer layer of a client whose
// local adjacency is adj, remote[u] holding the remote neighbours of node
// u (nil for none; remote may be shorter than the graph, the rest having
// none). Every embedding must have the layer's input width.
func NewExpansion(adj *CSR, layer int, remote [][]RemoteNeighbor) (*Expansion, error) {
	if adj == nil {
		return nil, errors.New("gnn: expansion: nil adjacency")
	}
	if len(remote) > adj.Rows {
		return nil, fmt.Errorf("gnn: expansion: remote neighbours for %d nodes of a graph of %d", len(remote), adj.Rows)
	}
	extra := make([]float64, adj.Rows)
	width := -1
	var rows []int
	for u, rs := range remote {
		if len(rs) == 0 {
			continue
		}
		rows = append(rows, u)
		extra[u] = float64(len(rs))
		for _, r := range rs {
			if width < 0 {
				width = len(r.Embedding)
			}
			if len(r.Embedding) != width || width == 0 {
				return nil, fmt.Errorf("gnn: expansion: node %d has a remote embedding of width %d, want %d", u, len(r.Embedding), width)
			}
			if !(r.Degree >= 0) {
				return nil, fmt.Errorf("gnn: expansion: node %d has a remote neighbour of degree %v", u, r.Degree)
			}
		}
	}
	prop, deg, err := newPropagator(adj, extra)
	if err != nil {
		return nil, fmt.Errorf("gnn: expansion: %w", err)
	}
	e := &Expansion{Layer: layer, Prop: prop, Rows: rows}
	if len(rows) == 0 {
		return e, nil
	}
	e.Remote = mat.NewDense(len(rows), width, nil)
	for i, u := range rows {
		dst := e.Remote.RawRowView(i)
		for _, r := range remote[u] {
			axpy(dst, 1/math.Sqrt(deg[u]*(1+r.Degree)), r.Embedding)
		}
	}
	return e, nil
}

// check reports whether the expansion fits a model and a graph of n nodes.
func (e *Expansion) check(m *Model, n int) error {
	switch {
	case m.cfg.Masked:
		return errors.New("gnn: graph expansion needs a plain model (no masks)")
	case e.Layer < 1 || e.Layer >= len(m.layers):
		return fmt.Errorf("gnn: expansion of layer %d in a model of %d layers (want 1..%d)", e.Layer, len(m.layers), len(m.layers)-1)
	case e.Prop == nil || e.Prop.N() != n:
		return fmt.Errorf("gnn: expansion for another graph than the input's %d nodes", n)
	}
	if e.Remote == nil {
		if len(e.Rows) > 0 {
			return errors.New("gnn: expansion has rows but no remote sums")
		}
		return nil
	}
	r, c := e.Remote.Dims()
	if r != len(e.Rows) || c != m.layers[e.Layer].conv.In {
		return fmt.Errorf("gnn: expansion remote sums %dx%d for %d rows and a layer input of %d", r, c, len(e.Rows), m.layers[e.Layer].conv.In)
	}
	for _, u := range e.Rows {
		if u < 0 || u >= n {
			return fmt.Errorf("gnn: expansion row %d out of range [0,%d)", u, n)
		}
	}
	return nil
}

// forward adds S Remote W to the layer's output.
func (e *Expansion) forward(out *mat.Dense, l *GCN) {
	if e.Remote == nil {
		return
	}
	tmp := e.tmp.get(len(e.Rows), l.Out)
	// The sums of rows of gonum's Dgemm (each element summed over the
	// remote sums' columns in order from +0, zero entries skipped, each
	// product and sum rounded) with the blocked kernels.
	mulSkip(tmp, e.Remote, l.Weight.Matrix())
	for i, u := range e.Rows {
		axpy(out.RawRowView(u), 1, tmp.RawRowView(i))
	}
}

// backward adds Remote^T (dOut)[Rows] to the layer's weight gradient.
func (e *Expansion) backward(dOut *mat.Dense, l *GCN) {
	if e.Remote == nil {
		return
	}
	tmp := e.tmp.get(len(e.Rows), l.Out)
	for i, u := range e.Rows {
		copy(tmp.RawRowView(i), dOut.RawRowView(u))
	}
	d := e.dw.zeros(l.In, l.Out)
	mulTransAddSkip(d, e.Remote, tmp) // as gonum's Dgemm of Remote^T tmp sums them
	g := l.Weight.GradMatrix()
	addTo(g, d)
}

// FirstLayer returns relu(conv1(X)), the first layer's embeddings of
// every node in evaluation mode (no dropout, pruned masks): what a FedGNN
// client sends of its boundary nodes. The matrix belongs to the model and
// is overwritten by its next pass; run Forward again before the next
// Backward. It panics if the input does not fit the model.
func (m *Model) FirstLayer(in Input) *mat.Dense {
	if err := m.check(in); err != nil {
		panic(err)
	}
	m.ready = false
	l := &m.layers[0]
	return l.relu.Forward(l.conv.Forward(in.Prop, in.X, false))
}
