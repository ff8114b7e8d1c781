package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"gonum.org/v1/gonum/mat"
)

func TestAcceptWeights(t *testing.T) {
	sim := [][]float64{
		{1, 0.9, 0.2, 0.6},
		{0.9, 1, 0.5, 0.4},
		{0.2, 0.5, 1, 0.7},
		{0.6, 0.4, 0.7, 1},
	}
	conf := []float64{1, 2, 3, 4}
	w := acceptWeights(sim, conf, 0.5)
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
	if w := acceptWeights(sim, conf, 1); !reflect.DeepEqual(w, [][]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}) {
		t.Errorf("eps 1: %v, want the identity", w)
	}
	// Confidences summing to 0 over S_k: uniform.
	w = acceptWeights(sim, []float64{0, 0, 5, 0}, 0.55)
	if want := []float64{1.0 / 3, 1.0 / 3, 0, 1.0 / 3}; !reflect.DeepEqual(w[0], want) {
		t.Errorf("zero confidences: row 0 %v, want %v", w[0], want)
	}
}

func TestMixedMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	const n, c, q = 7, 3, 4
	p := gnn.Softmax(mat.NewDense(n, c, func() []float64 {
		v := make([]float64, n*c)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}()))
	mean := make([]float64, c)
	for i := range n {
		for j := range c {
			mean[j] += p.At(i, j) / n
		}
	}
	raw := func(k, j int) (s float64) {
		for i := range n {
			s += math.Pow(p.At(i, j), float64(k)) / n
		}
		return s
	}
	central := func(k, j int) (s float64) {
		for i := range n {
			s += math.Pow(p.At(i, j)-mean[j], float64(k)) / n
		}
		return s
	}
	origin := mixedMoments(p, q, MomentsOrigin)
	hybrid := mixedMoments(p, q, MomentsHybrid)
	if len(origin) != q*c || len(hybrid) != 2*q*c {
		t.Fatalf("lengths %d, %d; want %d, %d", len(origin), len(hybrid), q*c, 2*q*c)
	}
	for k := 1; k <= q; k++ {
		for j := range c {
			i := (k-1)*c + j
			if math.Abs(origin[i]-raw(k, j)) > 1e-15 || hybrid[i] != origin[i] {
				t.Errorf("mu_%d[%d] = %v, %v; want %v", k, j, origin[i], hybrid[i], raw(k, j))
			}
			if got := hybrid[q*c+i]; math.Abs(got-central(k, j)) > 1e-15 {
				t.Errorf("kappa_%d[%d] = %v, want %v", k, j, got, central(k, j))
			}
		}
	}
}

func TestSmoothingConfidence(t *testing.T) {
	p := mat.NewDense(3, 4, []float64{
		0.25, 0.25, 0.25, 0.25,
		0, 1, 0, 0,
		0.5, 0.5, 0, 0,
	})
	deg := []float64{2, 3, 1}
	h := func(ps ...float64) (s float64) {
		for _, v := range ps {
			s += v * math.Log(v+1e-8)
		}
		return s
	}
	want := 2*(4/math.E+h(0.25, 0.25, 0.25, 0.25)) + 3*(4/math.E+h(1)) + 1*(4/math.E+h(0.5, 0.5))
	if got := smoothingConfidence(p, deg); math.Abs(got-want) > 1e-12 {
		t.Errorf("confidence %v, want %v", got, want)
	}
	if d := localDegrees([]int{0, 2, 3, 5}, []int{0, 1, 0, 1, 2}); !reflect.DeepEqual(d, []float64{1, 1, 1}) {
		t.Errorf("degrees without self loops %v, want [1 1 1]", d)
	}
}

// recorder is a strategy that records the updates it mixes.
type recorder struct {
	Strategy
	ups *[]*Update
}

func (r recorder) Mix(in *RoundInput) Mixing {
	*r.ups = in.Updates
	return r.Strategy.Mix(in)
}

// TestFedGTAEngine runs FedGTA: the clients send moments of the chosen
// type and length and a positive confidence, the report carries the
// moment view as the similarity the weights come from, and the weights
// are the accept-set weights of that view and the confidences.
func TestFedGTAEngine(t *testing.T) {
	for _, typ := range MomentTypes() {
		c := smallConfig(FedGTA)
		c.Rounds = 2
		setOpts(t, &c, "gta_moments", "3", "gta_type", string(typ), "gta_eps", "0.9")
		e, err := New(c, smallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		var ups []*Update
		e.strategy = recorder{e.strategy, &ups}
		rep, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		blocks := c.Options.Int("gta_moments")
		if typ == MomentsHybrid {
			blocks *= 2
		}
		var confs []float64
		for _, up := range ups {
			if n := len(up.Signatures[SourceMoments]); n != blocks*e.Data().NumClasses {
				t.Errorf("%s: %d moments, want %d", typ, n, blocks*e.Data().NumClasses)
			}
			if !(up.Weight > 0) {
				t.Errorf("%s: client %d confidence %v", typ, up.ID, up.Weight)
			}
			confs = append(confs, up.Weight)
		}
		mv := rep.Views[SourceMoments]
		if mv == nil || rep.WeightsFrom != SourceMoments || !reflect.DeepEqual(rep.Similarity, mv) {
			t.Fatalf("%s: the report does not derive its weights from the moment view", typ)
		}
		if m, ok := rep.Matrix(string(SourceMoments)); !ok || !m.SetWeights {
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

func TestFedGTASettings(t *testing.T) {
	c := DefaultConfig()
	if o := c.Options; o.Int("gta_moments") != 10 || o.String("gta_type") != string(MomentsHybrid) || o.Float("gta_eps") != 0.5 {
		t.Errorf("defaults q %d type %s eps %v, want OpenFGL's 10, hybrid, 0.5", o.Int("gta_moments"), o.String("gta_type"), o.Float("gta_eps"))
	}
	for key, val := range map[string]string{"gta_moments": "6", "gta_type": "origin", "gta_eps": "0.65"} {
		if err := c.Set(key, val); err != nil {
			t.Fatal(err)
		}
		if got, _ := c.Get(key); got != val {
			t.Errorf("%s = %s after setting %s", key, got, val)
		}
	}
	if err := c.Set("gta_type", "mean"); settingKey(err) != "gta_type" {
		t.Errorf("gta_type mean: %v", err)
	}
	for _, mod := range []struct {
		key string
		f   func(*Config)
	}{
		{"gta_moments", func(c *Config) { setOpts(t, c, "gta_moments", "-1") }},
		{"gta_eps", func(c *Config) { setOpts(t, c, "gta_eps", "NaN") }},
	} {
		c := DefaultConfig()
		mod.f(&c)
		if err := c.Validate(); settingKey(err) != mod.key {
			t.Errorf("Validate = %v, want a SettingError naming %s", err, mod.key)
		}
	}
	// A configuration from before FedGTA (an older checkpoint's, decoded
	// with the new fields zero) is valid and reads as the defaults.
	old := DefaultConfig()
	setOpts(t, &old, "gta_moments", "0")
	if err := old.Validate(); err != nil {
		t.Errorf("a configuration without FedGTA's settings: %v", err)
	}
	if q, _ := old.Get("gta_moments"); q != "10" {
		t.Errorf("gta_moments 0 reads %s, want the default 10", q)
	}
	if typ, _ := old.Get("gta_type"); typ != "hybrid" {
		t.Errorf("gta_type \"\" reads %q, want the default hybrid", typ)
	}
	c.Algo = "fedaux"
	a := c.Fingerprint()
	setOpts(t, &c, "gta_eps", "0.1")
	if c.Fingerprint() != a {
		t.Error("gta_eps changes fedaux's fingerprint")
	}
	c.Algo = FedGTA
	b := c.Fingerprint()
	setOpts(t, &c, "gta_eps", "0.2")
	if c.Fingerprint() == b {
		t.Error("gta_eps does not change fedgta's fingerprint")
	}
}
