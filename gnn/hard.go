package gnn

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// HardWidth is the kernel width of FedAux_hard's convolutions (padding
// HardWidth/2 keeps the sequence length), docs/method.md#ablations.
const HardWidth = 5

// Conv1D is a one-dimensional convolution along the rows of an N x In
// matrix, read as a sequence of N positions with In channels, with zero
// padding p = (Width-1)/2 that keeps the length:
//
//	Y_i = b + sum_{t=0}^{Width-1} X_{i+t-p} W_t      (X_j = 0 outside 0..N-1),
//
// which is torch.nn.Conv1d(In, Out, Width, padding=p) applied to X^T.
// W_t (In x Out) is the transpose of torch's weight[:, :, t]; the weight
// parameter stacks them tap by tap (Width*In x Out). Initialisation is
// torch's default for Conv1d: weight and bias uniform in +-1/sqrt(In*Width).
//
// The matrices Forward and Backward return belong to the layer and are
// overwritten by its next call.
type Conv1D struct {
	In, Out, Width int
	Weight, Bias   *Param

	x   *mat.Dense
	out buffer
	dx  buffer
}

// NewConv1D returns a convolution named name (parameters name.weight and
// name.bias) initialised from rng. Width must be odd.
func NewConv1D(name string, in, out, width int, rng *rand.Rand) *Conv1D {
	if width < 1 || width%2 == 0 {
		panic(fmt.Sprintf("gnn: conv1d width %d, want an odd number", width))
	}
	c := &Conv1D{In: in, Out: out, Width: width}
	c.Weight = newParam(name+".weight", width*in, out, false)
	c.Bias = newParam(name+".bias", 1, out, false)
	bound := 1 / math.Sqrt(float64(in*width))
	c.Weight.uniform(rng, bound)
	c.Bias.uniform(rng, bound)
	return c
}

// Params returns the layer's parameters: weight, bias.
func (c *Conv1D) Params() []*Param { return []*Param{c.Weight, c.Bias} }

// tap returns W_t (In x Out, a view of the Width*In x Out matrix of) and
// the output rows lo..hi-1 that tap t reaches in a sequence of length n;
// they read the input rows lo+off..hi+off-1, where off = t - p.
func (c *Conv1D) tap(t, n int, of *mat.Dense) (w *mat.Dense, lo, hi, off int) {
	off = t - (c.Width-1)/2
	w = of.Slice(t*c.In, (t+1)*c.In, 0, c.Out).(*mat.Dense)
	return w, max(0, -off), min(n, n-off), off
}

// Forward returns Y for the N x In input x, skipping x's zero entries.
func (c *Conv1D) Forward(x *mat.Dense) *mat.Dense {
	n, f := x.Dims()
	if f != c.In {
		panic(fmt.Sprintf("gnn: conv1d forward: input has %d columns, layer takes %d", f, c.In))
	}
	c.x = x
	out := c.out.get(n, c.Out)
	yr := out.RawMatrix()
	for i := 0; i < n; i++ {
		copy(yr.Data[i*yr.Stride:i*yr.Stride+c.Out], c.Bias.Value)
	}
	// Y_i += X_{i+t-p} W_t for t = 0 .. Width-1 in turn, in one pass a row.
	convAddSkip(out, x, c.Weight.Matrix(), c.Width)
	return out
}

// Backward takes dL/dY, adds the parameter gradients to their Grad fields
// and returns dL/dX (nil unless needInput):
//
//	dW_t += X_{.+t-p}^T dY,   db += column sums of dY,   dX_j = sum_t dY_{j-t+p} W_t^T.
func (c *Conv1D) Backward(dy *mat.Dense, needInput bool) *mat.Dense {
	n, _ := dy.Dims()
	addColumnSums(c.Bias.Grad, dy)
	grad := c.Weight.GradMatrix()
	for t := 0; t < c.Width; t++ {
		dw, lo, hi, off := c.tap(t, n, grad)
		if lo < hi {
			mulTransAddSkip(dw, rowRange(c.x, lo+off, hi+off), rowRange(dy, lo, hi))
		}
	}
	if !needInput {
		return nil
	}
	dx := c.dx.zeros(n, c.In)
	weight := c.Weight.Matrix()
	for t := 0; t < c.Width; t++ {
		wt, lo, hi, off := c.tap(t, n, weight)
		if lo < hi {
			// dX_{i+off} += dY_i W_t^T, one dot product an entry.
			mulTransBAdd(rowRange(dx, lo+off, hi+off), rowRange(dy, lo, hi), wt, nil)
		}
	}
	return dx
}

// rowRange returns the rows lo..hi-1 of m as a view; lo < hi.
func rowRange(m *mat.Dense, lo, hi int) *mat.Dense {
	_, c := m.Dims()
	return m.Slice(lo, hi, 0, c).(*mat.Dense)
}

// hardHead is the head of FedAux_hard, ablation (i) of the FedAux paper
// (docs/method.md#ablations): instead of the kernel aggregate of Eq. 5,
//
//	pi    = the nodes sorted by their score s (Eq. 2), ascending, ties by index
//	X_i   = s_pi(i) h_pi(i)                               (each sorted row times its score)
//	Y     = conv2(dropout(relu(conv1(X))))                 (Conv1D d -> d, width 5, padding 2)
//	C_pi(i) = Y_i                                          (un-permute)
//	logits = cls([H || C])
//
// The sort is piecewise constant in s, so gradients reach s (and through
// it H and the APV) only through the scaling by s.
type hardHead struct {
	cls          *Linear
	score        *Score
	conv1, conv2 *Conv1D
	relu         ReLU
	drop         Dropout

	h    *mat.Dense
	perm []int // perm[i] is the node at sorted position i
	xs   buffer
	cat  buffer // [H || C]
	dy   buffer
	dh   buffer
	ds   []float64
}

// newHardHead returns the hard head on d-dimensional embeddings; its two
// convolutions (hard.conv1, hard.conv2) are drawn from rng in this order.
func newHardHead(cls *Linear, score *Score, d int, dropout float64, rng *rand.Rand) *hardHead {
	return &hardHead{
		cls: cls, score: score,
		conv1: NewConv1D("hard.conv1", d, d, HardWidth, rng),
		conv2: NewConv1D("hard.conv2", d, d, HardWidth, rng),
		drop:  Dropout{P: dropout},
	}
}

// params returns the convolutions' parameters.
func (k *hardHead) params() []*Param {
	return append(k.conv1.Params(), k.conv2.Params()...)
}

// forward returns the logits for embeddings h; dropout draws from rng in
// training mode.
func (k *hardHead) forward(h *mat.Dense, train bool, rng *rand.Rand) *mat.Dense {
	n, d := h.Dims()
	k.h = h
	s := k.score.Forward(h) // Eq. 2
	k.perm = slices.Grow(k.perm[:0], n)[:n]
	for i := range k.perm {
		k.perm[i] = i
	}
	slices.SortStableFunc(k.perm, func(a, b int) int { return cmp.Compare(s[a], s[b]) })
	xs := k.xs.get(n, d)
	for i, p := range k.perm {
		row := xs.RawRowView(i)
		for j, v := range h.RawRowView(p) {
			row[j] = s[p] * v
		}
	}
	y := k.conv1.Forward(xs)
	y = k.drop.Forward(k.relu.Forward(y), train, rng)
	y = k.conv2.Forward(y)
	cat := k.cat.get(n, 2*d)
	for i, p := range k.perm {
		row := cat.RawRowView(p)
		copy(row[:d], h.RawRowView(p))
		copy(row[d:], y.RawRowView(i))
	}
	return k.cls.Forward(cat, train)
}

// backward takes dL/dlogits, accumulates the parameter gradients and
// returns dL/dH (through the classifier, the convolutions, the scaling
// by s and the scores).
func (k *hardHead) backward(g *mat.Dense) *mat.Dense {
	n, d := k.h.Dims()
	s := k.score.s
	dcat := k.cls.Backward(g, true)
	dy := k.dy.get(n, d)
	for i, p := range k.perm {
		copy(dy.RawRowView(i), dcat.RawRowView(p)[d:])
	}
	dz := k.conv2.Backward(dy, true)
	dz = k.relu.Backward(k.drop.Backward(dz))
	dxs := k.conv1.Backward(dz, true)
	dh := k.dh.get(n, d)
	k.ds = grow(k.ds, n)
	for i, p := range k.perm {
		row, hr, gx := dh.RawRowView(p), k.h.RawRowView(p), dxs.RawRowView(i)
		copy(row, dcat.RawRowView(p)[:d])
		axpy(row, s[p], gx)
		k.ds[p] = dot(gx, hr)
	}
	addTo(dh, k.score.Backward(k.ds))
	return dh
}

// release drops the head's scratch memory.
func (k *hardHead) release() {
	k.h, k.perm, k.ds = nil, nil, nil
	k.xs, k.cat, k.dy, k.dh = buffer{}, buffer{}, buffer{}, buffer{}
	k.relu = ReLU{}
	k.drop = Dropout{P: k.drop.P}
	k.conv1.release()
	k.conv2.release()
	k.score.release()
}
