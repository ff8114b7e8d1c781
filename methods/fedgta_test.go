package methods

import (
	"context"
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

func TestAcceptWeights(t *testing.T) {
	cos := [][]float64{
		{1, 0.9, 0.2, 0.6},
		{0.9, 1, 0.5, 0.4},
		{0.2, 0.5, 1, 0.7},
		{0.6, 0.4, 0.7, 1},
	}
	conf := []float64{1, 2, 3, 4}
	w := acceptWeights(cos, conf, 0.5)
	want := [][]float64{
		{1.0 / 7, 2.0 / 7, 0, 4.0 / 7}, // S_0 = {0, 1, 3}
		{1.0 / 3, 2.0 / 3, 0, 0},       // 0.5 is not above eps
		{0, 0, 3.0 / 7, 4.0 / 7},
		{1.0 / 8, 0, 3.0 / 8, 4.0 / 8},
	}
	for k := range want {
		for l := range want[k] {
			if math.Abs(w[k][l]-want[k][l]) > 1e-15 {
				t.Errorf("eps 0.5: w[%d][%d] = %v, want %v", k, l, w[k][l], want[k][l])
			}
		}
	}
	// eps above every cosine: each client keeps its own model.
	if w := acceptWeights(cos, conf, 1); !reflect.DeepEqual(w, [][]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}) {
		t.Errorf("eps 1: %v, want the identity", w)
	}
	// Confidences summing to 0 over S_k: uniform.
	w = acceptWeights(cos, []float64{0, 0, 5, 0}, 0.55)
	if want := []float64{1.0 / 3, 1.0 / 3, 0, 1.0 / 3}; !reflect.DeepEqual(w[0], want) {
		t.Errorf("zero confidences: row 0 %v, want %v", w[0], want)
	}
}

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
	cos := [][]float64{
		{1, 0.5, -0.2},
		{0.5, 1, 0},
		{-0.2, 0, 1},
	}
	conf := []float64{1, 2, 3}
	const eps, alpha = 0.5, 2
	w := apvAcceptWeights(accept, cos, conf, eps, alpha)
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
		if got, fedgta := apvAcceptWeights(accept, cos, c, eps, 0), acceptWeights(accept, c, eps); !reflect.DeepEqual(got, fedgta) {
			t.Errorf("conf %v, alpha 0: %v, FedGTA's %v", c, got, fedgta)
		}
	}
	zero := apvAcceptWeights(accept, cos, []float64{0, 0, 0}, eps, alpha)
	soft := sim.SoftmaxRows([][]float64{{1, 0.5}}, alpha)[0]
	if math.Abs(zero[0][0]-soft[0]) > 1e-15 || math.Abs(zero[0][1]-soft[1]) > 1e-15 || zero[0][2] != 0 {
		t.Errorf("zero confidences: row 0 %v, want softmax over S_0 %v", zero[0], soft)
	}
	huge := apvAcceptWeights(accept, cos, conf, eps, 1e6)
	if huge[0][0] != 1 || huge[0][1] != 0 || huge[1][1] != 1 {
		t.Errorf("alpha 1e6: %v, want each client on itself", huge)
	}
}

// gtaRecorder is FedGTA recording the updates it mixes.
type gtaRecorder struct {
	fedGTA
	ups []*sim.Update
}

func (r *gtaRecorder) Mix(in *sim.RoundInput) sim.Mixing {
	r.ups = in.Updates
	return r.fedGTA.Mix(in)
}

// gtaAPVRecorder is FedGTA+APV recording the updates it mixes.
type gtaAPVRecorder struct {
	fedGTAAPV
	ups []*sim.Update
}

func (r *gtaAPVRecorder) Mix(in *sim.RoundInput) sim.Mixing {
	r.ups = in.Updates
	return r.fedGTAAPV.Mix(in)
}

// The recording methods, registered once for the tests.
const (
	recordedGTA    sim.Algorithm = "test_fedgta_recorded"
	recordedGTAAPV sim.Algorithm = "test_fedgta_apv_recorded"
)

var registerRecorders = sync.OnceFunc(func() {
	sim.Register(sim.Method{Name: recordedGTA, Describe: "FedGTA, recording its updates (tests)",
		New: func(c *sim.Config) (sim.Strategy, error) { return &gtaRecorder{fedGTA: newFedGTA(c)}, nil }})
	sim.Register(sim.Method{Name: recordedGTAAPV, Describe: "FedGTA+APV, recording its updates (tests)", Uses: []string{"alpha"},
		New: func(c *sim.Config) (sim.Strategy, error) { return &gtaAPVRecorder{fedGTAAPV: newFedGTAAPV(c)}, nil }})
})

// TestFedGTAEngine runs FedGTA: the clients send moments of the chosen
// type and length and a positive confidence, the report carries the
// moment view as the similarity the weights come from, and the weights
// are the accept-set weights of that view and the confidences.
func TestFedGTAEngine(t *testing.T) {
	registerRecorders()
	for _, typ := range sim.MomentTypes() {
		c := smallConfig(recordedGTA)
		c.Rounds = 2
		set(t, &c, "gta_moments", "3", "gta_type", string(typ), "gta_eps", "0.9")
		e, err := sim.New(c, smallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ups := e.Strategy().(*gtaRecorder).ups
		blocks := c.Options.Int("gta_moments")
		if typ == sim.MomentsHybrid {
			blocks *= 2
		}
		var confs []float64
		for _, up := range ups {
			if n := len(up.Signatures[sim.SourceMoments]); n != blocks*e.Data().NumClasses {
				t.Errorf("%s: %d moments, want %d", typ, n, blocks*e.Data().NumClasses)
			}
			if !(up.Weight > 0) {
				t.Errorf("%s: client %d confidence %v", typ, up.ID, up.Weight)
			}
			confs = append(confs, up.Weight)
		}
		mv := rep.Views[sim.SourceMoments]
		if mv == nil || rep.WeightsFrom != sim.SourceMoments || !reflect.DeepEqual(rep.Similarity, mv) {
			t.Fatalf("%s: the report does not derive its weights from the moment view", typ)
		}
		if m, ok := rep.Matrix(string(sim.SourceMoments)); !ok || !m.SetWeights {
			t.Errorf("%s: no moments matrix marked as setting the weights", typ)
		}
		if !reflect.DeepEqual(rep.Weights, acceptWeights(mv, confs, c.Options.Float("gta_eps"))) {
			t.Errorf("%s: weights are not the accept-set weights of the moment view", typ)
		}
		var outside int
		for k := range mv {
			for l := range mv {
				if !(mv[k][l] > c.Options.Float("gta_eps")) {
					outside++
				}
			}
		}
		t.Logf("%s: %d of %d pairs outside the accept sets", typ, outside, len(mv)*len(mv))
	}
}

// TestFedGTAAPVEngine runs FedGTA+APV with either accept set: the model
// has the APV head (no masks), everything travels, the clients still
// send moments and confidences, the report's similarity is the APV view,
// and the weights are apvAcceptWeights of the views, the confidences and
// the run's alpha; the two accept sets differ somewhere.
func TestFedGTAAPVEngine(t *testing.T) {
	registerRecorders()
	var weights [][][]float64
	for _, acc := range []gtaAccept{acceptMoments, acceptAPV} {
		c := smallConfig(recordedGTAAPV)
		c.Rounds, c.Alpha = 2, 3
		set(t, &c, "gta_eps", "0.97", "gta_accept", string(acc))
		e, err := sim.New(c, smallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ups := e.Strategy().(*gtaAPVRecorder).ups
		conf := make([]float64, len(ups))
		for i, up := range ups {
			if up.Signatures[sim.SourceMoments] == nil || !(up.Weight > 0) {
				t.Fatalf("%s: client %d sent moments %v and confidence %v", acc, up.ID, up.Signatures[sim.SourceMoments] != nil, up.Weight)
			}
			conf[i] = up.Weight
		}
		av, mv := rep.Views[sim.SourceAPV], rep.Views[sim.SourceMoments]
		if av == nil || mv == nil || rep.WeightsFrom != sim.SourceAPV || !reflect.DeepEqual(rep.Similarity, av) {
			t.Fatalf("%s: views apv %v, moments %v; weights from %q", acc, av != nil, mv != nil, rep.WeightsFrom)
		}
		set := mv
		if acc == acceptAPV {
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
