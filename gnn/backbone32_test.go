package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/internal/fdcheck"
	"gonum.org/v1/gonum/mat"
)

// The float32 models (layers and heads) are checked two ways: against
// central differences of their own (float32) loss, with a step and a
// tolerance fit for float32 (fd32Step, fd32Tol: a step that keeps the
// pruned mask entries, within 5e-5 of zero, below MaskThreshold, on a
// loss that float32 resolves to ~1e-7; the largest error seen is
// 5.7e-4); and against the float64 model's gradients (themselves checked
// against finite differences to 1e-6 in TestModelGradients) on the same
// parameters, inputs and dropout masks, to a relative error of f32Tol
// per tensor (the largest seen is 2.3e-7).
const (
	fd32Step = 2e-4
	fd32Tol  = 2e-3
	f32Tol   = 1e-5
)

var f32Cases = []struct {
	name  string
	cfg   Config
	train bool
}{
	{"fedaux/cosine", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5}, true},
	{"fedaux/maxnorm/eval", Config{Masked: true, Kernel: true, Score: MaxNorm, Sigma: 1, Dropout: 0.5}, false},
	{"fedaux/3layers", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 0.5, Dropout: 0.5, Layers: 3}, true},
	{"maskedgcn", Config{Masked: true, Dropout: 0.5}, true},
	{"gcn", Config{Dropout: 0.5}, true},
	{"gcn/eval/1layer", Config{Dropout: 0.5, Layers: 1}, false},
}

// newPerturbed returns a model of cfg drawn from rng, its masks then
// perturbed (perturbMask: some pruned, the others away from 1) so that
// they matter in the check.
func newPerturbed(t *testing.T, cfg Config, rng *rand.Rand) *Model {
	t.Helper()
	m, err := NewModel(cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		if p.Personal {
			perturbMask(rng, p)
		}
	}
	return m
}

func TestF32Gradients(t *testing.T) {
	const n, f, d, classes = 12, 8, 5, 3
	for _, tc := range f32Cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.InFeatures, cfg.Hidden, cfg.Classes, cfg.Precision = f, d, classes, F32
			rng := rand.New(rand.NewPCG(31, 32))
			c := newTestClient(rng, n, f, classes)
			m := newPerturbed(t, cfg, rng)
			dl := mat.NewDense(n, classes, nil)
			loss := func() float64 {
				logits, err := m.Forward(c.in, tc.train, rand.New(rand.NewPCG(7, 7)))
				if err != nil {
					t.Fatal(err)
				}
				return SoftmaxCrossEntropy(logits, c.labels, c.train, dl)
			}
			loss()
			m.ZeroGrad()
			m.Backward(dl)
			for _, p := range m.Params() {
				analytic := slices.Clone(p.Grad)
				numeric := fdcheck.Grad(loss, p.Value, fd32Step)
				e := fdcheck.RelErr(analytic, numeric)
				t.Logf("%s: relative error %.2g", p.Name, e)
				if !(e <= fd32Tol) {
					t.Errorf("%s: relative error %.3g > %g\nanalytic %.6g\nnumeric  %.6g", p.Name, e, fd32Tol, analytic, numeric)
				}
			}
		})
	}
}

// f32Client is a client of Cora's proportions at a smaller size.
func f32Client(rng *rand.Rand, dense bool) testClient {
	const n, f, classes = 150, 300, 7
	prop, err := NewPropagator(randGraph(rng, n, 0.03))
	if err != nil {
		panic(err)
	}
	x := Features{Sparse: randSparse(rng, n, f, 12)}
	if dense {
		x = Features{Dense: randDense(rng, n, f, 0.3)}
	}
	c := testClient{in: Input{Prop: prop, X: x}, labels: make([]int, n)}
	for i := range c.labels {
		c.labels[i] = rng.IntN(classes)
		if i%2 == 0 {
			c.train = append(c.train, i)
		}
	}
	return c
}

// f32Pair returns a float64 model of cfg at f32Client's size and hidden
// wide (masks perturbed) and a float32 model with the same parameters.
func f32Pair(t *testing.T, cfg Config, hidden int, rng *rand.Rand) (m64, m32 *Model) {
	t.Helper()
	cfg.InFeatures, cfg.Hidden, cfg.Classes = 300, hidden, 7
	m64 = newPerturbed(t, cfg, rng)
	cfg.Precision = F32
	m32, err := NewModel(cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	if err := m32.CopyFrom(m64); err != nil {
		t.Fatal(err)
	}
	return m64, m32
}

// TestF32MatchesF64 runs a float64 and a float32 model with the same
// parameters on the same input and dropout stream, and compares their
// logits and every gradient, 32 wide and 64 wide (rows padded, pad32).
func TestF32MatchesF64(t *testing.T) {
	for _, tc := range f32Cases {
		for _, v := range []struct {
			dense  bool
			hidden int
		}{{false, 32}, {true, 32}, {false, 64}, {true, 64}} {
			name := fmt.Sprintf("%s/hidden=%d", tc.name, v.hidden)
			if v.dense {
				name += "/dense"
			}
			t.Run(name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(41, 42))
				c := f32Client(rng, v.dense)
				m64, m32 := f32Pair(t, tc.cfg, v.hidden, rng)
				var grads [2][][]float64
				var logits [2][]float64
				for k, m := range []*Model{m64, m32} {
					out, err := m.Forward(c.in, tc.train, rand.New(rand.NewPCG(5, 6)))
					if err != nil {
						t.Fatal(err)
					}
					logits[k] = copyData(out)
					dl := mat.NewDense(len(c.labels), 7, nil)
					SoftmaxCrossEntropy(out, c.labels, c.train, dl)
					m.ZeroGrad()
					m.Backward(dl)
					for _, p := range m.Params() {
						grads[k] = append(grads[k], slices.Clone(p.Grad))
					}
				}
				if e := fdcheck.RelErr(logits[1], logits[0]); !(e <= f32Tol) || slices.Equal(logits[0], logits[1]) {
					t.Errorf("logits: relative error %.3g, want in (0, %g]", e, f32Tol)
				}
				for i, p := range m64.Params() {
					e := fdcheck.RelErr(grads[1][i], grads[0][i])
					t.Logf("%s: relative error %.2g", p.Name, e)
					if !(e <= f32Tol) {
						t.Errorf("%s: relative error %.3g > %g", p.Name, e, f32Tol)
					}
					if norm(grads[0][i]) == 0 {
						t.Errorf("%s: zero gradient, the comparison proves nothing", p.Name)
					}
				}
			})
		}
	}
}

func norm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// TestF32Deterministic checks that two float32 models give the same
// bits for the same seed, and that Release keeps them.
func TestF32Deterministic(t *testing.T) {
	cfg := Config{InFeatures: 300, Hidden: 32, Classes: 7, Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5, Precision: F32}
	var out [2][]float64
	for k := range out {
		rng := rand.New(rand.NewPCG(9, 9))
		c := f32Client(rng, false)
		m, err := NewModel(cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		opt := NewAdam(m.Params(), 0.01, 5e-4)
		for step := range 3 {
			if k == 1 && step == 1 {
				m.Release()
			}
			logits, err := m.Forward(c.in, true, rng)
			if err != nil {
				t.Fatal(err)
			}
			dl := mat.NewDense(len(c.labels), 7, nil)
			SoftmaxCrossEntropy(logits, c.labels, c.train, dl)
			m.ZeroGrad()
			m.Backward(dl)
			opt.Step()
		}
		logits, err := m.Forward(c.in, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = copyData(logits)
	}
	if !slices.Equal(out[0], out[1]) {
		t.Fatal("two float32 runs of one seed differ")
	}
}

func TestF32Refusals(t *testing.T) {
	if _, err := NewModel(Config{InFeatures: 3, Hidden: 2, Classes: 2, Precision: 7}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("precision 7 accepted")
	}
}

// TestF32Adam checks that Adam updates the float32 layers' parameters in
// float32 (their values are float32 after a step; the head's stay
// float64), and that its state survives State and SetState.
func TestF32Adam(t *testing.T) {
	cfg := Config{InFeatures: 300, Hidden: 32, Classes: 7, Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5, Precision: F32}
	rng := rand.New(rand.NewPCG(3, 3))
	c := f32Client(rng, false)
	m, err := NewModel(cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	opt := NewAdam(m.Params(), 0.01, 5e-4)
	step := func(m *Model, opt *Adam, rng *rand.Rand) {
		logits, err := m.Forward(c.in, true, rng)
		if err != nil {
			t.Fatal(err)
		}
		dl := mat.NewDense(len(c.labels), 7, nil)
		SoftmaxCrossEntropy(logits, c.labels, c.train, dl)
		m.ZeroGrad()
		m.Backward(dl)
		opt.Step()
	}
	step(m, opt, rng)
	wide := 0
	for _, p := range m.Params() {
		for _, v := range p.Value {
			if float64(float32(v)) != v {
				if p.f32 {
					t.Fatalf("%s holds %v, not a float32, after a float32 step", p.Name, v)
				}
				wide++
			}
		}
	}
	if wide == 0 {
		t.Error("no head parameter holds a float64 value: the head was not updated in float64")
	}
	// A copy of the model and of the optimiser's state continues alike.
	m2, err := NewModel(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m2.CopyFrom(m); err != nil {
		t.Fatal(err)
	}
	opt2 := NewAdam(m2.Params(), 0.01, 5e-4)
	if err := opt2.SetState(opt.State()); err != nil {
		t.Fatal(err)
	}
	seed := rng.Uint64()
	step(m, opt, rand.New(rand.NewPCG(seed, 0)))
	step(m2, opt2, rand.New(rand.NewPCG(seed, 0)))
	for i, p := range m.Params() {
		if !slices.Equal(p.Value, m2.Params()[i].Value) {
			t.Fatalf("%s differs after restoring the optimiser's state", p.Name)
		}
	}
}

// TestF32SparseFormsSelectedRows: with sparse features the first float32
// layer forms only the rows of its effective weight that the features
// select, and reads no other: with every entry of that buffer made NaN
// between two forwards, the second gives the same logits, for a masked
// and a plain layer, in training and in evaluation.
func TestF32SparseFormsSelectedRows(t *testing.T) {
	const n, f, classes = 20, 40, 3
	for _, tc := range f32Cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.InFeatures, cfg.Hidden, cfg.Classes, cfg.Precision = f, 8, classes, F32
			rng := rand.New(rand.NewPCG(41, 42))
			c := newTestClient(rng, n, f/2, classes) // features f/2 .. f-1 never selected
			c.in.X.Sparse.Cols = f
			m := newPerturbed(t, cfg, rng)
			forward := func() []float64 {
				logits, err := m.Forward(c.in, tc.train, rand.New(rand.NewPCG(7, 7)))
				if err != nil {
					t.Fatal(err)
				}
				return copyData(logits)
			}
			want := forward()
			weff := m.b32.layers[0].weff
			for i := range weff {
				weff[i] = float32(math.NaN())
			}
			if got := forward(); !slices.Equal(got, want) {
				t.Errorf("logits changed: %v, want %v", got[:3], want[:3])
			}
		})
	}
}

// TestF32Embeddings checks that a float32 model's embeddings, formed on
// demand from its float32 layers' output since the heads run in float32,
// are the float64 model's H to float32 precision, and are gone after
// Release.
func TestF32Embeddings(t *testing.T) {
	for _, tc := range f32Cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			c := f32Client(rng, false)
			m64, m32 := f32Pair(t, tc.cfg, 32, rng)
			var h [2][]float64
			for k, m := range []*Model{m64, m32} {
				if _, err := m.Forward(c.in, tc.train, rand.New(rand.NewPCG(5, 6))); err != nil {
					t.Fatal(err)
				}
				h[k] = copyData(m.Embeddings())
			}
			if e := fdcheck.RelErr(h[1], h[0]); !(e <= f32Tol) || norm(h[0]) == 0 {
				t.Errorf("embeddings: relative error %.3g (norm %g), want <= %g", e, norm(h[0]), f32Tol)
			}
			for _, v := range h[1] {
				if float64(float32(v)) != v {
					t.Fatalf("embedding %v is not a float32 value", v)
				}
			}
			m32.Release()
			if m32.Embeddings() != nil {
				t.Error("embeddings after Release")
			}
		})
	}
}
