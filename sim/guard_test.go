package sim_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// badMix is a test method: FedAvg whose Mix spoils its matrix as mode
// says, or whose clients panic.
type badMix struct {
	sim.Strategy // FedAvg's
	mode         string
}

func (*badMix) Name() sim.Algorithm { return "badmix" }
func (b *badMix) Mix(in *sim.RoundInput) sim.Mixing {
	m := b.Strategy.Mix(in)
	k := len(m.W)
	switch b.mode {
	case "double":
		for _, row := range m.W {
			for j := range row {
				row[j] *= 2
			}
		}
	case "negative":
		m.W[0][0], m.W[0][1] = m.W[0][0]+1, m.W[0][1]-1
	case "nan":
		m.W[1][2] = math.NaN()
	case "short":
		m.W = m.W[:k-1]
	case "longrow":
		m.W[0] = append(m.W[0], 0)
	case "similarity":
		m.Similarity = [][]float64{{1}}
	case "clusters":
		m.Clusters = [][]int{{0, k}}
	case "panic":
		var v []int
		_ = v[k] // index out of range
	}
	return m
}
func (b *badMix) ClientHook(int) sim.ClientHook {
	if b.mode == "clientpanic" {
		return panicHook{}
	}
	return nil
}

type panicHook struct{}

func (panicHook) Start(*sim.Message, []*gnn.Param) error { panic("hook broke") }
func (panicHook) Gradient([]*gnn.Param)                  {}
func (panicHook) Finish(*sim.Update, []*gnn.Param) error { return nil }

// TestMixingChecked runs strategies that return a broken Mixing or panic:
// the engine stops the round with an error that names the strategy and
// what is wrong, instead of mixing with it or crashing the program.
func TestMixingChecked(t *testing.T) {
	register(t, sim.Method{Name: "badmix", Describe: "FedAvg with a broken Mix (tests)",
		Settings: []sim.Setting{{Key: "badmix_mode", Type: sim.Choice, Default: "none",
			Choices: []string{"none", "double", "negative", "nan", "short", "longrow", "similarity", "clusters", "panic", "clientpanic"},
			Doc:     "badmix: how Mix or the clients break"}},
		New: func(c *sim.Config) (sim.Strategy, error) {
			avg, err := newOf(methods.FedAvg)(c)
			return &badMix{Strategy: avg, mode: c.Options.String("badmix_mode")}, err
		}})
	d := sim.SmallData(t, 3)
	for _, c := range []struct{ mode, want string }{
		{"none", ""},
		{"double", "strategy badmix: its Mixing.W's row 0 sums to 2, want 1"},
		{"negative", "strategy badmix: its Mixing.W[0][1] = -"},
		{"nan", "strategy badmix: its Mixing.W[1][2] = NaN, want a finite weight >= 0"},
		{"short", "strategy badmix: its Mixing.W has 7 rows, want 8 (one per client present)"},
		{"longrow", "strategy badmix: its Mixing.W's row 0 has 9 entries, want 8"},
		{"similarity", "strategy badmix: its Mixing.Similarity has 1 rows, want 8"},
		{"clusters", "strategy badmix: its Mixing.Clusters[0] holds position 8, want one in [0, 8)"},
		{"panic", "sim: round 1: the server: panic: runtime error: index out of range [8]"},
		{"clientpanic", "sim: round 1: client "},
	} {
		cfg := sim.SmallConfig("badmix")
		cfg.Rounds = 2
		sim.SetOpts(t, &cfg, "badmix_mode", c.mode)
		e, err := sim.New(cfg, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Run(context.Background(), nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.mode, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want it to say %q", c.mode, err, c.want)
		case c.want == "":
			continue
		}
		if len(e.Reports()) != 0 {
			t.Errorf("%s: %d rounds reported after a broken first round", c.mode, len(e.Reports()))
		}
		var pe *sim.PanicError
		if strings.HasSuffix(c.mode, "panic") != errors.As(err, &pe) {
			t.Errorf("%s: errors.As(*PanicError) = %v", c.mode, !strings.HasSuffix(c.mode, "panic"))
		}
		if c.mode == "clientpanic" && (pe == nil || pe.Value != "hook broke" || !strings.Contains(err.Error(), "panic: hook broke")) {
			t.Errorf("clientpanic: %v", err)
		}
		if _, err := e.Step(context.Background()); err == nil || !strings.Contains(err.Error(), "engine stopped after an error") {
			t.Errorf("%s: a step after the broken round: %v", c.mode, err)
		}
	}
}

// plainPtr and sliceVal are FedAvg with no state of their own, the first
// returned as a pointer, the second holding a slice.
type plainPtr struct {
	sim.Strategy
	k int
}
type sliceVal struct {
	sent []float64
	sim.Strategy
}

// TestKeepsStateSaysWhy checks that the refusal of a rollback or a
// checkpoint of a strategy that may keep state says why it may (a
// pointer, a field holding a reference) and what to do.
func TestKeepsStateSaysWhy(t *testing.T) {
	d := sim.SmallData(t, 3)
	avg, _ := newOf(methods.FedAvg)(&sim.Config{})
	for _, c := range []struct {
		st   sim.Strategy
		want string
	}{
		{&plainPtr{Strategy: avg, k: 1}, "it is a pointer, *sim_test.plainPtr, whose methods may change it"},
		{sliceVal{Strategy: avg, sent: []float64{1}}, "its field sent holds a reference (slice)"},
	} {
		register(t, sim.Method{Name: "stateless", Describe: "FedAvg (tests)",
			New: func(*sim.Config) (sim.Strategy, error) { return c.st, nil }})
		e, err := sim.New(sim.SmallConfig("stateless"), d, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = e.SetRollback(true)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "not &T{...}") {
			t.Errorf("%T: SetRollback: %v, want it to say %q and what to do", c.st, err, c.want)
		}
		err = e.SaveCheckpoint(t.TempDir() + "/ck")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: SaveCheckpoint: %v, want it to say %q", c.st, err, c.want)
		}
		sim.Unregister("stateless")
	}
}

// viewer is FedAvg whose Mix says it reads the views of uses.
type viewer struct {
	sim.Strategy
	uses []sim.Source
}

func (v viewer) Uses() []sim.Source { return v.uses }

// TestUsesCheckedAtNew checks that a strategy asking for a view its
// clients cannot give is refused when the engine is built: Mix would
// otherwise find no such view in RoundInput.Views, round after round.
func TestUsesCheckedAtNew(t *testing.T) {
	d := sim.SmallData(t, 3)
	avg, _ := newOf(methods.FedAvg)(&sim.Config{})
	for _, c := range []struct {
		uses []sim.Source
		want string
	}{
		{[]sim.Source{sim.SourceFunctional, sim.SourcePC1}, ""},
		{[]sim.Source{sim.SourceUpdate}, `uses the view "update", which its clients cannot give (they give pc1, readout, functional); its clients give it with ClientSide{Update: true}`},
		{[]sim.Source{sim.SourceMoments}, `"moments", which its clients cannot give`},
		{[]sim.Source{sim.SourceAPV}, "only the APV head gives it"},
		{[]sim.Source{"bogus"}, `uses the view "bogus"`},
	} {
		register(t, sim.Method{Name: "viewer", Describe: "FedAvg reading views (tests)",
			New: func(*sim.Config) (sim.Strategy, error) { return viewer{Strategy: avg, uses: c.uses}, nil }})
		_, err := sim.New(sim.SmallConfig("viewer"), d, nil)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Uses %v: New: %v, want %q", c.uses, err, c.want)
		}
		sim.Unregister("viewer")
	}
}

// TestCheckpointable checks that Checkpointable says, before any round,
// what SaveCheckpoint would refuse, and nil for a strategy it saves.
func TestCheckpointable(t *testing.T) {
	d := sim.SmallData(t, 3)
	avg, _ := newOf(methods.FedAvg)(&sim.Config{})
	register(t, sim.Method{Name: "ptrmethod", Describe: "FedAvg as a pointer (tests)",
		New: func(*sim.Config) (sim.Strategy, error) { return &plainPtr{Strategy: avg}, nil }})
	for algo, want := range map[sim.Algorithm]string{
		methods.FedAvg: "",
		methods.GCFL:   "", // a pointer, Stateful
		"ptrmethod":    "sim: strategy ptrmethod may keep state across rounds (it is a pointer",
	} {
		e, err := sim.New(sim.SmallConfig(algo), d, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = e.Checkpointable()
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: Checkpointable: %v, want %q", algo, err, want)
		}
		if save := e.SaveCheckpoint(t.TempDir() + "/ck"); (save == nil) != (err == nil) {
			t.Errorf("%s: Checkpointable %v but SaveCheckpoint %v", algo, err, save)
		}
	}
}

// TestCancelledBeforeStep: a context cancelled before a round starts
// returns its error without stopping the engine (no client ran), so the
// next Step runs the round.
func TestCancelledBeforeStep(t *testing.T) {
	e, err := sim.New(sim.SmallConfig(methods.FedAvg), sim.SmallData(t, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Step(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Step with a cancelled context: %v", err)
	}
	if rep, err := e.Step(context.Background()); err != nil || rep.Round != 1 {
		t.Errorf("the Step after: %v", err)
	}
}
