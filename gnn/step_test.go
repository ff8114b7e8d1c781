package gnn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A stepCase is a model configuration and its number of features.
type stepCase struct {
	name   string
	cfg    Config
	f      int // features
	hidden int // 24 when 0
}

// twins returns two models of c, 24 wide (or c.hidden) with 4 classes,
// drawn from one seed.
func (c stepCase) twins() (a, b *Model) {
	cfg := c.cfg
	cfg.InFeatures, cfg.Hidden, cfg.Classes = c.f, 24, 4
	if c.hidden != 0 {
		cfg.Hidden = c.hidden
	}
	a, _ = NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
	b, _ = NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
	return a, b
}

// stepCases are the models BackwardStep is checked on: masked first
// layers, which it fuses (with kernel heads, a hard head, three layers,
// features that leave most of the weight's rows unselected), and models it
// does not fuse (plain, float32; at 64 wide the float32 layers keep their
// rows padded, pad32).
var stepCases = []stepCase{
	{"fedaux", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5}, 40, 0},
	{"fedaux/hard", Config{Masked: true, Kernel: true, Hard: true, Score: MaxNorm, Sigma: 1, Dropout: 0.5}, 40, 0},
	{"maskedgcn/3layers/sparse-rows", Config{Masked: true, Layers: 3, Dropout: 0.5}, 300, 0},
	{"gcn", Config{Dropout: 0.5}, 40, 0},
	{"fedaux/f32", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5, Precision: F32}, 40, 0},
	{"fedaux/f32/padded", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5, Precision: F32}, 40, 64},
}

// referenceStep is what BackwardStep stands for: ZeroGrad, Backward, the
// check of every gradient in the optimiser's order, Step.
func referenceStep(m *Model, opt *Adam, cl testClient, rng *rand.Rand) error {
	m.ZeroGrad()
	logits, err := m.Forward(cl.in, true, rng)
	if err != nil {
		return err
	}
	d := newDL(logits)
	SoftmaxCrossEntropy(logits, cl.labels, cl.train, d)
	m.Backward(d)
	for _, p := range opt.params {
		if err := firstNonFinite(p); err != nil {
			return err
		}
	}
	opt.Step()
	return nil
}

// TestBackwardStepBits checks that BackwardStep leaves every parameter,
// moment and the step count with the bits of the unfused sequence, step
// after step, on sparse and then dense features, at every kernel level.
func TestBackwardStepBits(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		for _, tc := range stepCases {
			t.Run(tc.name, func(t *testing.T) {
				ref, fused := tc.twins()
				ro, fo := NewAdam(ref.Params(), 0.05, 1e-4), NewAdam(fused.Params(), 0.05, 1e-4)
				cl := newTestClient(rand.New(rand.NewPCG(3, 4)), 30, tc.f, 4)
				rr, fr := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
				for step := 1; step <= 6; step++ {
					if step == 4 { // dense features from here on
						cl.in.X = Features{Dense: cl.in.X.Sparse.Dense()}
					}
					if err := referenceStep(ref, ro, cl, rr); err != nil {
						t.Fatal(err)
					}
					d := trainGrad(t, fused, cl, fr)
					if err := fused.BackwardStep(d, fo); err != nil {
						t.Fatal(err)
					}
					sameBits(t, fmt.Sprintf("step %d", step), ref, fused, ro, fo)
				}
			})
		}
	})
}

// sameBits fails unless the two models and optimisers hold the same bits.
func sameBits(t *testing.T, when string, a, b *Model, ao, bo *Adam) {
	t.Helper()
	for i, p := range a.Params() {
		q := b.Params()[i]
		for j := range p.Value {
			if math.Float64bits(p.Value[j]) != math.Float64bits(q.Value[j]) {
				t.Fatalf("%s: %s[%d] = %v, want %v", when, p.Name, j, q.Value[j], p.Value[j])
			}
		}
	}
	as, bs := ao.State(), bo.State()
	if as.Step != bs.Step {
		t.Fatalf("%s: step %d, want %d", when, bs.Step, as.Step)
	}
	for i := range as.M {
		for j := range as.M[i] {
			if math.Float64bits(as.M[i][j]) != math.Float64bits(bs.M[i][j]) || math.Float64bits(as.V[i][j]) != math.Float64bits(bs.V[i][j]) {
				t.Fatalf("%s: moments of %s[%d] differ", when, a.Params()[i].Name, j)
			}
		}
	}
}

// TestBackwardStepNonFinite checks that BackwardStep reports the error
// the unfused check finds when a NaN reaches every gradient (from a
// later parameter through the forward pass), and none without one.
func TestBackwardStepNonFinite(t *testing.T) {
	const f = 60
	cfg := Config{InFeatures: f, Hidden: 16, Classes: 3, Masked: true, Kernel: true, Score: Cosine, Sigma: 1}
	cl := newTestClient(rand.New(rand.NewPCG(7, 8)), 25, f, 3)
	for _, poison := range []bool{true, false} {
		ref, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
		fused, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
		if poison {
			ref.Param("cls.weight").Value[2] = math.NaN()
			fused.Param("cls.weight").Value[2] = math.NaN()
		}
		ro, fo := NewAdam(ref.Params(), 0.05, 1e-4), NewAdam(fused.Params(), 0.05, 1e-4)
		want := referenceStep(ref, ro, cl, rand.New(rand.NewPCG(5, 6)))
		d := trainGrad(t, fused, cl, rand.New(rand.NewPCG(5, 6)))
		got := fused.BackwardStep(d, fo)
		if poison != (want != nil) {
			t.Fatalf("poison %v: reference error %v", poison, want)
		}
		if !sameError(got, want) {
			t.Errorf("poison %v: got %v, want %v", poison, got, want)
		}
	}
}

// sameError reports whether got and want are both nil or both
// NonFiniteGradErrors naming the same entry and value.
func sameError(got, want error) bool {
	var g, w *NonFiniteGradError
	if !errors.As(got, &g) || !errors.As(want, &w) {
		return got == nil && want == nil
	}
	return g.Param == w.Param && g.Entry == w.Entry && math.Float64bits(g.Value) == math.Float64bits(w.Value)
}

// TestSparseStepNonFinite checks the first layer's fused step on
// gradients made non-finite one entry at a time (huge but finite
// upstream gradients times huge weights or masks): it reports what
// sparseBackward followed by the check of the weight's gradient, then
// the mask's, reports, when only the mask's overflows, when only the
// weight's does, when the weight's does in a later row than the mask's,
// and for a NaN.
func TestSparseStepNonFinite(t *testing.T) {
	const n, f, c = 30, 50, 8
	rng := rand.New(rand.NewPCG(9, 10))
	prop, err := NewPropagator(randGraph(rng, n, 0.2))
	if err != nil {
		t.Fatal(err)
	}
	x := Features{Sparse: randSparse(rng, n, f, 3)}
	// rowsOf[i]: the feature rows of node i, increasing.
	rowsOf := func(i int) []int { return x.Sparse.Indices[x.Sparse.Indptr[i]:x.Sparse.Indptr[i+1]] }
	a, b := 0, n-1 // nodes whose first feature rows differ
	for rowsOf(a)[0] >= rowsOf(b)[len(rowsOf(b))-1] {
		b--
	}
	ra, rb := rowsOf(a)[0], rowsOf(b)[len(rowsOf(b))-1]
	huge := 1e300
	for _, tc := range []struct {
		name  string
		setup func(l *GCN, dxw []float64)
	}{
		{"mask", func(l *GCN, dxw []float64) {
			dxw[a*c+2] = huge
			l.Weight.Value[ra*c+2] = 1e10
		}},
		{"weight", func(l *GCN, dxw []float64) {
			dxw[b*c+5] = huge
			l.Mask.Value[rb*c+5] = 1e10
		}},
		{"weight-after-mask", func(l *GCN, dxw []float64) {
			dxw[a*c+2], dxw[b*c+5] = huge, huge
			l.Weight.Value[ra*c+2] = 1e10
			l.Mask.Value[rb*c+5] = 1e10
		}},
		{"nan", func(l *GCN, dxw []float64) { dxw[b*c+1] = math.NaN() }},
		{"none", func(l *GCN, dxw []float64) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want error
			var got error
			for _, fused := range []bool{false, true} {
				l := NewGCN("conv1", f, c, true, rand.New(rand.NewPCG(11, 12)))
				l.Forward(prop, x, true)
				dxw := mat.NewDense(n, c, nil)
				raw := dxw.RawMatrix().Data
				for i := range raw {
					raw[i] = rng.NormFloat64() * 1e-3
				}
				tc.setup(l, raw)
				if !fused {
					l.sparseBackward(dxw)
					if e := firstNonFinite(l.Weight); e != nil {
						want = e
					} else if e := firstNonFinite(l.Mask); e != nil {
						want = e
					}
					continue
				}
				opt := NewAdam(l.Params(), 0.01, 0)
				s, _ := opt.next()
				got = l.sparseStep(dxw, opt, 0, 1, s, false)
			}
			if (want == nil) != (tc.name == "none") {
				t.Fatalf("the setup gives reference error %v", want)
			}
			if !sameError(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			t.Log(want)
		})
	}
}

// trainGrad runs a training forward of m on cl's input and returns
// dL/dlogits of its cross-entropy on cl's training nodes.
func trainGrad(t *testing.T, m *Model, cl testClient, rng *rand.Rand) *mat.Dense {
	t.Helper()
	logits, err := m.Forward(cl.in, true, rng)
	if err != nil {
		t.Fatal(err)
	}
	d := newDL(logits)
	SoftmaxCrossEntropy(logits, cl.labels, cl.train, d)
	return d
}

// newDL returns a matrix for dL/dlogits of logits' shape.
func newDL(logits *mat.Dense) *mat.Dense {
	r, c := logits.Dims()
	return mat.NewDense(r, c, nil)
}

// TestSparseStep32NonFinite is TestSparseStepNonFinite for float32
// layers: sparseStep32 against backbone32's addGrads and the check, on
// a float32 dL/d(W . M) with rows that no feature selects.
func TestSparseStep32NonFinite(t *testing.T) {
	const f, c = 40, 8
	ra, rb := 3, 31
	for _, tc := range []struct {
		name  string
		setup func(l *GCN, d []float32)
	}{
		{"mask", func(l *GCN, d []float32) {
			d[ra*c+2] = 3e38
			l.Weight.Value[ra*c+2] = 1e300
		}},
		{"weight", func(l *GCN, d []float32) {
			d[rb*c+5] = 3e38
			l.Mask.Value[rb*c+5] = 1e300
		}},
		{"weight-after-mask", func(l *GCN, d []float32) {
			d[ra*c+2], d[rb*c+5] = 3e38, 3e38
			l.Weight.Value[ra*c+2] = 1e300
			l.Mask.Value[rb*c+5] = 1e300
		}},
		{"nan", func(l *GCN, d []float32) { d[rb*c+1] = float32(math.NaN()) }},
		{"none", func(l *GCN, d []float32) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want, got error
			for _, fused := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(13, 14))
				l := NewGCN("conv1", f, c, true, rng)
				d := make([]float32, f*c)
				count := make([]int, f)
				for r := range count {
					if r%4 != 1 { // rows 1, 5, ... have no terms
						count[r] = 1 + r%3
						for j := 0; j < c; j++ {
							d[r*c+j] = float32(rng.NormFloat64() * 1e-3)
						}
					}
				}
				tc.setup(l, d)
				if !fused {
					l32 := layer32{dweff: d}
					l32.addGrads(l, count, false)
					if e := firstNonFinite(l.Weight); e != nil {
						want = e
					} else if e := firstNonFinite(l.Mask); e != nil {
						want = e
					}
					continue
				}
				for _, p := range l.Params() {
					p.f32 = true
				}
				opt := NewAdam(l.Params(), 0.01, 0)
				_, s := opt.next()
				got = l.sparseStep32(d, count, opt, 0, 1, s, nil)
			}
			if (want == nil) != (tc.name == "none") {
				t.Fatalf("the setup gives reference error %v", want)
			}
			if !sameError(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
			t.Log(want)
		})
	}
}

// TestStepEvaluateBits checks that StepEvaluate gives the evaluation
// logits, parameters and moments of BackwardStep followed by an
// evaluation Forward, bit for bit, step after step: with masks under
// MaskThreshold (the evaluation prunes them), on sparse features, then
// evaluating other features than the training's, then on dense
// features, at every kernel level.
func TestStepEvaluateBits(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		for _, tc := range stepCases {
			t.Run(tc.name, func(t *testing.T) {
				ref, got := tc.twins()
				if m := ref.Param("conv1.mask"); m != nil {
					for j := 0; j < len(m.Value); j += 3 { // a third pruned, of both signs
						m.Value[j] = MaskThreshold * float64(j%5-2) / 3
						got.Param("conv1.mask").Value[j] = m.Value[j]
					}
				}
				// A small rate, so that the masks stay under the threshold.
				ro, fo := NewAdam(ref.Params(), 1e-5, 1e-4), NewAdam(got.Params(), 1e-5, 1e-4)
				cl := newTestClient(rand.New(rand.NewPCG(3, 4)), 30, tc.f, 4)
				other := newTestClient(rand.New(rand.NewPCG(9, 10)), 30, tc.f, 4)
				rr, fr := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
				for step := 1; step <= 6; step++ {
					eval := cl.in
					switch step {
					case 3:
						eval = other.in
					case 5: // dense features from here on
						cl.in.X = Features{Dense: cl.in.X.Sparse.Dense()}
						eval = cl.in
					}
					if err := referenceStep(ref, ro, cl, rr); err != nil {
						t.Fatal(err)
					}
					want, err := ref.Forward(eval, false, nil)
					if err != nil {
						t.Fatal(err)
					}
					want = mat.DenseCopyOf(want)
					d := trainGrad(t, got, cl, fr)
					logits, err := got.StepEvaluate(d, fo, eval)
					if err != nil {
						t.Fatal(err)
					}
					when := fmt.Sprintf("step %d", step)
					sameBits(t, when, ref, got, ro, fo)
					sameMatrixBits(t, when, logits, want)
				}
			})
		}
	})
}

// sameMatrixBits fails unless got and want hold the same bits.
func sameMatrixBits(t *testing.T, when string, got, want *mat.Dense) {
	t.Helper()
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		t.Fatalf("%s: logits %dx%d, want %dx%d", when, gr, gc, r, c)
	}
	for i := range r {
		for j := range c {
			if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("%s: logit (%d, %d) = %v, want %v", when, i, j, g, w)
			}
		}
	}
}

// TestStepEvaluateNonFinite checks that StepEvaluate returns
// BackwardStep's error, and no logits, when a gradient is not finite.
func TestStepEvaluateNonFinite(t *testing.T) {
	const f = 60
	for _, prec := range []Precision{F64, F32} {
		cfg := Config{InFeatures: f, Hidden: 16, Classes: 3, Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Precision: prec}
		cl := newTestClient(rand.New(rand.NewPCG(7, 8)), 25, f, 3)
		ref, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
		m, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
		ref.Param("cls.weight").Value[2] = math.NaN()
		m.Param("cls.weight").Value[2] = math.NaN()
		want := referenceStep(ref, NewAdam(ref.Params(), 0.05, 1e-4), cl, rand.New(rand.NewPCG(5, 6)))
		if want == nil {
			t.Fatalf("%v: no reference error", prec)
		}
		d := trainGrad(t, m, cl, rand.New(rand.NewPCG(5, 6)))
		logits, err := m.StepEvaluate(d, NewAdam(m.Params(), 0.05, 1e-4), cl.in)
		if !sameError(err, want) || logits != nil {
			t.Errorf("%v: got %v and logits %v, want %v and none", prec, err, logits != nil, want)
		}
	}
}
