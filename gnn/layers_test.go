package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// perturbMask puts a few mask entries below MaskThreshold (pruned in
// evaluation mode) and shifts the others away from 1, so that the mask
// matters in the check.
func perturbMask(rng *rand.Rand, p *Param) {
	for i := range p.Value {
		switch {
		case i%7 == 3:
			p.Value[i] = 1e-4 * (rng.Float64() - 0.5) // pruned at evaluation
		default:
			p.Value[i] = 0.5 + rng.Float64()
		}
	}
}

func TestGCNGradients(t *testing.T) {
	const n, fin, fout = 12, 7, 5
	for _, sparse := range []bool{true, false} {
		for _, masked := range []bool{true, false} {
			for _, train := range []bool{true, false} {
				name := fmt.Sprintf("sparse=%v/masked=%v/train=%v", sparse, masked, train)
				t.Run(name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(1, 2))
					prop, err := NewPropagator(randGraph(rng, n, 0.25))
					if err != nil {
						t.Fatal(err)
					}
					var x Features
					if sparse {
						x.Sparse = randSparse(rng, n, fin, 3)
					} else {
						x.Dense = randDense(rng, n, fin, 0.7)
					}
					l := NewGCN("conv", fin, fout, masked, rng)
					if masked {
						perturbMask(rng, l.Mask)
					}
					for i := range l.Bias.Value {
						l.Bias.Value[i] = rng.NormFloat64()
					}
					r := randDense(rng, n, fout, 1)
					loss := func() float64 { return weightedSum(r, l.Forward(prop, x, train)) }
					loss()
					dx := l.Backward(r, true)
					if sparse != (dx == nil) {
						t.Fatalf("input gradient %v for a sparse=%v input", dx, sparse)
					}
					for _, p := range l.Params() {
						checkGrad(t, p.Name, p.Grad, numGrad(loss, p.Value))
					}
					if !sparse {
						checkGrad(t, "input", copyData(dx), numGrad(loss, rawData(x.Dense)))
					}
				})
			}
		}
	}
}

func TestGCNGradOnlyNonzero(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, fin, fout = 10, 6, 4
	prop, _ := NewPropagator(randGraph(rng, n, 0.3))
	x := randDense(rng, n, fin, 0.5)
	l := NewGCN("conv", fin, fout, true, rng)
	r := randDense(rng, n, fout, 1)
	l.Forward(prop, Features{Dense: x}, true)
	full := mat.DenseCopyOf(l.Backward(r, true))
	l.GradOnlyNonzero = true
	l.Forward(prop, Features{Dense: x}, true)
	part := l.Backward(r, true)
	for i := 0; i < n; i++ {
		for j := 0; j < fin; j++ {
			want := full.At(i, j)
			if x.At(i, j) == 0 {
				want = 0
			}
			if got := part.At(i, j); got != want {
				t.Fatalf("dX[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

func TestGCNForwardMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, fin, fout = 9, 8, 3
	adj := randGraph(rng, n, 0.3)
	prop, _ := NewPropagator(adj)
	xs := randSparse(rng, n, fin, 2)
	l := NewGCN("conv", fin, fout, true, rng)
	perturbMask(rng, l.Mask)
	for i := range l.Bias.Value {
		l.Bias.Value[i] = float64(i)
	}
	for _, train := range []bool{true, false} {
		var weff mat.Dense
		weff.MulElem(l.Weight.Matrix(), l.Mask.Matrix())
		if !train {
			for i := range fin {
				for j := range fout {
					if math.Abs(l.Mask.Matrix().At(i, j)) < MaskThreshold {
						weff.Set(i, j, 0)
					}
				}
			}
		}
		var want mat.Dense
		want.Mul(xs.Dense(), &weff)
		want.Mul(prop.Matrix().Dense(), &want)
		for i := range n {
			for j := range fout {
				want.Set(i, j, want.At(i, j)+l.Bias.Value[j])
			}
		}
		for _, x := range []Features{{Sparse: xs}, {Dense: xs.Dense()}} {
			if d := maxAbsDiff(l.Forward(prop, x, train), &want); d > 1e-12 {
				t.Errorf("train=%v sparse=%v: forward differs from the dense formula by %g", train, x.Sparse != nil, d)
			}
		}
	}
}

// TestGCNSparseForwardFormsSelectedRows: with a sparse input a masked
// layer forms the rows of W . M that the features select, and its
// products read no other: with every entry of the effective weight's
// buffer made NaN in between, a second forward gives the same output.
func TestGCNSparseForwardFormsSelectedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, fin, fout = 20, 3*termRows + 9, 64
	prop, _ := NewPropagator(randGraph(rng, n, 0.3))
	xs := randSparse(rng, n, fin/2, 5) // features fin/2 .. fin-1 are never selected
	xs.Cols = fin
	l := NewGCN("conv", fin, fout, true, rng)
	perturbMask(rng, l.Mask)
	for _, train := range []bool{true, false} {
		want := mat.DenseCopyOf(l.Forward(prop, Features{Sparse: xs}, train))
		for i := range l.weff.data {
			l.weff.data[i] = math.NaN()
		}
		got := l.Forward(prop, Features{Sparse: xs}, train)
		if !mat.Equal(got, want) {
			t.Errorf("train=%v: the rows no feature selects changed the output", train)
		}
		if len(l.xt.nonEmpty) == 0 || l.xt.nonEmpty[len(l.xt.nonEmpty)-1] >= fin/2 {
			t.Fatalf("train=%v: selected rows %v reach beyond %d", train, l.xt.nonEmpty, fin/2)
		}
	}
}

func TestReLUGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := randDense(rng, 12, 5, 1)
	r := randDense(rng, 12, 5, 1)
	var l ReLU
	loss := func() float64 { return weightedSum(r, l.Forward(x)) }
	loss()
	checkGrad(t, "input", copyData(l.Backward(r)), numGrad(loss, rawData(x)))
}

// TestReLUBackwardBits checks the backward pass's bits on special
// values: dOut where the output is positive (NaN, infinities and -0
// included), +0 where it is not (NaN, -0 and negative outputs).
func TestReLUBackwardBits(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	x := mat.NewDense(1, 8, []float64{1, 2, 3, 4, -1, 0, math.Copysign(0, -1), nan})
	g := mat.NewDense(1, 8, []float64{nan, -inf, math.Copysign(0, -1), -2.5, 7, nan, -3, inf})
	var l ReLU
	l.Forward(x)
	got := l.Backward(g).RawRowView(0)
	for j, v := range got {
		want := 0.0
		if x.At(0, j) > 0 {
			want = g.At(0, j)
		}
		if math.Float64bits(v) != math.Float64bits(want) {
			t.Errorf("entry %d: %v (bits %x), want %v (bits %x)", j, v, math.Float64bits(v), want, math.Float64bits(want))
		}
	}
}

func TestDropout(t *testing.T) {
	const n, c = 200, 50
	// 0.5 and 0.25 use 1- and 2-bit chunks of each draw, 0.3 whole draws.
	for _, p := range []float64{0.5, 0.25, 0.3} {
		rng := rand.New(rand.NewPCG(13, 14))
		x := randDense(rng, n, c, 1)
		d := Dropout{P: p}
		if got := d.Forward(x, false, nil); got != x {
			t.Fatal("evaluation-mode dropout is not the identity")
		}
		out := d.Forward(x, true, rng)
		dropped := 0
		for i := range n {
			for j := range c {
				switch v, xv := out.At(i, j), x.At(i, j); {
				case v == 0:
					dropped++
				case math.Abs(v-xv/(1-p)) <= 1e-15*math.Abs(v):
				default:
					t.Fatalf("p %v: entry %v of input %v: neither 0 nor x/(1-p)", p, v, xv)
				}
			}
		}
		if frac := float64(dropped) / (n * c); math.Abs(frac-p) > 0.02 {
			t.Errorf("p %v: dropped fraction %v", p, frac)
		}
		// Gradient, with the mask fixed by reseeding the stream.
		xs := randDense(rng, 12, 5, 1)
		r := randDense(rng, 12, 5, 1)
		loss := func() float64 { return weightedSum(r, d.Forward(xs, true, rand.New(rand.NewPCG(1, 1)))) }
		loss()
		checkGrad(t, fmt.Sprint("input p=", p), copyData(d.Backward(r)), numGrad(loss, rawData(xs)))
	}
}

func TestCrossEntropy(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n, c = 12, 4
	logits := randDense(rng, n, c, 1)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(c)
	}
	idx := []int{0, 2, 3, 7, 11}
	// Value against a direct computation.
	var want float64
	for _, i := range idx {
		var z float64
		for j := range c {
			z += math.Exp(logits.At(i, j))
		}
		want -= math.Log(math.Exp(logits.At(i, labels[i])) / z)
	}
	want /= float64(len(idx))
	grad := mat.NewDense(n, c, nil)
	grad.Set(1, 1, 42) // must be cleared
	if got := SoftmaxCrossEntropy(logits, labels, idx, grad); math.Abs(got-want) > 1e-12 {
		t.Errorf("loss %v, want %v", got, want)
	}
	loss := func() float64 { return SoftmaxCrossEntropy(logits, labels, idx, nil) }
	checkGrad(t, "logits", copyData(grad), numGrad(loss, rawData(logits)))
	if got := SoftmaxCrossEntropy(logits, labels, nil, grad); got != 0 || mat.Sum(grad) != 0 {
		t.Errorf("empty index set: loss %v, gradient sum %v", got, mat.Sum(grad))
	}
	// Large logits stay finite.
	big := mat.NewDense(1, 2, []float64{1000, -1000})
	if got := SoftmaxCrossEntropy(big, []int{1}, []int{0}, nil); math.Abs(got-2000) > 1e-9 {
		t.Errorf("loss of large logits %v, want 2000", got)
	}
	if got := Accuracy(mat.NewDense(3, 2, []float64{1, 0, 0, 1, 2, 1}), []int{0, 0, 0}, []int{0, 1, 2}); got != 2.0/3 {
		t.Errorf("accuracy %v, want 2/3", got)
	}
}

// TestGCNSparsePathsAgree checks that the three ways a GCN layer takes
// its input give the same bits, forward and backward, in training and in
// evaluation mode: a sparse input whose rows list increasing columns
// (summed by rows, vec.RowSums), the same matrix with each row's entries
// reversed (walked by columns), and the dense matrix (mulSkip). Each sums
// every element in column order, each product and sum rounded. The
// sizes span several blocks of termRows rows and columns.
func TestGCNSparsePathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, fin, fout = 3*termRows + 17, 2*termRows + 40, 37
	prop, err := NewPropagator(randGraph(rng, n, 0.02))
	if err != nil {
		t.Fatal(err)
	}
	xs := randSparse(rng, n, fin, 9)
	rev := &CSR{Rows: xs.Rows, Cols: xs.Cols, Indptr: xs.Indptr, Indices: slices.Clone(xs.Indices), Values: slices.Clone(xs.Values)}
	for i := 0; i < n; i++ {
		slices.Reverse(rev.Indices[rev.Indptr[i]:rev.Indptr[i+1]])
		slices.Reverse(rev.Values[rev.Indptr[i]:rev.Indptr[i+1]])
	}
	r := randDense(rng, n, fout, 1)
	for _, masked := range []bool{false, true} {
		for _, train := range []bool{true, false} {
			var out [3]*mat.Dense
			var grads [3][][]float64
			for k, x := range []Features{{Sparse: xs}, {Sparse: rev}, {Dense: xs.Dense()}} {
				l := NewGCN("conv", fin, fout, masked, rand.New(rand.NewPCG(11, 12)))
				if masked {
					perturbMask(rand.New(rand.NewPCG(13, 14)), l.Mask)
				}
				for step := 0; step < 2; step++ { // the second reuses the layer's caches
					for _, p := range l.Params() {
						clear(p.Grad)
					}
					out[k] = mat.DenseCopyOf(l.Forward(prop, x, train))
					l.Backward(r, false)
				}
				if k == 1 && l.plans.sorted {
					t.Fatal("the reversed rows were taken for sorted ones")
				}
				grads[k] = nil
				for _, p := range l.Params() {
					grads[k] = append(grads[k], slices.Clone(p.Grad))
				}
			}
			for k, name := range []string{"reversed rows", "dense"} {
				if !mat.Equal(out[0], out[k+1]) {
					t.Errorf("masked=%v train=%v: forward of the %s differs from the sorted sparse input's", masked, train, name)
				}
				for i := range grads[0] {
					if !slices.Equal(grads[0][i], grads[k+1][i]) {
						t.Errorf("masked=%v train=%v: gradient %d of the %s differs from the sorted sparse input's", masked, train, i, name)
					}
				}
			}
		}
	}
}

// TestPaddedBuffer checks the padded buffers of the products' sources:
// rows one cache line further apart than their 512-byte multiple, others
// unpadded, the matrix reused while its shape holds, and paddedZeros
// clearing every element it shows.
func TestPaddedBuffer(t *testing.T) {
	for _, c := range []int{7, 63, 64, 256, 300} {
		var b buffer
		m := b.padded(5, c)
		r, cc := m.Dims()
		want := c
		if c%64 == 0 {
			want = c + 8
		}
		if s := m.RawMatrix().Stride; r != 5 || cc != c || s != want {
			t.Fatalf("padded(5, %d): %dx%d at stride %d, want 5x%d at stride %d", c, r, cc, s, c, want)
		}
		if b.padded(5, c) != m {
			t.Fatalf("padded(5, %d) made a new matrix for the same shape", c)
		}
		for i := range b.data {
			b.data[i] = 1
		}
		if g := b.get(5, c); g.RawMatrix().Stride != c {
			t.Fatalf("get(5, %d) after padded: stride %d, want %d", c, g.RawMatrix().Stride, c)
		}
		z := b.paddedZeros(5, c)
		for i := range 5 {
			for j := range c {
				if z.At(i, j) != 0 {
					t.Fatalf("paddedZeros(5, %d): (%d, %d) = %v", c, i, j, z.At(i, j))
				}
			}
		}
	}
}

// TestDrawScale32: the float32 layers' dropout scale is the float32
// rounding of Dropout's float64 one from the same stream, draw for draw,
// at dropout rates that take a bit, a few bits or a whole word a draw.
func TestDrawScale32(t *testing.T) {
	for _, p := range []float64{0, 0.5, 0.25, 0.3, 0.1, 0.9, 1} {
		const n = 1000
		var d Dropout
		d.P = p
		d.draw(n, rand.New(rand.NewPCG(7, 8)))
		s32 := make([]float32, n)
		drawScale(s32, p, rand.New(rand.NewPCG(7, 8)))
		kept := 0
		for i, v := range d.scale {
			if s32[i] != float32(v) {
				t.Fatalf("p %v: entry %d is %v, want %v", p, i, s32[i], float32(v))
			}
			if v != 0 {
				kept++
			}
		}
		if p > 0 && p < 1 && (kept == 0 || kept == n) {
			t.Errorf("p %v: %d of %d kept", p, kept, n)
		}
	}
}

// drawScaleRef is drawScale's rule element by element: draw i keeps when
// its bits of the words drawn in turn are at least p's threshold.
func drawScaleRef(scale []float64, p float64, rng *rand.Rand) {
	keep := 0.0
	if p < 1 {
		keep = 1 / (1 - p)
	}
	bits := 64
	for b := 1; b < 64; b *= 2 {
		if v := math.Ldexp(p, b); v == math.Trunc(v) {
			bits = b
			break
		}
	}
	var word uint64
	left := 0
	for i := range scale {
		var kept bool
		if bits == 64 {
			thresh := uint64(math.MaxUint64)
			if p < 1 {
				thresh = uint64(math.Ldexp(p, 64))
			}
			kept = rng.Uint64() >= thresh
		} else {
			if left == 0 {
				word, left = rng.Uint64(), 64
			}
			kept = word&(1<<bits-1) >= uint64(math.Ldexp(p, bits))
			word >>= bits
			left -= bits
		}
		scale[i] = 0
		if kept {
			scale[i] = keep
		}
	}
}

// TestDrawScaleRule: drawScale, in both precisions, gives the scale of
// its rule applied draw by draw and leaves the stream where the rule
// does, at every length around a word's 64 draws.
func TestDrawScaleRule(t *testing.T) {
	for _, p := range []float64{0, 0.5, 1, 0.25, 0.3} {
		for _, n := range []int{0, 1, 3, 4, 5, 63, 64, 65, 127, 128, 129, 1000} {
			want := make([]float64, n)
			ref := rand.New(rand.NewPCG(3, uint64(n)))
			drawScaleRef(want, p, ref)
			got := make([]float64, n)
			rng := rand.New(rand.NewPCG(3, uint64(n)))
			drawScale(got, p, rng)
			got32 := make([]float32, n)
			rng32 := rand.New(rand.NewPCG(3, uint64(n)))
			drawScale(got32, p, rng32)
			for i := range want {
				if got[i] != want[i] || got32[i] != float32(want[i]) {
					t.Fatalf("p %v, n %d: entry %d is %v (float32 %v), want %v", p, n, i, got[i], got32[i], want[i])
				}
			}
			next := ref.Uint64()
			if g, g32 := rng.Uint64(), rng32.Uint64(); g != next || g32 != next {
				t.Errorf("p %v, n %d: the stream goes on at %x (float32 %x), want %x", p, n, g, g32, next)
			}
		}
	}
}

// TestGCNSparsePlansFollowInput: a layer keeps the block plans of its
// sparse input across Release, and makes new ones when the input
// changes. Forward and Backward on inputs that alternate (both dense
// enough to be summed in blocks, and with the same shape) give the bits
// of a fresh layer with the same parameters, and the plans of the first
// input are the same arrays after a Release.
func TestGCNSparsePlansFollowInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, fin, fout = 2*termRows + 7, 700, 40
	prop, _ := NewPropagator(randGraph(rng, n, 0.05))
	xa, xb := randSparse(rng, n, fin, 260), randSparse(rng, n, fin, 240)
	if xa.Cols != fin || xb.Cols != fin {
		t.Fatalf("inputs of %d and %d columns, want %d", xa.Cols, xb.Cols, fin)
	}
	l := NewGCN("conv", fin, fout, true, rng)
	perturbMask(rng, l.Mask)
	dout := randDense(rng, n, fout, 1)
	run := func(l *GCN, x *CSR) (out, grad []float64) {
		l.Weight.ZeroGrad()
		l.Mask.ZeroGrad()
		l.Bias.ZeroGrad()
		out = copyData(l.Forward(prop, Features{Sparse: x}, true))
		l.Backward(dout, false)
		return out, append([]float64(nil), l.Weight.Grad...)
	}
	var first *int
	for k, x := range []*CSR{xa, xb, xa, xa} {
		fresh := NewGCN("conv", fin, fout, true, nil)
		copy(fresh.Weight.Value, l.Weight.Value)
		copy(fresh.Mask.Value, l.Mask.Value)
		wantOut, wantGrad := run(fresh, x)
		gotOut, gotGrad := run(l, x)
		for i := range wantOut {
			if math.Float64bits(gotOut[i]) != math.Float64bits(wantOut[i]) {
				t.Fatalf("input %d: output %d is %v, a fresh layer's %v", k, i, gotOut[i], wantOut[i])
			}
		}
		for i := range wantGrad {
			if math.Float64bits(gotGrad[i]) != math.Float64bits(wantGrad[i]) {
				t.Fatalf("input %d: weight gradient %d is %v, a fresh layer's %v", k, i, gotGrad[i], wantGrad[i])
			}
		}
		if l.plans.of != x || len(l.plans.fwd) != 3 || l.plans.fwd[0].nb < 2 || len(l.plans.bwd) == 0 || l.plans.bwd[0].nb < 2 {
			t.Fatalf("input %d: plans for %p (%d forward chunks, %d backward), want %p's, 3 and some, in blocks", k, l.plans.of, len(l.plans.fwd), len(l.plans.bwd), x)
		}
		if k == 3 && &l.plans.fwd[0].n[0] != first {
			t.Error("the plans of an unchanged input were made again after Release")
		}
		first = &l.plans.fwd[0].n[0]
		l.release()
	}
}
