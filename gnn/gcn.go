package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// MaskThreshold is the pruning threshold of masked layers: in evaluation
// mode a mask entry m with |m| < MaskThreshold counts as 0 (the stored
// mask is unchanged).
const MaskThreshold = 1e-3

// GCN is a graph convolution layer (Eq. 1), masked or plain:
//
//	H' = A_hat (X (W . M)) + b,
//
// with W (In x Out, Glorot-uniform), the mask M (In x Out, all ones,
// personal) and the bias b (1 x Out, zero) added after propagation. A
// plain layer (FedAvg's GCN) has no mask: H' = A_hat X W + b.
//
// Forward caches what Backward needs; the matrices either returns belong
// to the layer and are overwritten by its next call.
type GCN struct {
	In, Out int
	Weight  *Param
	Mask    *Param // nil for a plain layer
	Bias    *Param

	// GradOnlyNonzero makes Backward compute the input gradient only
	// where the dense input is non-zero, leaving zero elsewhere. It is
	// exact when the input is the output of a ReLU (or of dropout after
	// a ReLU), whose backward zeroes those entries anyway.
	GradOnlyNonzero bool

	prop   *Propagator
	x      Features
	pruned bool
	xt     cscMatrix // a sparse input, by columns (kept across Release, as plans)
	xtOf   *CSR      // the sparse input xt holds
	plans  sparsePlans
	row    []float64  // one row of W . M or of its gradient
	src    *mat.Dense // the weight the last forward read (effective)
	weff   buffer     // W . M (masked layer, dense input)
	xw     buffer
	out    buffer
	dxw    buffer
	dweff  buffer
	dx     buffer
	// ahead: weff holds the pruned W . M of the rows the sparse input
	// selects, formed by StepEvaluate's step for the forward it runs next.
	ahead bool
}

// NewGCN returns a layer named name (its parameters are name.weight,
// name.mask, name.bias) with Glorot-uniform weights drawn from rng.
func NewGCN(name string, in, out int, masked bool, rng *rand.Rand) *GCN {
	l := &GCN{In: in, Out: out}
	l.Weight = newParam(name+".weight", in, out, false)
	l.Weight.glorot(rng, in, out)
	if masked {
		l.Mask = newParam(name+".mask", in, out, true)
		l.Mask.fill(1)
	}
	l.Bias = newParam(name+".bias", 1, out, false)
	return l
}

// Params returns the layer's parameters: weight, mask (if any), bias.
func (l *GCN) Params() []*Param {
	if l.Mask == nil {
		return []*Param{l.Weight, l.Bias}
	}
	return []*Param{l.Weight, l.Mask, l.Bias}
}

// Forward computes A_hat (X (W . M)) + b for the N x In features x. In
// evaluation mode (train false) mask entries below MaskThreshold in
// magnitude count as zero.
func (l *GCN) Forward(prop *Propagator, x Features, train bool) *mat.Dense {
	n, f := x.Dims()
	if n != prop.N() || f != l.In || n == 0 {
		panic(fmt.Sprintf("gnn: GCN forward: features %dx%d, graph of %d nodes, layer input %d", n, f, prop.N(), l.In))
	}
	l.prop, l.x, l.pruned = prop, x, !train
	var xw *mat.Dense
	if x.Sparse != nil {
		xw = l.sparseForward(x.Sparse)
	} else {
		xw = l.xw.padded(n, l.Out)
		mulSkip(xw, x.Dense, l.effective(n*l.In, nil))
	}
	out := l.out.get(n, l.Out)
	prop.Apply(out, xw)
	addRowVector(out, l.Bias.Value)
	return out
}

// sparseForward returns X (W . M) for a sparse X: row i is summed from
// the rows of the effective weight that the entries of row i of X select,
// in column order, each product and each sum rounded (vec.RowSums, the
// rounding of the dense path's mulSkip), termRows rows at a time, in
// blocks of the weight's rows where rows have many entries
// (terms.sumCompressed). A CSR whose rows are not in increasing column
// order is walked by columns instead (sparseForwardByColumns), which sums
// each row in column order too.
func (l *GCN) sparseForward(x *CSR) *mat.Dense {
	l.columns(x)
	if !l.plans.sorted {
		return l.sparseForwardByColumns()
	}
	w := l.effective(len(x.Indices), l.xt.nonEmpty).RawMatrix()
	xw := l.xw.padded(x.Rows, l.Out)
	l.plans.mul(xw.RawMatrix(), x, w)
	return xw
}

// sameSparse reports whether in's features are the sparse matrix of the
// layer's last forward, without FedGNN's expansion.
func (l *GCN) sameSparse(in Input) bool {
	return in.Expand == nil && in.X.Sparse != nil && in.X.Sparse == l.x.Sparse
}

// columns sets l.xt to the columns of x, and l.plans to x's (with
// whether every row of x lists its columns in increasing order); it
// keeps them while x is the same matrix, across Release too: a layer's
// sparse input is its client's features, the same in every round, and
// building its columns anew each round was 4 % of a computer-10 run's
// CPU in float64, for memory about that of the features themselves.
func (l *GCN) columns(x *CSR) {
	if !l.plans.use(x) && l.xtOf == x {
		return
	}
	l.xt.build(x, l.plans.sorted)
	l.xtOf = x
}

// sparsePlans holds sumCompressed's block plans for a sparse input: fwd
// one a chunk of termRows rows of X (W . M), bwd one a chunk of X's
// non-empty columns (X^T dxw), made on first use. They depend only on the
// input's pattern, so a layer keeps them across Release: a layer's
// sparse input is its client's features, the same in every round, and
// forming the block ends anew each time was 3.7 % of a computer-10 run's
// CPU in float64.
type sparsePlans struct {
	of        *CSR // the input they are for (held: its address stays its own)
	rows, nnz int
	sorted    bool // every row of the input lists increasing columns
	fwd, bwd  []blockPlan
}

// use makes p the plans of x, dropping those of another input (or of x
// with other rows or entries), and reports whether it did.
func (p *sparsePlans) use(x *CSR) bool {
	if p.of == x && p.rows == x.Rows && p.nnz == len(x.Indices) {
		return false
	}
	*p = sparsePlans{of: x, rows: x.Rows, nnz: len(x.Indices), sorted: increasing(x.Indptr, x.Indices, x.Rows)}
	return true
}

// mul sets dst (x.Rows x dst.Cols) to x w for the input x of p (sorted:
// every row lists increasing columns), termRows rows at a time in blocks
// of w's rows (terms.sumCompressed), as vec.RowSums sums each row.
func (p *sparsePlans) mul(dst blas64.General, x *CSR, w blas64.General) {
	b := getTerms()
	defer putTerms(b)
	for i0 := 0; i0 < x.Rows; i0 += termRows {
		i1 := min(i0+termRows, x.Rows)
		rows := b.rowRange(i0, i1)
		pl := p.plan(&p.fwd, i0/termRows, x.Indptr, x.Indices, rows, w.Rows, &b.pos)
		b.sumCompressed(dst.Data[i0*dst.Stride:], dst.Stride, dst.Cols, w.Data, w.Stride, w.Rows,
			x.Indptr, x.Indices, x.Values, rows, pl)
	}
}

// plan returns plan c of list, made on first use for the rows (entries
// of ptr and idx) on srcRows source rows (blockPlan.make, with scratch).
func (p *sparsePlans) plan(list *[]blockPlan, c int, ptr, idx, rows []int, srcRows int, scratch *[]int) *blockPlan {
	for len(*list) <= c {
		*list = append(*list, blockPlan{})
	}
	pl := &(*list)[c]
	if pl.n == nil {
		pl.make(ptr, idx, rows, srcRows, scratch)
	}
	return pl
}

// sparseForwardByColumns returns X (W . M) by walking X by columns: each
// referenced row r of the effective weight is formed once, in a small
// buffer, and added to the nodes that have feature r.
func (l *GCN) sparseForwardByColumns() *mat.Dense {
	xw := l.xw.paddedZeros(l.x.Sparse.Rows, l.Out)
	raw := xw.RawMatrix()
	c := l.Out
	l.row = grow(l.row, c)
	for _, r := range l.xt.nonEmpty {
		w := l.Weight.Value[r*c : (r+1)*c]
		if l.Mask != nil {
			maskedRow(l.row, w, l.Mask.Value[r*c:(r+1)*c], l.pruned)
			w = l.row
		}
		for k := l.xt.ptr[r]; k < l.xt.ptr[r+1]; k++ {
			i := l.xt.idx[k]
			axpy(raw.Data[i*raw.Stride:i*raw.Stride+c], l.xt.val[k], w)
		}
	}
	return xw
}

// effective returns the effective weight W . M (pruned in evaluation
// mode), computed once per forward into rows padStride(Out) apart (see
// padStride), or for a plain layer W as the source of a product that
// reads its rows reads times (buffer.source: a padded copy when that
// pays; Cora's 1433 rows are read a few times each by a client's 18
// features a node, Computer's 767 rows 480 times). It is the source of
// the forward's products and of the input gradient's (l.src).
//
// A masked layer forms only the rows in rows, when rows is not nil: the
// rows a sparse input selects (a Cora client's features select about 73%
// of the 1433, a CiteSeer client's 56% of the 3703). The other rows of
// the returned matrix are stale and must not be read; a layer whose
// input is sparse has no input gradient, the one other reader of l.src.
// When StepEvaluate's step has formed the pruned rows (ahead), it leaves
// them.
func (l *GCN) effective(reads int, rows []int) *mat.Dense {
	if l.Mask == nil {
		l.src = l.weff.source(l.Weight, reads)
		return l.src
	}
	c := l.Out
	l.src = l.weff.padded(l.In, c)
	if l.ahead && l.pruned && rows != nil {
		return l.src
	}
	raw := l.src.RawMatrix()
	row := func(r int) {
		maskedRow(raw.Data[r*raw.Stride:r*raw.Stride+c], l.Weight.Value[r*c:(r+1)*c], l.Mask.Value[r*c:(r+1)*c], l.pruned)
	}
	if rows != nil {
		for _, r := range rows {
			row(r)
		}
		return l.src
	}
	for r := range l.In {
		row(r)
	}
	return l.src
}

// maskedRow sets dst = w . m, with |m| < MaskThreshold counted as 0 when
// pruned.
func maskedRow(dst, w, m []float64, pruned bool) {
	m = m[:len(dst)]
	w = w[:len(dst)]
	if !pruned {
		vec.Mul(dst, w, m) // dst[i] = w[i] * m[i]
		return
	}
	vec.MulPruned(dst, w, m, MaskThreshold)
}

// maskGradRow adds the gradients of the effective weight d = dL/d(W.M)
// to the weight and mask gradients of one row.
func maskGradRow(gw, gm, d, w, m []float64, pruned bool) {
	gw = gw[:len(d)]
	gm = gm[:len(d)]
	w = w[:len(d)]
	m = m[:len(d)]
	if !pruned {
		vec.AddMul(gw, d, m) // gw[i] += d[i] * m[i]
		vec.AddMul(gm, d, w) // gm[i] += d[i] * w[i]
		return
	}
	for i, di := range d {
		mi := m[i]
		if math.Abs(mi) < MaskThreshold {
			continue // the effective weight is a constant zero here
		}
		gw[i] += di * mi
		gm[i] += di * w[i]
	}
}

// Backward takes dL/dH' (N x Out), adds the parameter gradients to their
// Grad fields and returns dL/dX when needInput is set and the input was
// dense (nil otherwise: a sparse input is data, not an activation).
func (l *GCN) Backward(dOut *mat.Dense, needInput bool) *mat.Dense {
	n, _ := dOut.Dims()
	addColumnSums(l.Bias.Grad, dOut)
	dxw := l.dxw.padded(n, l.Out)
	l.prop.Apply(dxw, dOut) // A_hat is symmetric
	if l.x.Sparse != nil {
		l.sparseBackward(dxw)
		return nil
	}
	if l.Mask == nil {
		mulTransAddSkip(l.Weight.GradMatrix(), l.x.Dense, dxw)
	} else {
		dweff := l.dweff.zeros(l.In, l.Out)
		mulTransAddSkip(dweff, l.x.Dense, dxw)
		maskGradRow(l.Weight.Grad, l.Mask.Grad, dweff.RawMatrix().Data, l.Weight.Value, l.Mask.Value, l.pruned)
	}
	if !needInput {
		return nil
	}
	dx := l.dx.get(n, l.In)
	var pattern *mat.Dense
	if l.GradOnlyNonzero {
		pattern = l.x.Dense
	}
	mulTransB(dx, dxw, l.src, pattern)
	return dx
}

// sparseBackward adds the weight (and mask) gradients for a sparse input,
// row by row of dL/d(W.M) (eachGradRow).
func (l *GCN) sparseBackward(dxw *mat.Dense) {
	c := l.Out
	l.eachGradRow(dxw, func(r int, row []float64) error {
		lo, hi := r*c, (r+1)*c
		if l.Mask == nil {
			axpy(l.Weight.Grad[lo:hi], 1, row)
		} else {
			maskGradRow(l.Weight.Grad[lo:hi], l.Mask.Grad[lo:hi], row, l.Weight.Value[lo:hi], l.Mask.Value[lo:hi], l.pruned)
		}
		return nil
	})
}

// eachGradRow calls f(r, d) with each row r of dL/d(W.M) = X^T dxw for a
// sparse input that some node's features select, in increasing r: row r
// is summed from the rows of dxw of the nodes that have feature r, in
// node order (vec.RowSums, termRows rows at a time, in blocks of nodes:
// terms.sumCompressed). d is overwritten after f returns. It stops at
// the first error of f and returns it.
func (l *GCN) eachGradRow(dxw *mat.Dense, f func(r int, d []float64) error) error {
	raw := dxw.RawMatrix()
	c := l.Out
	cols := l.xt.nonEmpty
	b := getTerms()
	defer putTerms(b)
	blk := l.dweff.get(min(termRows, max(1, len(cols))), c).RawMatrix()
	for q0 := 0; q0 < len(cols); q0 += termRows {
		q1 := min(q0+termRows, len(cols))
		p := l.plans.plan(&l.plans.bwd, q0/termRows, l.xt.ptr, l.xt.idx, cols[q0:q1], raw.Rows, &b.pos)
		b.sumCompressed(blk.Data, blk.Stride, c, raw.Data, raw.Stride, raw.Rows, l.xt.ptr, l.xt.idx, l.xt.val, cols[q0:q1], p)
		for q, r := range cols[q0:q1] {
			if err := f(r, blk.Data[q*blk.Stride:q*blk.Stride+c]); err != nil {
				return err
			}
		}
	}
	return nil
}

// cscMatrix is a sparse matrix stored by columns: column j holds the row
// indices idx[ptr[j]:ptr[j+1]] with values val[...]; nonEmpty lists the
// columns that have entries, in increasing order.
type cscMatrix struct {
	ptr      []int
	idx      []int
	val      []float64
	nonEmpty []int
	cur      []int // build's cursor in every row
}

// cscBlock is the number of columns whose entries build places in one
// pass over the rows of a CSR whose rows are sorted, so that their write
// positions (two cache lines a column) stay near the first-level cache
// (BenchmarkCSCBuild: 64 columns 1.21 ms, 128 0.98, 256 0.92, 384 0.92,
// all 767 at once 1.08).
const cscBlock = 256

// build sets t to the columns of x (a counting sort, O(nnz + cols)).
// When sorted (every row lists increasing columns) it places the entries
// cscBlock columns at a time, each row's entries of a block being the
// next ones after its cursor.
func (t *cscMatrix) build(x *CSR, sorted bool) {
	cols, nnz := x.Cols, len(x.Indices)
	if cap(t.ptr) < cols+1 {
		t.ptr = make([]int, cols+1)
	}
	t.ptr = t.ptr[:cols+1]
	clear(t.ptr)
	for _, j := range x.Indices {
		t.ptr[j+1]++
	}
	t.nonEmpty = t.nonEmpty[:0]
	for j := 0; j < cols; j++ {
		if t.ptr[j+1] > 0 {
			t.nonEmpty = append(t.nonEmpty, j)
		}
		t.ptr[j+1] += t.ptr[j]
	}
	if cap(t.idx) < nnz {
		t.idx = make([]int, nnz)
	}
	t.idx = t.idx[:nnz]
	t.val = grow(t.val, nnz)
	next := t.ptr[:cols] // reuse ptr as the insertion cursor, restored below
	if sorted && cols > cscBlock {
		if cap(t.cur) < x.Rows {
			t.cur = make([]int, x.Rows)
		}
		cur := t.cur[:x.Rows]
		copy(cur, x.Indptr[:x.Rows])
		for c1 := cscBlock; c1-cscBlock < cols; c1 += cscBlock {
			for i := range cur {
				k, end := cur[i], x.Indptr[i+1]
				for ; k < end && x.Indices[k] < c1; k++ {
					j := x.Indices[k]
					t.idx[next[j]] = i
					t.val[next[j]] = x.Values[k]
					next[j]++
				}
				cur[i] = k
			}
		}
	} else {
		for i := 0; i < x.Rows; i++ {
			for k := x.Indptr[i]; k < x.Indptr[i+1]; k++ {
				j := x.Indices[k]
				t.idx[next[j]] = i
				t.val[next[j]] = x.Values[k]
				next[j]++
			}
		}
	}
	// next[j] now equals the old ptr[j+1]: shift back.
	copy(t.ptr[1:], t.ptr[:cols])
	t.ptr[0] = 0
}
