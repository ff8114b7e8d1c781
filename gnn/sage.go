package gnn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// MeanAdj is GraphSAGE's mean aggregation over a graph's neighbourhoods,
//
//	(M X)_i = (1/|N(i)|) sum_{j in N(i)} x_j      (0 when N(i) is empty),
//
// with N(i) the stored neighbours of i other than i itself (edge weights
// are ignored), as PyG's SAGEConv aggregates a graph without self loops.
// M is not symmetric; the backward pass applies its transpose.
type MeanAdj struct {
	m, mt CSR // M and M^T
}

// NewMeanAdj builds the mean aggregation of a square adjacency matrix.
func NewMeanAdj(adj *CSR) (*MeanAdj, error) {
	if adj == nil {
		return nil, errors.New("gnn: nil adjacency")
	}
	if err := adj.Validate(); err != nil {
		return nil, err
	}
	if adj.Rows != adj.Cols {
		return nil, fmt.Errorf("gnn: adjacency is %dx%d, want square", adj.Rows, adj.Cols)
	}
	n := adj.Rows
	m := CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		lo := len(m.Indices)
		for k := adj.Indptr[i]; k < adj.Indptr[i+1]; k++ {
			if j := adj.Indices[k]; j != i {
				m.Indices = append(m.Indices, j)
			}
		}
		for range m.Indices[lo:] {
			m.Values = append(m.Values, 1/float64(len(m.Indices)-lo))
		}
		m.Indptr[i+1] = len(m.Indices)
	}
	return &MeanAdj{m: m, mt: transposeCSR(&m)}, nil
}

// transposeCSR returns the transpose of a, columns sorted within each row:
// a's columns, as the GCN layers' cscMatrix stores them.
func transposeCSR(a *CSR) CSR {
	var t cscMatrix
	t.build(a, increasing(a.Indptr, a.Indices, a.Rows))
	return CSR{Rows: a.Cols, Cols: a.Rows, Indptr: t.ptr, Indices: t.idx, Values: t.val}
}

// N returns the number of nodes.
func (a *MeanAdj) N() int { return a.m.Rows }

// Apply sets dst = M x (dst and x N x k, not sharing storage).
func (a *MeanAdj) Apply(dst, x *mat.Dense) { a.m.mulDense(dst, x) }

// ApplyT sets dst = M^T x (dst and x N x k, not sharing storage).
func (a *MeanAdj) ApplyT(dst, x *mat.Dense) { a.mt.mulDense(dst, x) }

// SAGE is a GraphSAGE layer with mean aggregation (Hamilton et al.,
// NeurIPS 2017; PyG's SAGEConv):
//
//	out_i = x_i W_r + (mean_{j in N(i)} x_j) W_n + b,
//
// with the root weight W_r and the neighbour weight W_n (In x Out) and
// the bias b (1 x Out), all drawn as torch's nn.Linear draws them,
// uniform in +-1/sqrt(In). Its input is a feature matrix X (sparse or
// dense) optionally followed by extra dense rows E (the generated
// neighbours of a mended graph), so that the rows of [X; E] are the nodes
// of the aggregation's graph; Backward returns the gradient of E.
//
// The matrices Forward and Backward return belong to the layer and are
// overwritten by its next call.
type SAGE struct {
	In, Out int
	Root    *Param // W_r
	Neigh   *Param // W_n
	Bias    *Param

	// GradOnlyNonzero makes Backward compute the input gradient only
	// where the dense input is non-zero (exact after a ReLU or dropout).
	GradOnlyNonzero bool

	adj   *MeanAdj
	x     Features
	sp    sageSparse // what it keeps of a sparse x
	extra *mat.Dense
	n0    int // rows of x
	pr    buffer
	pn    buffer
	wr    buffer // W_r and W_n as the forward's sources (buffer.source)
	wn    buffer
	agg   buffer
	dpn   buffer
	dx    buffer
	de    buffer
	live  liveRows // the extra rows with a gradient (mulTransAddLive) and rootRows' copies
}

// NewSAGE returns a layer named name (parameters name.root, name.neigh,
// name.bias) initialised from rng in that order.
func NewSAGE(name string, in, out int, rng *rand.Rand) *SAGE {
	l := &SAGE{In: in, Out: out}
	bound := 1 / math.Sqrt(float64(in))
	l.Root = newParam(name+".root", in, out, false)
	l.Neigh = newParam(name+".neigh", in, out, false)
	l.Bias = newParam(name+".bias", 1, out, false)
	l.Root.uniform(rng, bound)
	l.Neigh.uniform(rng, bound)
	l.Bias.uniform(rng, bound)
	return l
}

// Params returns root, neigh and bias.
func (l *SAGE) Params() []*Param { return []*Param{l.Root, l.Neigh, l.Bias} }

// Forward returns out for the nodes [x; extra] (extra may be nil) of the
// graph of adj.
func (l *SAGE) Forward(adj *MeanAdj, x Features, extra *mat.Dense) *mat.Dense {
	return l.forward(adj, x, extra, nil)
}

// forward is Forward with the root products of the extra rows summed only
// for the rows of extra that root lists (in increasing order; all of them
// when root is nil), the others' taken as zero.
func (l *SAGE) forward(adj *MeanAdj, x Features, extra *mat.Dense, root []int) *mat.Dense {
	n0, f := x.Dims()
	n := n0
	if extra != nil {
		r, c := extra.Dims()
		if c != l.In {
			panic(fmt.Sprintf("gnn: SAGE forward: extra rows have %d columns, layer takes %d", c, l.In))
		}
		n += r
	}
	if f != l.In || n != adj.N() || n == 0 {
		panic(fmt.Sprintf("gnn: SAGE forward: features %dx%d (+%d extra rows), graph of %d nodes, layer input %d", n0, f, n-n0, adj.N(), l.In))
	}
	l.adj, l.x, l.extra, l.n0 = adj, x, extra, n0
	pr, pn := l.pr.padded(n, l.Out), l.pn.padded(n, l.Out)
	reads := n * l.In // a sparse input reads W's rows once an entry
	if s := x.Sparse; s != nil {
		reads = len(s.Indices) + (n-n0)*l.In
	}
	wr, wn := l.wr.source(l.Root, reads), l.wn.source(l.Neigh, reads)
	if s := x.Sparse; s != nil {
		// Row i is summed from +0 over the entries of row i of x in
		// order, explicit zeros included.
		l.sp.mul(sageRows(pr, 0, n0), s, wr)
		l.sp.mul(sageRows(pn, 0, n0), s, wn)
	} else {
		mulSkip(sageRows(pr, 0, n0), x.Dense, wr)
		mulSkip(sageRows(pn, 0, n0), x.Dense, wn)
	}
	if extra != nil {
		if root == nil {
			mulSkip(sageRows(pr, n0, n), extra, wr)
		} else {
			l.rootRows(sageRows(pr, n0, n), extra, wr, root)
		}
		mulSkip(sageRows(pn, n0, n), extra, wn)
	}
	out := l.agg.get(n, l.Out)
	adj.Apply(out, pn)
	addTo(out, pr)
	addRowVector(out, l.Bias.Value)
	return out
}

// rootRows sets the rows of dst (extra's rows times W_r) that root lists
// to their products, which it sums for those rows only (copied together
// in order; a row's sum does not depend on the rows beside it), and the
// others to zero.
func (l *SAGE) rootRows(dst, extra, wr *mat.Dense, root []int) {
	r, c := dst.Dims()
	if len(root) > 0 {
		out := l.live.p.get(len(root), c)
		mulSkip(out, gatherRows(l.live.x.get(len(root), l.In), extra, root), wr)
		for k, i := range root {
			copy(dst.RawRowView(i)[:c], out.RawRowView(k))
		}
	}
	k := 0
	for i := range r {
		if k < len(root) && root[k] == i {
			k++
			continue
		}
		clear(dst.RawRowView(i)[:c])
	}
}

// Backward takes dL/dout, adds the parameter gradients to their Grad
// fields and returns dL/dx (nil unless needInput and x was dense) and
// dL/dextra (nil unless needExtra and there were extra rows).
func (l *SAGE) Backward(dOut *mat.Dense, needInput, needExtra bool) (dx, dExtra *mat.Dense) {
	n, _ := dOut.Dims()
	n0 := l.n0
	addColumnSums(l.Bias.Grad, dOut)
	dpn := l.dpn.padded(n, l.Out)
	l.adj.ApplyT(dpn, dOut)
	gr, gn := l.Root.GradMatrix(), l.Neigh.GradMatrix()
	if s := l.x.Sparse; s != nil {
		// Row j of each gradient gains x_ij times row i of dOut (dpn)
		// for the entries of column j of x, in the order of i and then
		// of the entries of row i, explicit zeros included.
		l.sp.transAdd(gr, s, sageRows(dOut, 0, n0))
		l.sp.transAdd(gn, s, sageRows(dpn, 0, n0))
	} else {
		mulTransAddSkip(gr, l.x.Dense, sageRows(dOut, 0, n0))
		mulTransAddSkip(gn, l.x.Dense, sageRows(dpn, 0, n0))
		if needInput {
			dx = l.dx.get(n0, l.In)
			var pattern *mat.Dense
			if l.GradOnlyNonzero {
				pattern = l.x.Dense
			}
			l.inputGrad(dx, sageRows(dOut, 0, n0), sageRows(dpn, 0, n0), pattern)
		}
	}
	if l.extra != nil {
		mulTransAddLive(gr, l.extra, sageRows(dOut, n0, n), &l.live)
		mulTransAddLive(gn, l.extra, sageRows(dpn, n0, n), &l.live)
		if needExtra {
			dExtra = l.de.get(n-n0, l.In)
			l.inputGrad(dExtra, sageRows(dOut, n0, n), sageRows(dpn, n0, n), nil)
		}
	}
	return dx, dExtra
}

// inputGrad sets dst = dr W_r^T + dn W_n^T; with a pattern (the input,
// when it came out of a ReLU) only its non-zero entries are computed,
// the rest being set to zero (the ReLU's backward zeroes them anyway).
// Entry (i, j) is dot(dr_i, W_r row j) + dot(dn_i, W_n row j): the
// two products of mulTransB, the second added.
func (l *SAGE) inputGrad(dst, dr, dn, pattern *mat.Dense) {
	mulTransB(dst, dr, l.Root.Matrix(), pattern)
	mulTransBAdd(dst, dn, l.Neigh.Matrix(), pattern)
}

// SAGENet is a two-layer GraphSAGE network, In -> Hidden -> Out, FedSage+'s
// classifier and NeighGen's encoder:
//
//	h   = dropout(relu(sage1([X; E])))
//	out = sage2(h)
//
// with optional extra dense rows E (generated neighbours). Dropout acts
// in training mode only.
type SAGENet struct {
	L1, L2 *SAGE
	relu   ReLU
	drop   Dropout
	h      *mat.Dense
	params []*Param
	need   []bool // ForwardAt's extra rows whose root products are needed
	root   []int  // and their indices
}

// NewSAGENet returns a network whose layers are named prefix+"1" and
// prefix+"2", initialised from rng in that order.
func NewSAGENet(prefix string, in, hidden, out int, dropout float64, rng *rand.Rand) *SAGENet {
	m := &SAGENet{L1: NewSAGE(prefix+"1", in, hidden, rng), L2: NewSAGE(prefix+"2", hidden, out, rng)}
	m.L2.GradOnlyNonzero = true // its input comes out of ReLU and dropout
	m.drop.P = dropout
	m.params = append(m.L1.Params(), m.L2.Params()...)
	return m
}

// Params returns the parameters of both layers, first layer first.
func (m *SAGENet) Params() []*Param { return m.params }

// Forward returns the N x Out output for the nodes [x; extra] of the
// graph of adj. In training mode dropout draws from rng. The result
// belongs to the network.
func (m *SAGENet) Forward(adj *MeanAdj, x Features, extra *mat.Dense, train bool, rng *rand.Rand) *mat.Dense {
	m.h = m.drop.Forward(m.relu.Forward(m.L1.Forward(adj, x, extra)), train, rng)
	return m.L2.Forward(adj, Features{Dense: m.h}, nil)
}

// ForwardAt is Forward in training mode for a loss that reads the output
// at rows (indices of [x; extra]) only: the output is Forward's at those
// rows and undefined at the others, and Backward of a dL/dout that is
// zero outside them adds Forward's gradients to the bit (for a finite
// network). It leaves out the first layer's root products x_i W_r of
// the extra rows that are neither among rows nor neighbours of one of
// them, whose h_i reaches no output at rows; FedSage+'s generated rows
// each hang on one node, so those of the nodes outside rows. Such a row
// gets h_i from a root product of zero, finite, and every term it adds
// to a gradient is a product with a zero of dL/dout or of the gradients
// that come from it, which leaves the gradients' sums as they are (see
// mulTransAddLive).
func (m *SAGENet) ForwardAt(adj *MeanAdj, x Features, extra *mat.Dense, rows []int, rng *rand.Rand) *mat.Dense {
	var root []int
	if extra != nil {
		n0, _ := x.Dims()
		need := grow(m.need, adj.N()-n0)
		clear(need)
		m.need = need
		for _, i := range rows {
			if i >= n0 {
				need[i-n0] = true
			}
			for _, j := range adj.m.Indices[adj.m.Indptr[i]:adj.m.Indptr[i+1]] {
				if j >= n0 {
					need[j-n0] = true
				}
			}
		}
		if m.root == nil {
			m.root = make([]int, 0, len(need)) // not nil: nil asks for every row
		}
		root = m.root[:0]
		for g, ok := range need {
			if ok {
				root = append(root, g)
			}
		}
		m.root = root
	}
	m.h = m.drop.Forward(m.relu.Forward(m.L1.forward(adj, x, extra, root)), true, rng)
	return m.L2.Forward(adj, Features{Dense: m.h}, nil)
}

// Backward takes dL/dout of the last Forward, adds the parameter
// gradients and returns dL/dextra (nil unless needExtra and there were
// extra rows; a classifier step that does not train the generator skips
// its cost, as much as the extra rows' forward product).
func (m *SAGENet) Backward(dOut *mat.Dense, needExtra bool) *mat.Dense {
	dh, _ := m.L2.Backward(dOut, true, false)
	_, de := m.L1.Backward(m.relu.Backward(m.drop.Backward(dh)), false, needExtra)
	return de
}

// Hidden returns h of the last Forward (N x Hidden), owned by the network.
func (m *SAGENet) Hidden() *mat.Dense { return m.h }

// sageRows returns the rows lo..hi-1 of m as a view (m itself when that
// is all of it); lo < hi.
func sageRows(m *mat.Dense, lo, hi int) *mat.Dense {
	r, c := m.Dims()
	if lo == 0 && hi == r {
		return m
	}
	return m.Slice(lo, hi, 0, c).(*mat.Dense)
}
