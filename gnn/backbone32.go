package gnn

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// Precision is the arithmetic of a model's GCN layers.
type Precision int

const (
	// F64 computes everything in float64 (the default).
	F64 Precision = iota
	// F32 computes the GCN layers (their products, ReLU and dropout,
	// forward and backward), their Adam steps (vec.AdamF32, float32
	// moments) and the head's products (the classifier's, and the kernel
	// head's H [W_h, W_z] and APV scores, forward and backward) in
	// float32, the arithmetic of PyTorch and of the paper's code. The
	// parameters and gradients are stored in float64 (the layers'
	// parameters hold float32 values after a step), so that the rest of
	// a run reads them as in float64; the kernel aggregate (the Gauss
	// transform of the C columns of H W_z, Eq. 5), the head's Adam steps,
	// the hard head (Hard) and the loss stay in float64. A float32 step is
	// deterministic, as a float64 one is. The float32 layers keep float32
	// forms of the input's propagator and features, recognised by
	// pointer: an Input's matrices must not be changed in place between
	// forward passes.
	F32
)

// String returns "f64" or "f32".
func (p Precision) String() string {
	switch p {
	case F64:
		return "f64"
	case F32:
		return "f32"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// ParsePrecision reads "f64" or "f32".
func ParsePrecision(s string) (Precision, error) {
	switch s {
	case "f64":
		return F64, nil
	case "f32":
		return F32, nil
	}
	return F64, fmt.Errorf("gnn: precision %q, want f64 or f32", s)
}

// MarshalText spells p as String does.
func (p Precision) MarshalText() ([]byte, error) {
	if p != F64 && p != F32 {
		return nil, fmt.Errorf("gnn: invalid precision %d", int(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads p as ParsePrecision does.
func (p *Precision) UnmarshalText(b []byte) error {
	v, err := ParsePrecision(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// backbone32 is the float32 version of a model's GCN layers (Config.Precision
// F32). It computes what Model's layers compute, with the layers'
// parameters, and keeps its own float32 buffers.
type backbone32 struct {
	act32

	// Caches of the last input, rebuilt when it changes.
	prop      *Propagator
	propTerms terms32 // A_hat by rows, on matrices with rows pad32(Hidden) apart
	xs        *CSR
	xd        *mat.Dense
	x32       []float32 // dense features in float32
	xRows     blocked32 // sparse features by rows, on the first weight (rows pad32(Hidden) apart)
	xCols     blocked32 // sparse features by columns, on dL/d(X W) (rows pad32(Hidden) apart)

	train bool // the last forward's mode
}

// act32 is backbone32's activation memory, which a Scratch lends.
type act32 struct {
	layers []layer32
	n      int    // the last forward's nodes
	h64    buffer // the embeddings H in float64
	dh32   []float32
	head   head32 // the float32 head's (Model.head32)
}

// layer32 holds one float32 layer's buffers.
type layer32 struct {
	weff    []float32 // W . M (pruned in evaluation), In x Out, rows pad32(Out) apart
	x       []float32 // the dense input (nil for sparse features)
	relu    []float32 // relu(A_hat X W + b)
	out     []float32 // the next layer's input: dropped, or relu itself
	dropped []float32 // dropout(relu)
	scale   []float32 // dropout's 0 or 1/(1-P)
	drop    bool      // dropout was active in the last forward
	terms   terms32
	d       []float32 // gradient at the layer's output before the ReLU, rows pad32(Out) apart
	dxw     []float32 // X W in forward, A_hat d in backward, rows pad32(Out) apart
	dweff   []float32
	// ahead: weff holds the pruned W . M of the rows the input selects,
	// formed by StepEvaluate's step for the forward it runs next.
	ahead   bool
	dx      []float32
	drow    []float64
	bias    []float32 // the bias in float32
	trans   transB32
	pattern bool // the input gradient only where the input is non-zero
}

// useInput caches the float32 forms of in's propagator and features, as
// terms on matrices with rows stride entries apart.
func (b *backbone32) useInput(in Input, stride int) {
	if in.Prop != b.prop {
		b.prop = in.Prop
		b.propTerms.csrTerms(&in.Prop.a, stride)
	}
	if in.X.Sparse != nil && in.X.Sparse != b.xs {
		b.xs, b.xd, b.x32 = in.X.Sparse, nil, nil
		x := in.X.Sparse
		b.xRows.build(x.Rows, x.Cols, x.Indptr, x.Indices, x.Values, stride)
		var t cscMatrix
		t.build(x, increasing(x.Indptr, x.Indices, x.Rows))
		b.xCols.build(x.Cols, x.Rows, t.ptr, t.idx, t.val, stride)
	}
	if in.X.Dense != nil && in.X.Dense != b.xd {
		b.xs, b.xd = nil, in.X.Dense
		b.x32 = denseToF32(b.x32, in.X.Dense)
	}
}

// sameSparse reports whether in's features are the sparse features of
// the last forward (useInput's), whose first layer reads only the rows of
// W . M that they select.
func (b *backbone32) sameSparse(in Input) bool {
	return in.Expand == nil && in.X.Sparse != nil && in.X.Sparse == b.xs
}

// forward runs m's GCN layers in float32 on in and returns H (n x d).
func (b *backbone32) forward(m *Model, in Input, train bool, rng *rand.Rand) ([]float32, error) {
	if in.Expand != nil {
		return nil, errors.New("gnn: float32 layers do not support FedGNN's expansion; use precision f64")
	}
	n, _ := in.X.Dims()
	d := m.cfg.Hidden
	if len(b.layers) != len(m.layers) {
		b.layers = make([]layer32, len(m.layers))
	}
	ws := pad32(d)
	b.useInput(in, ws)
	b.train = train
	var x []float32 // nil: the sparse or dense features
	for i := range m.layers {
		l, ll := &b.layers[i], m.layers[i].conv
		l.pattern = i > 0
		var selected []int           // the sparse features' rows of W: only those are read
		if x == nil && b.xs != nil { // the first layer
			selected = b.xCols.count
		}
		l.effective(ll, !train, selected)
		xw := grow(l.dxw, n*ws) // X W, overwritten by backward's A_hat d
		l.dxw = xw
		switch {
		case x != nil:
			l.x = x
			l.terms.denseTerms(x, n, ll.In, ws)
			l.terms.sumStride(xw, ws, d, l.weff)
		case b.xs != nil:
			l.x = nil
			b.xRows.sum(xw, ws, d, l.weff)
		default:
			l.x = b.x32
			l.terms.denseTerms(b.x32, n, ll.In, ws)
			l.terms.sumStride(xw, ws, d, l.weff)
		}
		l.relu = grow(l.relu, n*d)
		b.propTerms.sum(l.relu, d, xw)
		l.bias = grow(l.bias, d)
		vec.To32(l.bias, ll.Bias.Value)
		for r := 0; r < n; r++ {
			vec.BiasReLU32(l.relu[r*d:(r+1)*d], l.bias) // max(v + b, 0)
		}
		drop := &m.layers[i].drop
		if train && drop.P > 0 {
			l.drop = true
			l.scale = grow(l.scale, n*d)
			drawScale(l.scale, drop.P, rng)
			l.dropped = grow(l.dropped, n*d)
			vec.Mul32(l.dropped, l.relu, l.scale)
			l.out = l.dropped
		} else {
			l.drop = false
			l.out = l.relu
		}
		x = l.out
	}
	b.n = n
	return x, nil
}

// embeddings returns H of the last forward in float64.
func (b *backbone32) embeddings(d int) *mat.Dense {
	h := b.h64.get(b.n, d)
	denseFromF32(h, b.layers[len(b.layers)-1].out, d)
	return h
}

// effective sets l.weff (rows pad32(Out) apart) to the float32 rounding
// of the float64 W . M (pruned when pruned is set), or of W for a plain
// layer. With counts (one per row of W) it sets only the rows whose
// count is not zero, in runs of consecutive rows: the rows a sparse
// input selects (about 73% of Cora's 1433 for a client, 56% of
// CiteSeer's 3703). The others are stale and must not be read. When
// StepEvaluate's step has formed the pruned rows (ahead), it leaves them.
func (l *layer32) effective(g *GCN, pruned bool, counts []int) {
	c, ws := g.Out, pad32(g.Out)
	l.weff = grow(l.weff, g.In*ws)
	if l.ahead && pruned {
		return
	}
	// set sets rows r0 .. r1-1, in one call when their rows are contiguous.
	set := func(r0, r1 int) {
		if ws != c {
			for r := r0; r < r1; r++ {
				setRow(l.weff[r*ws:r*ws+c], g, r*c, pruned)
			}
			return
		}
		setRow(l.weff[r0*c:r1*c], g, r0*c, pruned)
	}
	if counts == nil {
		set(0, g.In)
		return
	}
	for r := 0; r < len(counts); {
		if counts[r] == 0 {
			r++
			continue
		}
		r0 := r
		for r < len(counts) && counts[r] != 0 {
			r++
		}
		set(r0, r)
	}
}

// setRow sets dst to the float32 rounding of g's W . M (pruned when
// pruned is set), or of W for a plain layer, from entry lo of W on.
func setRow(dst []float32, g *GCN, lo int, pruned bool) {
	hi := lo + len(dst)
	w := g.Weight.Value[lo:hi]
	switch {
	case g.Mask == nil:
		vec.To32(dst, w)
	case pruned:
		vec.MulPrunedTo32(dst, w, g.Mask.Value[lo:hi], MaskThreshold)
	default:
		vec.MulTo32(dst, w, g.Mask.Value[lo:hi])
	}
}

// backward takes dL/dH of the last forward and adds the gradients of the
// layers' parameters to their Grad. With skipFirst it
// leaves out the first layer's weight and mask gradients (its bias
// gradient is added) and returns its dL/d(W . M) and the counts of terms
// of its rows (a row without any is not computed: its gradient is zero).
func (b *backbone32) backward(m *Model, g []float32, skipFirst bool) (dweff []float32, count []int) {
	n, d := b.n, m.cfg.Hidden
	ws := pad32(d)
	for i := len(m.layers) - 1; i >= 0; i-- {
		l, ll := &b.layers[i], m.layers[i].conv
		l.d = grow(l.d, n*ws)
		var scale []float32
		if l.drop {
			scale = l.scale[:n*d]
		}
		for r := 0; r < n; r++ {
			lo, hi := r*d, (r+1)*d
			var sr []float32
			if scale != nil {
				sr = scale[lo:hi]
			}
			dr := l.d[r*ws : r*ws+d]
			vec.ReLUBack32(dr, g[lo:hi], l.relu[lo:hi], sr)
			vec.AddFrom32(ll.Bias.Grad, dr) // column sums, row after row
		}
		b.propTerms.sumStride(l.dxw, ws, d, l.d) // A_hat is symmetric
		l.dweff = grow(l.dweff, ll.In*d)
		if l.x != nil {
			l.terms.denseColumnTerms(l.x, n, ll.In, ws)
			l.terms.sum(l.dweff, d, l.dxw)
			count = l.terms.n
		} else {
			b.xCols.sum(l.dweff, d, d, l.dxw)
			count = b.xCols.count
		}
		if i == 0 && skipFirst {
			return l.dweff, count
		}
		l.addGrads(ll, count, !b.train)
		if i == 0 {
			break
		}
		l.dx = grow(l.dx, n*ll.In)
		var pattern []float32
		if l.pattern {
			pattern = l.x
		}
		l.trans.mulTransB32(l.dx, l.dxw, l.weff, n, d, ll.In, ws, pattern)
		g = l.dx
	}
	return nil, nil
}

// addGrads adds the float32 dL/d(W . M) in l.dweff to the weight and
// mask gradients of g, skipping the rows with no term (zero rows).
func (l *layer32) addGrads(g *GCN, count []int, pruned bool) {
	c := g.Out
	for r, k := range count {
		if k == 0 {
			continue
		}
		lo, hi := r*c, (r+1)*c
		d := l.dweff[lo:hi]
		switch {
		case g.Mask == nil:
			vec.AddFrom32(g.Weight.Grad[lo:hi], d)
		case pruned:
			l.drow = grow(l.drow, c)
			for j, v := range d {
				l.drow[j] = float64(v)
			}
			maskGradRow(g.Weight.Grad[lo:hi], g.Mask.Grad[lo:hi], l.drow, g.Weight.Value[lo:hi], g.Mask.Value[lo:hi], true)
		default:
			vec.MaskGradFrom32(g.Weight.Grad[lo:hi], g.Mask.Grad[lo:hi], d, g.Weight.Value[lo:hi], g.Mask.Value[lo:hi])
		}
	}
}

// release drops the activations and keeps the caches of the input.
func (b *backbone32) release() {
	b.act32 = act32{}
}
