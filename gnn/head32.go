package gnn

import (
	"math"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// head32 holds the float32 heads' activations: the classifier's product
// (Linear.forward32), or the kernel head's products and APV scores
// (kernelHead.forward32), in float32 as the float32 layers compute
// theirs. The kernel aggregate (the Gauss transform of the C columns of
// H W_z), the bias and the logits are float64.
type head32 struct {
	h    []float32 // H, n x d: the float32 layers' output (not owned)
	n, d int

	wcat  []float32 // d x w: the effective weight, or [W_h, W_z] row by row
	p     []float32 // H wcat, n x w
	pz    buffer    // H W_z in float64, the kernel's input
	terms terms32   // H's non-zero entries by rows; in backward, q's

	// Scores (Eq. 2) in float32, and in float64 for the kernel.
	a     []float32 // the APV
	norms []float32 // ||h_i||
	anorm float32
	imax  int     // MaxNorm: row of largest norm
	denom float32 // MaxNorm: max(max_j ||h_j||, eps)
	s32   []float32
	s     []float64

	dq    []float32 // q: dL/dlogits, [dL/dlogits, dL/d(H W_z), c] for the kernel head
	k     []float32 // the coefficient of h_i in the score's dL/dh_i
	gs    float32   // sum_i dL/ds_i s_i
	dv    []float32 // dL/dV^T = q^T H
	dweff buffer    // the classifier's dL/d(W . M) in float64
	vt    []float32 // V^T
	dh    []float32
}

// start sets the head's input and its float32 weight wcat (d x w) from
// the float64 effective weight weff (rows x c, stride c): with w = c the
// weight itself, with w = 2c its top and bottom halves side by side.
func (b *head32) start(h []float32, n, d int, weff []float64, c, w int) {
	b.h, b.n, b.d = h, n, d
	b.wcat = grow(b.wcat, d*w)
	for r := 0; r < d; r++ {
		vec.To32(b.wcat[r*w:r*w+c], weff[r*c:(r+1)*c])
		if w > c {
			vec.To32(b.wcat[r*w+c:(r+1)*w], weff[(d+r)*c:(d+r+1)*c])
		}
	}
	b.p = grow(b.p, n*w)
	b.terms.denseTerms(h, n, d, w)
	b.terms.sum(b.p, w, b.wcat)
}

// logits returns float64(p[:, :c]) + y + bias in out (n x c); y may be nil.
func (b *head32) logits(out *buffer, c, w int, y *mat.Dense, bias []float64) *mat.Dense {
	logits := out.get(b.n, c)
	denseFromF32(logits, b.p, w)
	if y != nil {
		addTo(logits, y)
	}
	addRowVector(logits, bias)
	return logits
}

// setQ rounds the float64 n x c matrix g into columns off .. off+c-1 of
// q (n x w).
func (b *head32) setQ(g *mat.Dense, off, c, w int) {
	b.dq = grow(b.dq, b.n*w)
	gr := g.RawMatrix()
	for i := 0; i < b.n; i++ {
		vec.To32(b.dq[i*w+off:i*w+off+c], gr.Data[i*gr.Stride:i*gr.Stride+c])
	}
}

// backProducts sets b.dv to q^T H (w x d) and b.dh to q V^T (n x d),
// where V^T is wcat's transpose (cw of its columns, wcat being d x cw)
// followed by the rows extra. Both sum rows of a row-major matrix
// (vec.RowSums32): q^T H by the columns of q, q V^T by its rows.
func (b *head32) backProducts(w, cw int, extra []float32) {
	n, d := b.n, b.d
	b.dv = grow(b.dv, w*d)
	b.terms.denseColumnTerms(b.dq, n, w, d)
	b.terms.sum(b.dv, d, b.h)
	b.vt = grow(b.vt, w*d)
	for r := 0; r < d; r++ {
		for j, v := range b.wcat[r*cw : (r+1)*cw] {
			b.vt[j*d+r] = v
		}
	}
	copy(b.vt[cw*d:], extra)
	b.dh = grow(b.dh, n*d)
	b.terms.denseTerms(b.dq, n, w, d)
	b.terms.sum(b.dh, d, b.vt)
}

// forward32 is Forward on the float32 layers' output h (n x d): the
// product in float32, the bias and the logits in float64.
func (l *Linear) forward32(b *head32, h []float32, n, d int, train bool) *mat.Dense {
	c := l.Out
	b.start(h, n, d, l.effective(train).RawMatrix().Data, c, c)
	return b.logits(&l.out, c, c, nil, l.Bias.Value)
}

// backward32 is Backward for forward32: it takes dL/dlogits, accumulates
// the parameter gradients and returns dL/dH in float32: with q =
// dL/dlogits, dL/dW = H^T q and dL/dH = q W^T.
func (l *Linear) backward32(b *head32, g *mat.Dense) []float32 {
	c := l.Out
	addColumnSums(l.Bias.Grad, g)
	b.setQ(g, 0, c, c)
	b.backProducts(c, c, nil)
	l.addWeightGrad(b.weightGrad(c, 1))
	return b.dh
}

// weightGrad returns the classifier's dL/d(W . M) in float64 (parts*d x
// c) from the first parts*c rows of dL/dV^T: with parts = 2 the kernel
// head's, whose rows c .. 2c-1 are those of W_z.
func (b *head32) weightGrad(c, parts int) *mat.Dense {
	d := b.d
	dweff := b.dweff.get(parts*d, c)
	dw := dweff.RawMatrix().Data
	for part := 0; part < parts; part++ {
		for j := 0; j < c; j++ {
			for r, v := range b.dv[(part*c+j)*d : (part*c+j+1)*d] {
				dw[(part*d+r)*c+j] = float64(v)
			}
		}
	}
	return dweff
}

// forward32 is forward on the float32 layers' output h (n x d): the
// products H wcat and the scores in float32, the aggregate of H W_z in
// float64 (Eq. 2, 5). It returns the logits in float64.
func (k *kernelHead) forward32(b *head32, h []float32, n, d int, train bool) (*mat.Dense, error) {
	c := k.cls.Out
	c2 := 2 * c
	b.start(h, n, d, k.cls.effective(train).RawMatrix().Data, c, c2)
	s := b.scores(k.score)
	pz := b.pz.get(n, c)
	denseFromF32(pz, b.p[c:], c2)
	yz, err := k.agg.Forward(pz, s) // Eq. 5, projected
	if err != nil {
		return nil, err
	}
	return b.logits(&k.logits, c, c2, yz, k.cls.Bias.Value), nil
}

// backward32 is backward for forward32: it takes dL/dlogits, accumulates
// the head's parameter gradients and returns dL/dH in float32, exact
// where H is non-zero (as backward with onlyNonzero).
//
// With q = [dL/dlogits, dL/d(H W_z), c] (n x 2C+1), where c_i is the
// coefficient of a in the score's dL/dh_i (Score.Backward), and
// V = [W_h, W_z, a] (d x 2C+1):
//
//	dL/dV = H^T q, dL/dH = q V^T + k_i h_i,
//
// the last column of dL/dV being the score's share of dL/da and k_i the
// coefficient of h_i in its dL/dh_i.
func (k *kernelHead) backward32(b *head32, g *mat.Dense) []float32 {
	d, c := b.d, k.cls.Out
	c2, w := 2*c, 2*c+1
	addColumnSums(k.cls.Bias.Grad, g)
	dpz, ds := k.agg.Backward(g)
	b.setQ(g, 0, c, w)
	b.setQ(dpz, c, c, w)
	b.scoreCoefs(k.score, ds) // column 2C of q, and b.k
	b.backProducts(w, c2, b.a)
	k.cls.addWeightGrad(b.weightGrad(c, 2))
	ga := b.dv[c2*d : w*d]
	if k.score.Kind == Cosine && b.anorm > eps32 {
		vec.AddScaled32(ga, -b.gs/(b.anorm*b.anorm), b.a)
	}
	vec.AddFrom32(k.score.APV.Grad, ga)
	for i, ki := range b.k {
		if ki != 0 {
			vec.AddScaled32(b.dh[i*d:(i+1)*d], ki, b.h[i*d:(i+1)*d])
		}
	}
	return b.dh
}

// eps32 guards the norms in the float32 score denominators, as normEps
// does in float64.
const eps32 = float32(normEps)

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// scores sets the float32 scores of the rows of b.h on sc's APV (Eq. 2,
// as Score.Forward) and returns them in float64.
func (b *head32) scores(sc *Score) []float64 {
	n, d := b.n, b.d
	b.a = grow(b.a, d)
	vec.To32(b.a, sc.APV.Value)
	b.norms = grow(b.norms, n)
	b.s32 = grow(b.s32, n)
	b.anorm = sqrt32(vec.Dot32(b.a, b.a))
	b.imax, b.denom = scoreRows(sc.Kind, b.h, d, n, d, b.a, b.anorm, b.norms, b.s32, vec.Dot32, sqrt32, eps32)
	b.s = grow(b.s, n)
	vec.From32(b.s, b.s32)
	return b.s
}

// scoreCoefs takes dL/ds and sets what backward32 needs of the score's
// gradient (Score.Backward): column 2C of b.dq to the coefficient of a in
// each dL/dh_i, b.k to that of h_i, and b.gs to sum_i g_i s_i.
func (b *head32) scoreCoefs(sc *Score, ds []float64) {
	n := b.n
	w := len(b.dq) / n
	col := b.dq[w-1:]
	b.k = grow(b.k, n)
	clear(b.k)
	b.gs = 0
	switch sc.Kind {
	case Cosine:
		// ds_i/dh_i = a/(|h_i| |a|) - s_i h_i/|h_i|^2,
		// ds_i/da   = h_i/(|h_i| |a|) - s_i a/|a|^2.
		na := max(b.anorm, eps32)
		for i := 0; i < n; i++ {
			g := float32(ds[i])
			col[i*w] = g / (max(b.norms[i], eps32) * na)
			if b.norms[i] > eps32 {
				b.k[i] = -g * b.s32[i] / (b.norms[i] * b.norms[i])
			}
			b.gs += g * b.s32[i]
		}
	case MaxNorm:
		// ds_i/dh_i = a/m, ds_i/da = h_i/m, and through m = |h_imax|,
		// dL/dh_imax gets -(sum_i g_i s_i)/m^2 h_imax.
		inv := 1 / b.denom
		for i := 0; i < n; i++ {
			g := float32(ds[i])
			col[i*w] = g * inv
			b.gs += g * b.s32[i]
		}
		if b.norms[b.imax] > eps32 {
			b.k[b.imax] = -b.gs * inv * inv
		}
	}
}
