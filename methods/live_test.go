package methods_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// proxConfig is FedProx with two local epochs, so that mu matters (with
// one epoch FedProx is FedAvg whatever mu: see fedProx).
func proxConfig(mu string) sim.Config {
	c := methods.SmallConfig(methods.FedProx)
	c.Epochs = 2
	if err := c.Set("mu", mu); err != nil {
		panic(err)
	}
	return c
}

func newEngine(t *testing.T, c sim.Config) *sim.Engine {
	t.Helper()
	e, err := sim.New(c, methods.SmallData(t, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func step(t *testing.T, e *sim.Engine, n int) {
	t.Helper()
	for range n {
		if _, err := e.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLiveSettingIsTheConfigured checks that changing a live setting
// (FedProx's mu) before a round gives, from that round on, exactly the
// rounds of a run configured with the new value from the start: the
// rebuilt strategy is the one New builds, and the clients take its
// proximal term.
func TestLiveSettingIsTheConfigured(t *testing.T) {
	want := methods.Reports(methods.Run(t, proxConfig("0.5"), methods.SmallData(t, 7)))

	e := newEngine(t, proxConfig("0.01"))
	if err := e.SetKnob("mu", 0.5); err != nil {
		t.Fatal(err)
	}
	if got := e.Knobs().Value("mu"); got != 0.5 {
		t.Fatalf("Knobs().Value(mu) = %v after SetKnob, want 0.5", got)
	}
	step(t, e, 4)
	if got := methods.Reports(e); !reflect.DeepEqual(got, want) {
		t.Fatal("a run whose mu was set to 0.5 before round 1 differs from a run configured with mu = 0.5")
	}

	// Changed at round 3, the run follows mu = 0.01 up to round 2 and
	// differs from then on.
	base := methods.Reports(methods.Run(t, proxConfig("0.01"), methods.SmallData(t, 7)))
	e = newEngine(t, proxConfig("0.01"))
	step(t, e, 2)
	if err := e.SetKnob("mu", 0.5); err != nil {
		t.Fatal(err)
	}
	step(t, e, 2)
	got := methods.Reports(e)
	if !reflect.DeepEqual(got[:2], base[:2]) {
		t.Fatal("rounds before the change differ from the unchanged run's")
	}
	if reflect.DeepEqual(got[2:], base[2:]) {
		t.Fatal("mu = 0.5 from round 3 changed nothing")
	}
	if h := e.KnobHistory(); len(h) != 1 || h[0] != (sim.KnobChange{Round: 3, Name: "mu", From: 0.01, To: 0.5}) {
		t.Fatalf("knob history %+v, want mu 0.01 -> 0.5 from round 3", h)
	}
}

// TestLiveSettingSurvivesForkAndCheckpoint checks that a fork and a
// resumed checkpoint carry a changed live setting: their rounds are the
// original engine's, bit for bit.
func TestLiveSettingSurvivesForkAndCheckpoint(t *testing.T) {
	e := newEngine(t, proxConfig("0.01"))
	step(t, e, 1)
	if err := e.SetKnob("mu", 0.5); err != nil {
		t.Fatal(err)
	}
	step(t, e, 1)
	f, err := e.Fork(nil)
	if err != nil {
		t.Fatal(err)
	}
	resume := saved(t, e)
	step(t, e, 2)
	step(t, f, 2)
	if !reflect.DeepEqual(methods.Reports(f), methods.Reports(e)) {
		t.Fatal("the fork's rounds after a mu change differ from the engine's")
	}
	r := resume()
	if got := r.Knobs().Value("mu"); got != 0.5 {
		t.Fatalf("resumed with mu %v, want 0.5", got)
	}
	step(t, r, 2)
	if !reflect.DeepEqual(methods.Reports(r), methods.Reports(e)) {
		t.Fatal("the resumed engine's rounds after a mu change differ from the engine's")
	}
}

// TestLiveSettingRefusals checks what SetKnob and ParseKnob refuse.
func TestLiveSettingRefusals(t *testing.T) {
	if _, err := sim.ParseKnob("mu"); err != nil {
		t.Errorf("ParseKnob(mu): %v", err)
	}
	if _, err := sim.ParseKnob("fedgnn_expansion"); err == nil {
		t.Error("ParseKnob(fedgnn_expansion) accepted a setting that is not live")
	}
	e := newEngine(t, proxConfig("0.01"))
	for _, tc := range []struct {
		v    float64
		want string
	}{{-1, "a finite value >= 0"}} {
		err := e.SetKnob("mu", tc.v)
		var se *sim.SettingError
		if !errors.As(err, &se) || se.Key != "mu" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetKnob(mu, %v) = %v, want a SettingError for mu wanting %q", tc.v, err, tc.want)
		}
	}
	if !e.ReadsKnob("mu") {
		t.Error("fedprox does not read mu")
	}
	avg := newEngine(t, methods.SmallConfig("fedavg"))
	if avg.ReadsKnob("mu") {
		t.Error("fedavg reads mu")
	}
	err := avg.SetKnob("mu", 0.5)
	if err == nil || !strings.Contains(err.Error(), "a live setting of fedavg: none") {
		t.Errorf("SetKnob(mu) on fedavg = %v, want a refusal naming fedavg's live settings", err)
	}
	if len(avg.KnobHistory()) != 0 {
		t.Error("a refused change was recorded")
	}
}

// TestEveryLiveSetting checks, for every registered method and each of
// its live settings, that changing the setting before round 1 gives the
// rounds of a run configured with the new value, and that a change after
// round 2 survives a checkpoint: the resumed engine's rounds are the
// original's, bit for bit.
func TestEveryLiveSetting(t *testing.T) {
	n := 0
	for _, m := range sim.Methods() {
		for _, s := range sim.LiveSettings(m.Name) {
			n++
			t.Run(string(m.Name)+"/"+s.Key, func(t *testing.T) {
				base := methods.SmallConfig(m.Name)
				base.Epochs = 2
				def := base.Options.Float(s.Key)
				v := def*2 + 0.25
				if s.Type == sim.Int {
					v = def + 1
				}
				set := base
				if err := set.Set(s.Key, strconv.FormatFloat(v, 'g', -1, 64)); err != nil {
					t.Fatal(err)
				}
				want := methods.Reports(methods.Run(t, set, methods.SmallData(t, 7)))

				e := newEngine(t, base)
				if err := e.SetKnob(sim.Knob(s.Key), v); err != nil {
					t.Fatal(err)
				}
				step(t, e, 4)
				if !reflect.DeepEqual(methods.Reports(e), want) {
					t.Errorf("%s = %v set before round 1 differs from a run configured with it", s.Key, v)
				}

				e = newEngine(t, base)
				step(t, e, 2)
				if err := e.SetKnob(sim.Knob(s.Key), v); err != nil {
					t.Fatal(err)
				}
				resume := saved(t, e)
				step(t, e, 2)
				r := resume()
				step(t, r, 2)
				if !reflect.DeepEqual(methods.Reports(r), methods.Reports(e)) {
					t.Errorf("resumed after a change of %s, the rounds differ", s.Key)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no registered method has a live setting")
	}
}

// TestLiveSettingRollback: a round fails (a NaN gradient), the user
// changes mu before the engine rolls back, and the run goes on: its
// rounds are those of a run that changed mu before that round and never
// failed, bit for bit (the strategy rebuilt after the recomputation).
func TestLiveSettingRollback(t *testing.T) {
	run := func(fail bool) []sim.RoundReport {
		e := newEngine(t, proxConfig("0.01"))
		if err := e.SetRollback(true); err != nil {
			t.Fatal(err)
		}
		corrupt := false
		hooks := &sim.FaultHooks{Corrupt: func(round, client, epoch int, loss *float64, ps []*gnn.Param) {
			if corrupt && client >= 1 {
				ps[0].Grad[0] = math.NaN()
			}
		}}
		if err := e.SetFaults(sim.Faults{Hooks: hooks}); err != nil {
			t.Fatal(err)
		}
		if err := e.SetKnob("mu", 0.2); err != nil { // before round 2
			t.Fatal(err)
		}
		step(t, e, 2)
		if fail {
			corrupt = true
			if _, err := e.Step(context.Background()); err == nil {
				t.Fatal("round 3 did not fail")
			}
			corrupt = false
		}
		if err := e.SetKnob("mu", 0.5); err != nil {
			t.Fatal(err)
		}
		if fail {
			if _, _, err := e.Rollback(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		step(t, e, 2)
		return methods.Reports(e)
	}
	want, got := run(false), run(true)
	if !reflect.DeepEqual(got, want) {
		t.Error("after a failed round, a mu change and a rollback, the rounds differ from a run that never failed")
	}
}

// saved checkpoints e now and returns what resumes that checkpoint on
// the small federation.
func saved(t *testing.T, e *sim.Engine) (resume func() *sim.Engine) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ck.gob")
	if err := e.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	return func() *sim.Engine {
		t.Helper()
		ck, err := sim.LoadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ck.Resume(methods.SmallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}
