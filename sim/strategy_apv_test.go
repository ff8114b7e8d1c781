package sim

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"
)

// TestAPVAcceptWeights checks FedGTA+APV's weights on a hand example, their
// support (the accept sets), the fallback when the confidences vanish,
// stability at a large alpha, and that alpha = 0 gives FedGTA's weights
// bit for bit.
func TestAPVAcceptWeights(t *testing.T) {
	accept := [][]float64{
		{1, 0.9, 0.1},
		{0.9, 1, 0.6},
		{0.1, 0.6, 1},
	}
	sim := [][]float64{
		{1, 0.5, -0.2},
		{0.5, 1, 0},
		{-0.2, 0, 1},
	}
	conf := []float64{1, 2, 3}
	const eps, alpha = 0.5, 2
	w := apvAcceptWeights(accept, sim, conf, eps, alpha)
	// Row 0: S = {0, 1}; weights proportional to 1 e^2 and 2 e^1.
	a, b := math.Exp(2), 2*math.Exp(1)
	want := [][]float64{
		{a / (a + b), b / (a + b), 0},
		nil,
		{0, 2 * math.Exp(0) / (2 + 3*math.Exp(2)), 3 * math.Exp(2) / (2 + 3*math.Exp(2))},
	}
	for _, i := range []int{0, 2} {
		for l := range want[i] {
			if math.Abs(w[i][l]-want[i][l]) > 1e-15 {
				t.Errorf("w[%d] = %v, want %v", i, w[i], want[i])
				break
			}
		}
	}
	for i, row := range w {
		var s float64
		for l, v := range row {
			s += v
			if in := l == i || accept[i][l] > eps; !in && v != 0 || in && !(v > 0) {
				t.Errorf("w[%d][%d] = %v with accept %v", i, l, v, accept[i][l])
			}
		}
		if math.Abs(s-1) > 1e-15 {
			t.Errorf("row %d sums to %v", i, s)
		}
	}
	for _, c := range [][]float64{conf, {0, 0, 0}, {0, 1.5, 0}} {
		if got, fedgta := apvAcceptWeights(accept, sim, c, eps, 0), acceptWeights(accept, c, eps); !reflect.DeepEqual(got, fedgta) {
			t.Errorf("conf %v, alpha 0: %v, FedGTA's %v", c, got, fedgta)
		}
	}
	zero := apvAcceptWeights(accept, sim, []float64{0, 0, 0}, eps, alpha)
	soft := softmaxRows([][]float64{{1, 0.5}}, alpha)[0]
	if math.Abs(zero[0][0]-soft[0]) > 1e-15 || math.Abs(zero[0][1]-soft[1]) > 1e-15 || zero[0][2] != 0 {
		t.Errorf("zero confidences: row 0 %v, want softmax over S_0 %v", zero[0], soft)
	}
	huge := apvAcceptWeights(accept, sim, conf, eps, 1e6)
	if huge[0][0] != 1 || huge[0][1] != 0 || huge[1][1] != 1 {
		t.Errorf("alpha 1e6: %v, want each client on itself", huge)
	}
}

// viewRecorder records the updates a strategy mixes, keeping its Uses.
type viewRecorder struct {
	recorder
	uses []Source
}

func (r viewRecorder) Uses() []Source { return r.uses }

// TestFedGTAAPVEngine runs FedGTA+APV with either accept set: the model
// has the APV head (no masks), everything travels, the clients still
// send moments and confidences, the report's similarity is the APV view,
// and the weights are apvAcceptWeights of the views, the confidences and
// the run's alpha; the two accept sets differ somewhere.
func TestFedGTAAPVEngine(t *testing.T) {
	var weights [][][]float64
	for _, acc := range GTAAccepts() {
		c := smallConfig(FedGTAAPV)
		c.Rounds, c.Alpha = 2, 3
		setOpts(t, &c, "gta_eps", "0.97", "gta_accept", string(acc))
		e, err := New(c, smallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		cl := e.runners[0].(*Client)
		if cfg := cl.model.Config(); cfg.Masked || !cfg.Kernel || len(cl.shared) != len(cl.model.Params()) {
			t.Fatalf("masked %v, kernel %v, %d of %d parameters shared", cfg.Masked, cfg.Kernel, len(cl.shared), len(cl.model.Params()))
		}
		var ups []*Update
		e.strategy = viewRecorder{recorder{e.strategy, &ups}, []Source{SourceAPV}}
		rep, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conf := make([]float64, len(ups))
		for i, up := range ups {
			if up.Signatures[SourceMoments] == nil || !(up.Weight > 0) {
				t.Fatalf("%s: client %d sent moments %v and confidence %v", acc, up.ID, up.Signatures[SourceMoments] != nil, up.Weight)
			}
			conf[i] = up.Weight
		}
		av, mv := rep.Views[SourceAPV], rep.Views[SourceMoments]
		if av == nil || mv == nil || rep.WeightsFrom != SourceAPV || !reflect.DeepEqual(rep.Similarity, av) {
			t.Fatalf("%s: views apv %v, moments %v; weights from %q", acc, av != nil, mv != nil, rep.WeightsFrom)
		}
		set := mv
		if acc == AcceptAPV {
			set = av
		}
		if !reflect.DeepEqual(rep.Weights, apvAcceptWeights(set, av, conf, c.Options.Float("gta_eps"), c.Alpha)) {
			t.Errorf("%s: weights are not apvAcceptWeights of the views", acc)
		}
		weights = append(weights, rep.Weights)
	}
	if reflect.DeepEqual(weights[0], weights[1]) {
		t.Error("gta_accept moments and apv gave the same weights")
	}
}

func apvSageConfig(genRounds, rounds int) Config {
	c := sageConfig(genRounds, rounds)
	c.Algo = FedSageAPV
	return c
}

// TestFedSageAPV runs two generator rounds and two mixing rounds of
// FedSage+APV: its clients start NeighGen, the hidden nodes and the
// classifier's first layer as FedSage+'s do at the same seed, its
// classifier carries the APV, the server does not mix before the
// generator phase's last round and mixes with softmax(alpha * APV cosine)
// from it on, and the live sigma reaches the head.
func TestFedSageAPV(t *testing.T) {
	plain := sageEngine(t, sageConfig(2, 4))
	e := sageEngine(t, apvSageConfig(2, 4))
	for i, r := range e.runners {
		a, p := r.(*sageClient), plain.runners[i].(*sageClient)
		if a.head == nil || a.head.Score.APV != a.cls.Params()[len(a.cls.Params())-1] {
			t.Fatalf("client %d: no APV head", i)
		}
		for j, q := range p.gen.net.Params() {
			if !slices.Equal(q.Value, a.gen.net.Params()[j].Value) {
				t.Errorf("client %d: NeighGen's %s starts unlike FedSage+'s", i, q.Name)
			}
		}
		if !slices.Equal(a.gen.keep, p.gen.keep) {
			t.Errorf("client %d: other hidden nodes than FedSage+'s", i)
		}
		if !slices.Equal(a.cls.Params()[0].Value, p.cls.Params()[0].Value) {
			t.Errorf("client %d: the classifier's first layer starts unlike FedSage+'s", i)
		}
	}
	if err := e.SetKnob(KnobSigma, 0.5); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for _, rep := range e.Reports() {
		av := rep.Views[SourceAPV]
		if av == nil {
			t.Fatalf("round %d: no APV view", rep.Round)
		}
		if rep.Round < 2 {
			if rep.Weights != nil || rep.Phase != PhaseNeighGen {
				t.Errorf("round %d: phase %q, weights %v", rep.Round, rep.Phase, rep.Weights != nil)
			}
			continue
		}
		if want := map[bool]string{true: PhaseNeighGen, false: PhaseAPVMix}[rep.Round <= 2]; rep.Phase != want {
			t.Errorf("round %d: phase %q, want %q", rep.Round, rep.Phase, want)
		}
		if !reflect.DeepEqual(rep.Weights, softmaxRows(av, rep.Alpha)) || rep.WeightsFrom != SourceAPV {
			t.Errorf("round %d: weights are not softmax(alpha * APV cosine)", rep.Round)
		}
		if rep.Weights[0][1] == rep.Weights[0][2] {
			t.Errorf("round %d: uniform weights %v", rep.Round, rep.Weights[0])
		}
	}
	sigmaRun := stripTimes(e.Reports())
	ref := stripTimes(runEngine(t, apvSageConfig(2, 4), smallData(t, 7)).Reports())
	if reflect.DeepEqual(sigmaRun[0].Clients, ref[0].Clients) {
		t.Error("sigma 0.5 gave the run of sigma 1: the knob does not reach the head")
	}
}

// TestFedSageAPVAlignment checks FedSage+APV's alignment and its control
// against a direct computation from the head's embeddings, with the APV
// after the round and the APV the head was built with.
func TestFedSageAPVAlignment(t *testing.T) {
	e := sageEngine(t, apvSageConfig(2, 4))
	e.Want(WantAlignment)
	var start [][]float64
	for _, r := range e.runners {
		start = append(start, slices.Clone(r.(*sageClient).head.Score.APV.Value))
	}
	for round := 1; round <= 3; round++ {
		rep, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range rep.Clients {
			if m.Alignment == nil || m.AlignmentInit == nil {
				t.Fatalf("round %d client %d: alignment %v, control %v", round, m.ID, m.Alignment, m.AlignmentInit)
			}
			h := e.runners[i].(*sageClient).head
			pc1 := leadingEigenvector(h.Hidden())
			if want := absCosine(h.Score.APV.Value, pc1); math.Abs(*m.Alignment-want) > 1e-9 {
				t.Errorf("round %d client %d: alignment %v, want %v", round, m.ID, *m.Alignment, want)
			}
			if want := absCosine(start[i], pc1); math.Abs(*m.AlignmentInit-want) > 1e-9 {
				t.Errorf("round %d client %d: control %v, want %v", round, m.ID, *m.AlignmentInit, want)
			}
		}
	}
}

// TestAPVVariantSettings checks the settings each variant reads (and so
// its result key), gta_accept's parsing and its place in the
// fingerprints.
func TestAPVVariantSettings(t *testing.T) {
	for algo, want := range map[Algorithm][]string{
		FedGTAAPV:  {"alpha", "gta_moments", "gta_type", "gta_eps", "gta_accept"},
		FedSageAPV: {"alpha", "partners", "gen_rounds", "gen_steps"},
	} {
		if got := AlgorithmSettings(algo); !slices.Equal(got, want) {
			t.Errorf("%s reads %v, want %v", algo, got, want)
		}
	}
	c := DefaultConfig()
	if err := c.Set("gta_accept", "apv"); err != nil || c.Options.String("gta_accept") != string(AcceptAPV) {
		t.Fatalf("gta_accept apv: %v, %q", err, c.Options.String("gta_accept"))
	}
	if err := c.Set("gta_accept", "labels"); settingKey(err) != "gta_accept" {
		t.Errorf("gta_accept labels: %v", err)
	}
	for _, algo := range []Algorithm{FedGTA, FedGTAAPV} {
		a, b := DefaultConfig(), DefaultConfig()
		a.Algo, b.Algo = algo, algo
		setOpts(t, &b, "gta_accept", string(AcceptAPV))
		if (a.Fingerprint() != b.Fingerprint()) != (algo == FedGTAAPV) {
			t.Errorf("%s: gta_accept changes the fingerprint: %v", algo, a.Fingerprint() != b.Fingerprint())
		}
	}
	var old Config // a configuration from before FedGTA+APV
	if a := old.Options.String("gta_accept"); a != string(AcceptMoments) {
		t.Errorf("no gta_accept reads as %q", a)
	}
}
