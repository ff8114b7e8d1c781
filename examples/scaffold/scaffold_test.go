package scaffold

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// smallData is a two-group SBM of 240 nodes in 8 clients.
func smallData(t testing.TB) *sim.Data {
	t.Helper()
	cfg := graphio.DefaultSBM()
	cfg.Nodes, cfg.Clients, cfg.Groups, cfg.Classes, cfg.Seed = 240, 8, 2, 3, 7
	cfg.IntraProb = []float64{0.2, 0.4}
	g, block, groups, err := graphio.GenerateSBM(cfg)
	if err != nil {
		t.Fatal(err)
	}
	roles, err := graphio.SplitSeeded(g.N(), 7, graphio.DefaultTrainFrac, graphio.DefaultTestFrac)
	if err != nil {
		t.Fatal(err)
	}
	clients, err := graphio.Partition(g, block, roles, cfg.Clients)
	if err != nil {
		t.Fatal(err)
	}
	return &sim.Data{Clients: clients, NumFeatures: g.NumFeatures(), NumClasses: g.NumClasses, Groups: groups}
}

func config(t testing.TB, algo sim.Algorithm, kv ...string) sim.Config {
	t.Helper()
	c := sim.DefaultConfig()
	c.Algo, c.Rounds, c.Hidden, c.Epochs = algo, 5, 16, 2
	for i := 0; i+1 < len(kv); i += 2 {
		if err := c.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// reports returns the engine's reports without their times.
func reports(e *sim.Engine) []sim.RoundReport {
	var out []sim.RoundReport
	for _, r := range e.Reports() {
		c := *r
		c.Seconds = 0
		out = append(out, c)
	}
	return out
}

func run(t testing.TB, c sim.Config, d *sim.Data) *sim.Engine {
	t.Helper()
	e, err := sim.New(c, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return e
}

func params(vals ...[]float64) []*gnn.Param {
	var ps []*gnn.Param
	for _, v := range vals {
		ps = append(ps, &gnn.Param{Value: slices.Clone(v), Grad: make([]float64, len(v))})
	}
	return ps
}

// TestGradientCorrection checks the client step's gradient g + s (c - c_k)
// and both control variate updates on hand-made values.
func TestGradientCorrection(t *testing.T) {
	x := [][]float64{{1, 2}, {3}}
	c := []float64{0.5, -1, 2}
	for _, grads := range []bool{false, true} {
		k := &Client{Scale: 0.5, Steps: 2, LR: 0.1, Gradients: grads, ck: []float64{0.25, 0.5, -1}}
		ps := params(x...)
		if err := k.Start(&sim.Message{Round: 3, Extra: c}, ps); err != nil {
			t.Fatal(err)
		}
		raw := [][]float64{{0.1, 0.2, 0.3}, {-0.3, 0, 0.6}}
		for _, g := range raw { // two local steps
			copy(ps[0].Grad, g[:2])
			copy(ps[1].Grad, g[2:])
			k.Gradient(ps)
			got := append(slices.Clone(ps[0].Grad), ps[1].Grad...)
			for j := range got {
				want := g[j] + 0.5*(c[j]-[]float64{0.25, 0.5, -1}[j])
				if math.Abs(got[j]-want) > 1e-15 {
					t.Errorf("gradients %v: corrected gradient %d = %v, want %v", grads, j, got[j], want)
				}
			}
		}
		y := []float64{0.9, 2.2, 2.5}
		ps[0].Value, ps[1].Value = y[:2], y[2:]
		up := &sim.Update{Shared: y}
		if err := k.Finish(up, ps); err != nil {
			t.Fatal(err)
		}
		ck0 := []float64{0.25, 0.5, -1}
		xs := []float64{1, 2, 3}
		for j := range y {
			want := ck0[j] - c[j] + (xs[j]-y[j])/(2*0.1) // option II
			if grads {
				want = (raw[0][j] + raw[1][j]) / 2
			}
			if math.Abs(k.ck[j]-want) > 1e-12 || math.Abs(up.Extra[j]-(want-ck0[j])) > 1e-12 {
				t.Errorf("gradients %v: c_k[%d] = %v, upload %v; want %v, %v", grads, j, k.ck[j], up.Extra[j], want, want-ck0[j])
			}
		}
	}
	// The server: c moves by the mean change over all N clients.
	s := &Strategy{}
	for i := range 4 {
		s.ClientHook(i)
	}
	m := s.Mix(&sim.RoundInput{Updates: []*sim.Update{{ClientMetrics: sim.ClientMetrics{ID: 0}, Extra: []float64{4, 8}}, {ClientMetrics: sim.ClientMetrics{ID: 2}, Extra: []float64{0, -4}}}})
	if !reflect.DeepEqual(s.c, []float64{1, 1}) || !reflect.DeepEqual(m.W, [][]float64{{0.5, 0.5}, {0.5, 0.5}}) {
		t.Errorf("server c %v, weights %v", s.c, m.W)
	}
}

// TestSettings checks that the method's settings are fedaux settings like
// the built-ins': listed, typed, and in scaffold's result key only.
func TestSettings(t *testing.T) {
	for _, key := range []string{ScaleKey, UpdateKey} {
		if !slices.Contains(sim.Settings(), key) || sim.Describe(key) == "" {
			t.Errorf("%s is not a described setting", key)
		}
	}
	if !slices.Contains(sim.NumericSettings(), ScaleKey) {
		t.Errorf("%s cannot be swept", ScaleKey)
	}
	if got := sim.AlgorithmSettings(Name); !slices.Equal(got, []string{ScaleKey, UpdateKey}) {
		t.Errorf("AlgorithmSettings = %v", got)
	}
	a, b := config(t, Name), config(t, Name, ScaleKey, "0.5")
	if a.Fingerprint() == b.Fingerprint() || !strings.Contains(b.Fingerprint(), ScaleKey+"=0.5") {
		t.Errorf("fingerprints %s, %s", a.Fingerprint(), b.Fingerprint())
	}
	a.Algo, b.Algo = methods.FedAvg, methods.FedAvg
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("scaffold's setting changes fedavg's result key")
	}
	if err := b.Set(ScaleKey, "-1"); err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), ScaleKey+" = -1, want a finite value >= 0") {
		t.Errorf("Validate = %v", err)
	}
	if err := b.Set(UpdateKey, "option1"); err == nil || !strings.Contains(err.Error(), "option2 or gradients") {
		t.Errorf("Set %s option1: %v", UpdateKey, err)
	}
	if Name.Display() != "SCAFFOLD" {
		t.Errorf("display name %q", Name.Display())
	}
}

// TestScaleZeroIsFedAvg: without the correction SCAFFOLD is FedAvg bit
// for bit; with it the run differs.
func TestScaleZeroIsFedAvg(t *testing.T) {
	d := smallData(t)
	fedavg := reports(run(t, config(t, methods.FedAvg), d))
	if got := reports(run(t, config(t, Name, ScaleKey, "0"), d)); !reflect.DeepEqual(got, fedavg) {
		t.Error("scaffold at scale 0 is not fedavg")
	}
	for _, u := range []string{UpdateOption2, UpdateGradients} {
		if got := reports(run(t, config(t, Name, UpdateKey, u), d)); reflect.DeepEqual(got, fedavg) {
			t.Errorf("%s: scaffold is fedavg", u)
		}
	}
}

// TestDeterministic: the same numbers with 1 and 4 workers, and with
// clients that miss rounds.
func TestDeterministic(t *testing.T) {
	d := smallData(t)
	var runs [][]sim.RoundReport
	for _, w := range []int{1, 4} {
		c := config(t, Name)
		c.Workers = w
		e, err := sim.New(c, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.SetFaults(sim.Faults{Dropout: 0.3}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, reports(e))
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Error("1 and 4 workers differ")
	}
}

// TestCheckpointResume: a run checkpointed after round 2, with its
// control variates non-zero, and resumed ends as the uninterrupted run.
func TestCheckpointResume(t *testing.T) {
	d := smallData(t)
	c := config(t, Name)
	want := reports(run(t, c, d))
	e, err := sim.New(c, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if s := e.Strategy().(*Strategy); !slices.ContainsFunc(s.c, func(v float64) bool { return v != 0 }) {
		t.Fatal("the server's control variate is zero after two rounds")
	}
	path := filepath.Join(t.TempDir(), "ck")
	if err := e.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	ck, err := sim.LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cs := range ck.Clients {
		if len(cs.Hook) <= 8 {
			t.Fatalf("client %d: no control variate in the checkpoint", cs.ID)
		}
	}
	r, err := ck.Resume(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(reports(r), want) {
		t.Error("the resumed run differs from the uninterrupted one")
	}
	if _, err := unmarshalFloats([]byte{0, 0, 0, 0, 0, 0, 0, 2, 1}); err == nil {
		t.Error("a truncated state reads")
	}
}
