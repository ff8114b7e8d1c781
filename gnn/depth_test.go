package gnn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Tests of the GCN depth L = Config.Layers (docs/method.md#hyperparameter-sensitivity, "Depth x
// width").

// depthCases are the model variants checked at every depth: the plain
// GCN, the MaskedGCN, FedAux's kernel model with both score kinds (in
// training and in evaluation mode) and FedAux_hard's head with both.
var depthCases = []struct {
	name  string
	cfg   Config
	train bool
}{
	{"gcn", Config{Dropout: 0.5}, true},
	{"maskedgcn", Config{Masked: true, Dropout: 0.5}, true},
	{"fedaux/cosine", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5}, true},
	{"fedaux/maxnorm", Config{Masked: true, Kernel: true, Score: MaxNorm, Sigma: 0.1, Dropout: 0.5}, true},
	{"fedaux/cosine/eval", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 0.1, Dropout: 0.5}, false},
	{"fedaux/maxnorm/eval", Config{Masked: true, Kernel: true, Score: MaxNorm, Sigma: 1, Dropout: 0.5}, false},
	{"hard/cosine", Config{Masked: true, Kernel: true, Hard: true, Score: Cosine, Sigma: 1, Dropout: 0.5}, true},
	{"hard/maxnorm", Config{Masked: true, Kernel: true, Hard: true, Score: MaxNorm, Sigma: 1, Dropout: 0.5}, true},
}

// depthShape returns cfg with a small shape (n nodes, f features, d
// hidden, 3 classes) and the given depth; the hard head gets d = 8 as in
// TestHardModelGradients.
func depthShape(cfg Config, layers int) (Config, int) {
	const n = 12
	cfg.InFeatures, cfg.Hidden, cfg.Classes, cfg.Layers = 8, 5, 3, layers
	if cfg.Hard {
		cfg.Hidden = 8
	}
	return cfg, n
}

// gradPair is one parameter's analytic gradient and its central
// difference estimate.
type gradPair struct {
	name              string
	analytic, numeric []float64
}

// modelGradPairs builds the model of cfg on a small random client drawn
// from seed (masks perturbed, as in TestModelGradients), takes the
// analytic gradient of the mean cross-entropy for every parameter from
// one Forward and Backward (with a fixed dropout stream), and estimates
// each by central differences (numGrad). tamper, if not nil, runs between
// that Forward and Backward (to plant an error). reordered reports that
// some finite-difference step changed FedAux_hard's sort order (the loss
// is discontinuous there, so the pairs prove nothing).
func modelGradPairs(t *testing.T, cfg Config, n int, train bool, seed uint64, tamper func(*Model)) (pairs []gradPair, reordered bool) {
	t.Helper()
	return modelGradPairsFrom(t, cfg, n, train, rand.New(rand.NewPCG(seed, 61)), tamper)
}

// modelGradPairsFrom is modelGradPairs with the client and the model drawn
// from rng.
func modelGradPairsFrom(t *testing.T, cfg Config, n int, train bool, rng *rand.Rand, tamper func(*Model)) (pairs []gradPair, reordered bool) {
	t.Helper()
	c := newTestClient(rng, n, cfg.InFeatures, cfg.Classes)
	m, err := NewModel(cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		if strings.HasSuffix(p.Name, ".mask") {
			perturbMask(rng, p)
		}
	}
	dlogits := mat.NewDense(n, cfg.Classes, nil)
	var base []int
	loss := func() float64 {
		// A freshly seeded stream fixes the dropout masks.
		logits, err := m.Forward(c.in, train, rand.New(rand.NewPCG(7, 7)))
		if err != nil {
			t.Fatal(err)
		}
		if m.hard != nil && base != nil && !slices.Equal(base, m.hard.perm) {
			reordered = true
		}
		return SoftmaxCrossEntropy(logits, c.labels, c.train, dlogits)
	}
	loss()
	if m.hard != nil {
		base = slices.Clone(m.hard.perm)
	}
	m.ZeroGrad()
	if tamper != nil {
		tamper(m)
	}
	m.Backward(dlogits)
	for _, p := range m.Params() {
		pairs = append(pairs, gradPair{p.Name, slices.Clone(p.Grad), nil})
	}
	for i, p := range m.Params() {
		pairs[i].numeric = numGrad(loss, p.Value)
	}
	return pairs, reordered
}

// wantConvNames fails t unless the pairs hold exactly conv1 .. convL's
// tensors (weight, mask if masked, bias) first, in order.
func wantConvNames(t *testing.T, pairs []gradPair, cfg Config) {
	t.Helper()
	var want []string
	for l := 1; l <= cfg.Layers; l++ {
		want = append(want, fmt.Sprintf("conv%d.weight", l))
		if cfg.Masked {
			want = append(want, fmt.Sprintf("conv%d.mask", l))
		}
		want = append(want, fmt.Sprintf("conv%d.bias", l))
	}
	var got []string
	for _, p := range pairs {
		if strings.HasPrefix(p.name, "conv") {
			got = append(got, p.name)
		}
	}
	if !slices.Equal(got, want) || pairs[0].name != want[0] {
		t.Fatalf("GCN tensors %q, want %q first", got, want)
	}
}

// TestModelDepthGradients checks every parameter's analytic gradient
// (all GCN layers, classifier, APV, hard head) against central
// differences at each depth L = 1, 2, 3 for every variant of depthCases.
// As in TestHardModelGradients, the hard head uses the first seed for
// which no finite-difference step reorders the nodes.
func TestModelDepthGradients(t *testing.T) {
	for _, layers := range []int{1, 2, 3} {
		for _, tc := range depthCases {
			t.Run(fmt.Sprintf("L%d/%s", layers, tc.name), func(t *testing.T) {
				cfg, n := depthShape(tc.cfg, layers)
				for seed := uint64(1); seed < 40; seed++ {
					pairs, reordered := modelGradPairs(t, cfg, n, tc.train, seed, nil)
					if reordered {
						t.Logf("seed %d: a finite-difference step reorders the nodes; next seed", seed)
						continue
					}
					wantConvNames(t, pairs, cfg)
					for _, p := range pairs {
						checkGrad(t, p.name, p.analytic, p.numeric)
					}
					return
				}
				t.Fatal("every seed tried puts two scores within a finite-difference step")
			})
		}
	}
}

// TestModelDepthGradientCheckCatchesErrors plants a depth bug, a
// backward pass that uses the neighbouring layer's dropout mask, and
// expects the gradient comparison of TestModelDepthGradients to reject
// the gradient of every GCN tensor (weight, mask and bias of each layer)
// while it still accepts the classifier's (which the swap does not
// touch).
func TestModelDepthGradientCheckCatchesErrors(t *testing.T) {
	for _, layers := range []int{2, 3} {
		cfg, n := depthShape(Config{Masked: true, Kernel: true, Score: MaxNorm, Sigma: 1, Dropout: 0.5}, layers)
		swap := func(m *Model) {
			a, b := &m.layers[layers-2].drop, &m.layers[layers-1].drop
			*a, *b = *b, *a
		}
		pairs, _ := modelGradPairs(t, cfg, n, true, 1, swap)
		for _, p := range pairs {
			e := relErr(p.analytic, p.numeric)
			switch {
			case strings.HasPrefix(p.name, "conv") && !(e > fdTol):
				t.Errorf("L%d: %s: a swapped dropout mask gives relative error %.2g, within the tolerance %g", layers, p.name, e, fdTol)
			case strings.HasPrefix(p.name, "cls.") && e > fdTol:
				t.Errorf("L%d: %s: relative error %.2g, but the swap does not reach the classifier", layers, p.name, e)
			}
		}
	}
}

// TestModelLayersDefault checks that Layers 0 is the two-layer model bit
// for bit: equal parameters from equal seeds, and equal logits,
// gradients, embeddings and EmbedPreReLU over training steps.
func TestModelLayersDefault(t *testing.T) {
	for _, tc := range depthCases {
		for _, dense := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dense=%v", tc.name, dense), func(t *testing.T) {
				cfg := tc.cfg
				cfg.InFeatures, cfg.Hidden, cfg.Classes = 20, 6, 3
				cl := newTestClient(rand.New(rand.NewPCG(3, 4)), 15, 20, 3)
				if dense {
					cl.in.X = Features{Dense: randDense(rand.New(rand.NewPCG(8, 8)), 15, 20, 0.5)}
				}
				var models [2]*Model
				var opts [2]*Adam
				var rngs [2]*rand.Rand
				for i, layers := range []int{0, 2} {
					c := cfg
					c.Layers = layers
					m, err := NewModel(c, rand.New(rand.NewPCG(1, 2)))
					if err != nil {
						t.Fatal(err)
					}
					if m.Config().Layers != 2 {
						t.Fatalf("Layers %d: Config().Layers = %d, want 2", layers, m.Config().Layers)
					}
					models[i], opts[i], rngs[i] = m, NewAdam(m.Params(), 0.01, 1e-6), rand.New(rand.NewPCG(5, 6))
				}
				a, b := models[0], models[1]
				if na, nb := paramNames(a), paramNames(b); na != nb {
					t.Fatalf("params %q vs %q", na, nb)
				}
				equalParams := func(what string, get func(*Param) []float64) {
					t.Helper()
					for i, p := range a.Params() {
						if !slices.Equal(get(p), get(b.Params()[i])) {
							t.Errorf("%s: %s differs between Layers 0 and 2", what, p.Name)
						}
					}
				}
				equalParams("initial value", func(p *Param) []float64 { return p.Value })
				for step := 0; step < 3; step++ {
					var logits [2]*mat.Dense
					for i, m := range models {
						m.ZeroGrad()
						l, err := m.Forward(cl.in, tc.train, rngs[i])
						if err != nil {
							t.Fatal(err)
						}
						logits[i] = mat.DenseCopyOf(l)
						d := mat.NewDense(15, 3, nil)
						SoftmaxCrossEntropy(l, cl.labels, cl.train, d)
						m.Backward(d)
					}
					if !mat.Equal(logits[0], logits[1]) || !mat.Equal(a.Embeddings(), b.Embeddings()) || !slices.Equal(a.Scores(), b.Scores()) {
						t.Errorf("step %d: logits, embeddings or scores differ between Layers 0 and 2", step)
					}
					equalParams(fmt.Sprintf("step %d gradient", step), func(p *Param) []float64 { return p.Grad })
					opts[0].Step()
					opts[1].Step()
				}
				equalParams("trained value", func(p *Param) []float64 { return p.Value })
				if !mat.Equal(a.EmbedPreReLU(cl.in), b.EmbedPreReLU(cl.in)) {
					t.Error("EmbedPreReLU differs between Layers 0 and 2")
				}
			})
		}
	}
}

// paramNames returns the names of m's parameters in order, space-separated.
func paramNames(m *Model) string {
	var s []string
	for _, p := range m.Params() {
		s = append(s, p.Name)
	}
	return strings.Join(s, " ")
}

func TestModelLayersValidate(t *testing.T) {
	base := Config{InFeatures: 8, Hidden: 4, Classes: 3}
	for _, layers := range []int{4, -1} {
		c := base
		c.Layers = layers
		err := c.Validate()
		want := fmt.Sprintf("gnn: layers %d, want 1, 2 or 3", layers)
		if err == nil || err.Error() != want {
			t.Errorf("Validate(Layers %d) = %v, want %q", layers, err, want)
		}
		if _, err := NewModel(c, rand.New(rand.NewPCG(1, 2))); err == nil {
			t.Errorf("NewModel(Layers %d) succeeded", layers)
		}
	}
	for _, layers := range []int{0, 1, 2, 3} {
		c := base
		c.Layers = layers
		if err := c.Validate(); err != nil {
			t.Errorf("Validate(Layers %d): %v", layers, err)
		}
	}
}

// TestModelLayersStructure checks the parameter names, order and shapes
// at each depth (conv1 F x d, the rest d x d, classifier 2d x C), the
// random draw order (the GCN weights first, in layer order, so a deeper
// model shares its first layers' weights with a shallower one of the
// same seed) and the input-gradient settings of the layers.
func TestModelLayersStructure(t *testing.T) {
	const f, d, c = 10, 4, 3
	cfg := Config{InFeatures: f, Hidden: d, Classes: c, Masked: true, Kernel: true, Sigma: 1}
	models := map[int]*Model{}
	for _, layers := range []int{1, 2, 3} {
		cfg.Layers = layers
		m, err := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		models[layers] = m
		var want []string
		for l := 1; l <= layers; l++ {
			want = append(want, fmt.Sprintf("conv%d.weight conv%d.mask conv%d.bias", l, l, l))
		}
		want = append(want, "cls.weight cls.mask cls.bias apv")
		if g, w := paramNames(m), strings.Join(want, " "); g != w {
			t.Errorf("L%d: params %q, want %q", layers, g, w)
		}
		for l := 1; l <= layers; l++ {
			in := d
			if l == 1 {
				in = f
			}
			for _, s := range []struct {
				name       string
				rows, cols int
			}{{"weight", in, d}, {"mask", in, d}, {"bias", 1, d}} {
				if p := m.Param(fmt.Sprintf("conv%d.%s", l, s.name)); p.Rows != s.rows || p.Cols != s.cols {
					t.Errorf("L%d: conv%d.%s is %dx%d, want %dx%d", layers, l, s.name, p.Rows, p.Cols, s.rows, s.cols)
				}
			}
		}
		if p := m.Param("cls.weight"); p.Rows != 2*d || p.Cols != c {
			t.Errorf("L%d: cls.weight is %dx%d, want %dx%d", layers, p.Rows, p.Cols, 2*d, c)
		}
		if p := m.Param("apv"); p.Cols != d {
			t.Errorf("L%d: apv has %d entries, want %d", layers, p.Cols, d)
		}
		if len(m.layers) != layers || m.Config().Layers != layers {
			t.Errorf("L%d: %d layers, Config().Layers %d", layers, len(m.layers), m.Config().Layers)
		}
		for i, l := range m.layers {
			if l.conv.GradOnlyNonzero != (i > 0) || l.drop.P != cfg.Dropout {
				t.Errorf("L%d: layer %d GradOnlyNonzero %v, dropout %v", layers, i+1, l.conv.GradOnlyNonzero, l.drop.P)
			}
		}
	}
	for _, name := range []string{"conv1.weight", "conv2.weight"} {
		if !slices.Equal(models[2].Param(name).Value, models[3].Param(name).Value) {
			t.Errorf("%s differs between L = 2 and L = 3 of the same seed: draw order", name)
		}
	}
	if !slices.Equal(models[1].Param("conv1.weight").Value, models[2].Param("conv1.weight").Value) {
		t.Error("conv1.weight differs between L = 1 and L = 2 of the same seed: draw order")
	}
	if slices.Equal(models[2].Param("cls.weight").Value, models[3].Param("cls.weight").Value) {
		t.Error("cls.weight equal at L = 2 and 3: conv3.weight not drawn before it")
	}
}

// TestReleaseChangesNothingDepth is TestReleaseChangesNothing at L = 1
// and 3: releasing the scratch memory between training steps leaves the
// parameters and logits bit-identical.
func TestReleaseChangesNothingDepth(t *testing.T) {
	for _, layers := range []int{1, 3} {
		for _, tc := range depthCases {
			cfg := tc.cfg
			cfg.InFeatures, cfg.Hidden, cfg.Classes, cfg.Layers = 20, 6, 3, layers
			cl := newTestClient(rand.New(rand.NewPCG(3, 4)), 15, 20, 3)
			var out [2]*mat.Dense
			var models [2]*Model
			for i := range models {
				m, err := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatal(err)
				}
				rng, opt := rand.New(rand.NewPCG(5, 6)), NewAdam(m.Params(), 0.01, 1e-6)
				for step := 0; step < 3; step++ {
					m.ZeroGrad()
					logits, err := m.Forward(cl.in, true, rng)
					if err != nil {
						t.Fatal(err)
					}
					d := mat.NewDense(15, 3, nil)
					SoftmaxCrossEntropy(logits, cl.labels, cl.train, d)
					m.Backward(d)
					opt.Step()
					if i == 1 {
						m.Release()
					}
				}
				ev, err := m.Forward(cl.in, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				models[i], out[i] = m, mat.DenseCopyOf(ev)
			}
			if !mat.Equal(out[0], out[1]) {
				t.Errorf("L%d %s: logits differ after Release", layers, tc.name)
			}
			for i, p := range models[0].Params() {
				if !slices.Equal(p.Value, models[1].Params()[i].Value) {
					t.Errorf("L%d %s: %s differs after Release", layers, tc.name, p.Name)
				}
			}
		}
	}
}
