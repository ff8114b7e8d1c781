package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// testClient is a small random client graph.
type testClient struct {
	in     Input
	labels []int
	train  []int
}

func newTestClient(rng *rand.Rand, n, f, classes int) testClient {
	prop, err := NewPropagator(randGraph(rng, n, 0.2))
	if err != nil {
		panic(err)
	}
	c := testClient{in: Input{Prop: prop, X: Features{Sparse: randSparse(rng, n, f, 3)}}}
	c.labels = make([]int, n)
	for i := range c.labels {
		c.labels[i] = rng.IntN(classes)
		if i%3 != 2 {
			c.train = append(c.train, i)
		}
	}
	return c
}

var modelCases = []struct {
	name  string
	cfg   Config
	train bool // forward mode of the check
}{
	{"fedaux/cosine/sigma1", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5}, true},
	{"fedaux/maxnorm/sigma0.1", Config{Masked: true, Kernel: true, Score: MaxNorm, Sigma: 0.1, Dropout: 0.5}, true},
	// With cosine scores and sigma = 10 the APV gradient of this small
	// model is ~1e-8, below what central differences resolve on an O(1)
	// loss; that pairing is checked at layer level (TestScoreKernelGradients).
	{"fedaux/maxnorm/sigma10/nodropout", Config{Masked: true, Kernel: true, Score: MaxNorm, Sigma: 10}, true},
	{"fedaux/cosine/sigma0.1/eval", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 0.1, Dropout: 0.5}, false},
	{"fedaux/maxnorm/sigma1/eval", Config{Masked: true, Kernel: true, Score: MaxNorm, Sigma: 1, Dropout: 0.5}, false},
	{"maskedgcn", Config{Masked: true, Dropout: 0.5}, true},
	{"gcn", Config{Dropout: 0.5}, true},
}

func TestModelGradients(t *testing.T) {
	const n, f, d, classes = 12, 8, 5, 3
	for _, tc := range modelCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.InFeatures, cfg.Hidden, cfg.Classes = f, d, classes
			pairs, _ := modelGradPairsFrom(t, cfg, n, tc.train, rand.New(rand.NewPCG(31, 32)), nil)
			for _, p := range pairs {
				checkGrad(t, p.name, p.analytic, p.numeric)
			}
		})
	}
}

// TestModelHeadIsConcatenation checks that the projected kernel head
// equals the literal classifier on [H || agg(H)] of Eq. 5.
func TestModelHeadIsConcatenation(t *testing.T) {
	const n, f, d, classes = 12, 8, 5, 3
	for _, kind := range []ScoreKind{Cosine, MaxNorm} {
		for _, train := range []bool{true, false} {
			rng := rand.New(rand.NewPCG(33, 34))
			c := newTestClient(rng, n, f, classes)
			m, _ := NewModel(Config{InFeatures: f, Hidden: d, Classes: classes, Masked: true, Kernel: true, Score: kind, Sigma: 0.7, Dropout: 0.5}, rng)
			perturbMask(rng, m.Param("cls.mask"))
			logits, err := m.Forward(c.in, train, rng)
			if err != nil {
				t.Fatal(err)
			}
			h := m.Embeddings()
			score := NewScore(kind, d, rng)
			copy(score.APV.Value, m.Param("apv").Value)
			z, err := (&Kernel{Sigma: 0.7}).Forward(h, score.Forward(h))
			if err != nil {
				t.Fatal(err)
			}
			cat := mat.NewDense(n, 2*d, nil)
			cat.Augment(h, z)
			lin := &Linear{In: 2 * d, Out: classes, Weight: m.Param("cls.weight"), Mask: m.Param("cls.mask"), Bias: m.Param("cls.bias")}
			if diff := maxAbsDiff(logits, lin.Forward(cat, train)); diff > 1e-12 {
				t.Errorf("%v train=%v: head differs from Linear([h||z]) by %g", kind, train, diff)
			}
		}
	}
}

func TestModelParams(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{Masked: true, Kernel: true, Sigma: 1}, "conv1.weight conv1.mask conv1.bias conv2.weight conv2.mask conv2.bias cls.weight cls.mask cls.bias apv"},
		{Config{Masked: true}, "conv1.weight conv1.mask conv1.bias conv2.weight conv2.mask conv2.bias cls.weight cls.mask cls.bias"},
		{Config{}, "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias"},
	}
	for _, c := range cases {
		c.cfg.InFeatures, c.cfg.Hidden, c.cfg.Classes = 10, 4, 3
		m, err := NewModel(c.cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range m.Params() {
			names = append(names, p.Name)
			if p.Personal != strings.HasSuffix(p.Name, ".mask") {
				t.Errorf("%s: Personal = %v", p.Name, p.Personal)
			}
			if len(p.Value) != p.Rows*p.Cols || len(p.Grad) != len(p.Value) {
				t.Errorf("%s: %dx%d with %d values, %d grads", p.Name, p.Rows, p.Cols, len(p.Value), len(p.Grad))
			}
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("params %q, want %q", got, c.want)
		}
	}
	m, _ := NewModel(Config{InFeatures: 10, Hidden: 4, Classes: 3, Masked: true, Kernel: true, Sigma: 1}, rng)
	shapes := map[string][2]int{"conv1.weight": {10, 4}, "conv2.mask": {4, 4}, "conv1.bias": {1, 4}, "cls.weight": {8, 3}, "cls.bias": {1, 3}, "apv": {1, 4}}
	for name, s := range shapes {
		if p := m.Param(name); p.Rows != s[0] || p.Cols != s[1] {
			t.Errorf("%s is %dx%d, want %dx%d", name, p.Rows, p.Cols, s[0], s[1])
		}
	}
	if m.APV() != m.Param("apv") || m.Param("nope") != nil {
		t.Error("APV or Param lookup")
	}
}

func TestModelDeterminismAndCopy(t *testing.T) {
	cfg := Config{InFeatures: 20, Hidden: 6, Classes: 3, Masked: true, Kernel: true, Score: MaxNorm, Sigma: 1, Dropout: 0.5}
	a, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
	b, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
	c, _ := NewModel(cfg, rand.New(rand.NewPCG(3, 4)))
	for i, p := range a.Params() {
		if !slices.Equal(p.Value, b.Params()[i].Value) {
			t.Errorf("%s differs between models of equal seeds", p.Name)
		}
	}
	if slices.Equal(a.Param("conv1.weight").Value, c.Param("conv1.weight").Value) {
		t.Error("different seeds gave equal weights")
	}
	if err := c.CopyFrom(a); err != nil {
		t.Fatal(err)
	}
	for i, p := range a.Params() {
		if !slices.Equal(p.Value, c.Params()[i].Value) {
			t.Errorf("%s not copied", p.Name)
		}
	}
	// Equal parameters and equal dropout streams give equal outputs.
	rng := rand.New(rand.NewPCG(5, 6))
	cl := newTestClient(rng, 15, 20, 3)
	la, _ := a.Forward(cl.in, true, rand.New(rand.NewPCG(9, 9)))
	la = mat.DenseCopyOf(la)
	lc, _ := c.Forward(cl.in, true, rand.New(rand.NewPCG(9, 9)))
	if !mat.Equal(la, lc) {
		t.Error("copied model computes different logits")
	}
	plain, _ := NewModel(Config{InFeatures: 20, Hidden: 6, Classes: 3}, rng)
	if err := plain.CopyFrom(a); err == nil {
		t.Error("copy between different architectures succeeded")
	}
}

func TestModelEvalPruning(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	cl := newTestClient(rng, 12, 8, 3)
	m, _ := NewModel(Config{InFeatures: 8, Hidden: 5, Classes: 3, Masked: true, Kernel: true, Sigma: 1, Dropout: 0.5}, rng)
	eval := func() *mat.Dense {
		l, err := m.Forward(cl.in, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		return mat.DenseCopyOf(l)
	}
	train := func() *mat.Dense {
		m.layers[0].drop.P, m.layers[1].drop.P = 0, 0
		defer func() { m.layers[0].drop.P, m.layers[1].drop.P = 0.5, 0.5 }()
		l, err := m.Forward(cl.in, true, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return mat.DenseCopyOf(l)
	}
	if !mat.EqualApprox(eval(), train(), 1e-14) {
		t.Fatal("with all-one masks and no dropout, evaluation and training differ")
	}
	for _, name := range []string{"conv1.mask", "conv2.mask", "cls.mask"} {
		mask := m.Param(name).Value
		base := eval()
		old := mask[3]
		mask[3] = 5e-4 // below the threshold
		pruned, trained := eval(), train()
		mask[3] = 0
		zeroed := eval()
		mask[3] = old
		if mat.Equal(pruned, base) || !mat.Equal(pruned, zeroed) {
			t.Errorf("%s: an entry below %g is not treated as 0 in evaluation", name, MaskThreshold)
		}
		if mat.Equal(trained, zeroed) {
			t.Errorf("%s: training mode prunes", name)
		}
		if mask[3] != old {
			t.Errorf("%s: stored mask changed", name)
		}
	}
	// Dropout is off in evaluation: two evaluations agree.
	if !mat.Equal(eval(), eval()) {
		t.Error("evaluation is not deterministic")
	}
}

func TestModelErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 40))
	cl := newTestClient(rng, 12, 8, 3)
	bad := []Config{
		{InFeatures: 0, Hidden: 4, Classes: 3},
		{InFeatures: 8, Hidden: 4, Classes: 3, Dropout: 1},
		{InFeatures: 8, Hidden: 4, Classes: 3, Kernel: true, Sigma: 0},
		{InFeatures: 8, Hidden: 4, Classes: 3, Kernel: true, Sigma: 1, Score: 9},
	}
	for _, cfg := range bad {
		if _, err := NewModel(cfg, rng); err == nil {
			t.Errorf("NewModel(%+v) succeeded", cfg)
		}
	}
	m, _ := NewModel(Config{InFeatures: 8, Hidden: 4, Classes: 3, Masked: true, Kernel: true, Sigma: 1, Gauss: Dense{Budget: 8}}, rng)
	if _, err := m.Forward(cl.in, false, nil); err == nil {
		t.Error("a dense kernel over budget did not fail the forward pass")
	}
	m, _ = NewModel(Config{InFeatures: 9, Hidden: 4, Classes: 3, Dropout: 0.5}, rng)
	if _, err := m.Forward(cl.in, false, nil); err == nil {
		t.Error("a feature width mismatch was accepted")
	}
	m, _ = NewModel(Config{InFeatures: 8, Hidden: 4, Classes: 3, Dropout: 0.5}, rng)
	if _, err := m.Forward(cl.in, true, nil); err == nil {
		t.Error("training with dropout and no stream was accepted")
	}
	if _, err := m.Forward(Input{Prop: cl.in.Prop}, false, nil); err == nil {
		t.Error("empty features were accepted")
	}

	// Sparse features are checked the first time the model sees them:
	// after a good input, a malformed one and one with both forms are
	// still refused.
	for _, prec := range []Precision{F64, F32} {
		m, _ = NewModel(Config{InFeatures: 8, Hidden: 4, Classes: 3, Precision: prec}, rng)
		if _, err := m.Forward(cl.in, false, nil); err != nil {
			t.Fatal(err)
		}
		x := *cl.in.X.Sparse
		x.Indices = slices.Clone(x.Indices)
		x.Indices[len(x.Indices)-1] = 8
		if _, err := m.Forward(Input{Prop: cl.in.Prop, X: Features{Sparse: &x}}, false, nil); err == nil {
			t.Errorf("%v: a column index out of range was accepted after a good input", prec)
		}
		both := Input{Prop: cl.in.Prop, X: Features{Sparse: cl.in.X.Sparse, Dense: mat.NewDense(12, 8, nil)}}
		if _, err := m.Forward(both, false, nil); err == nil {
			t.Errorf("%v: features both sparse and dense were accepted after the sparse ones alone", prec)
		}
		if _, err := m.Forward(cl.in, false, nil); err != nil {
			t.Errorf("%v: the good input again: %v", prec, err)
		}
	}
}

func TestModelSigmaAndAccumulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	cl := newTestClient(rng, 12, 8, 3)
	m, _ := NewModel(Config{InFeatures: 8, Hidden: 5, Classes: 3, Masked: true, Kernel: true, Sigma: 1}, rng)
	l1, _ := m.Forward(cl.in, false, nil)
	l1 = mat.DenseCopyOf(l1)
	m.SetSigma(0.2)
	if m.Sigma() != 0.2 || m.Config().Sigma != 0.2 {
		t.Fatal("SetSigma")
	}
	l2, _ := m.Forward(cl.in, false, nil)
	if mat.Equal(l1, l2) {
		t.Error("sigma has no effect")
	}
	if len(m.Scores()) != 12 {
		t.Error("scores")
	}
	// Backward accumulates.
	g := mat.NewDense(12, 3, nil)
	SoftmaxCrossEntropy(l2, cl.labels, cl.train, g)
	m.ZeroGrad()
	m.Backward(g)
	once := slices.Clone(m.Param("conv1.weight").Grad)
	m.Backward(g)
	for i, v := range m.Param("conv1.weight").Grad {
		if math.Abs(v-2*once[i]) > 1e-15*max(1, math.Abs(v)) {
			t.Fatal("a second Backward does not add to the gradients")
		}
	}
}

func TestEmbedPreReLU(t *testing.T) {
	for _, layers := range []int{0, 1, 3} { // 0: the default two layers
		rng := rand.New(rand.NewPCG(43, 44))
		cl := newTestClient(rng, 12, 8, 3)
		m, err := NewModel(Config{InFeatures: 8, Hidden: 5, Classes: 3, Layers: layers, Masked: true, Kernel: true, Sigma: 1, Dropout: 0.5}, rng)
		if err != nil {
			t.Fatal(err)
		}
		last := layers
		if last == 0 {
			last = 2
		}
		perturbMask(rng, m.Param(fmt.Sprintf("conv%d.mask", last)))
		if _, err := m.Forward(cl.in, false, nil); err != nil {
			t.Fatal(err)
		}
		h := mat.DenseCopyOf(m.Embeddings())
		// A proxy graph of another size with dense N(0,1) features.
		proxy := Input{Prop: mustProp(randGraph(rng, 20, 0.1)), X: Features{Dense: randDense(rng, 20, 8, 1)}}
		e := m.EmbedPreReLU(proxy)
		if r, c := e.Dims(); r != 20 || c != 5 {
			t.Fatalf("L%d: proxy embedding is %dx%d, want 20x5", last, r, c)
		}
		if !slices.ContainsFunc(e.RawMatrix().Data, func(v float64) bool { return v < 0 }) {
			t.Errorf("L%d: no negative entry: not the pre-ReLU output", last)
		}
		// On the client's own graph, ReLU of it is the evaluation embedding.
		e = m.EmbedPreReLU(cl.in)
		if r, c := e.Dims(); r != 12 || c != 5 {
			t.Fatalf("L%d: embedding is %dx%d, want 12x5", last, r, c)
		}
		var relu ReLU
		if !mat.Equal(relu.Forward(e), h) {
			t.Errorf("L%d: relu(EmbedPreReLU) differs from the evaluation embeddings", last)
		}
		if !mat.Equal(m.Embeddings(), h) {
			t.Errorf("L%d: EmbedPreReLU changed the embeddings of the last forward", last)
		}
	}
}

func mustProp(adj *CSR) *Propagator {
	p, err := NewPropagator(adj)
	if err != nil {
		panic(err)
	}
	return p
}

// TestNewModelWithoutRNG checks that a model built with a nil rng draws
// nothing (weights, biases and the APV zero, masks one) and that
// CopyFrom then gives it another model's values to the bit, in the
// configurations of modelCases and with the hard head.
func TestNewModelWithoutRNG(t *testing.T) {
	cfgs := []Config{{Masked: true, Kernel: true, Hard: true, Score: Cosine, Sigma: 1}}
	for _, tc := range modelCases {
		cfgs = append(cfgs, tc.cfg)
	}
	for _, cfg := range cfgs {
		cfg.InFeatures, cfg.Hidden, cfg.Classes = 8, 5, 3
		blank, err := NewModel(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range blank.Params() {
			want := 0.0
			if strings.HasSuffix(p.Name, ".mask") {
				want = 1
			}
			for _, v := range p.Value {
				if math.Float64bits(v) != math.Float64bits(want) {
					t.Fatalf("%+v: %s holds %v, want %v everywhere", cfg, p.Name, v, want)
				}
			}
		}
		init, err := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if err := blank.CopyFrom(init); err != nil {
			t.Fatal(err)
		}
		for i, p := range blank.Params() {
			if !slices.Equal(p.Value, init.Params()[i].Value) {
				t.Errorf("%+v: %s differs from the model it was copied from", cfg, p.Name)
			}
		}
	}
}
