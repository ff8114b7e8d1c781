package sim_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestCanSwitch checks which algorithms a run may switch to: those whose
// client model is the run's, whatever their server does (package
// methods checks its methods).
func TestCanSwitch(t *testing.T) {
	for _, c := range []struct {
		from    sim.Algorithm
		ok, not []sim.Algorithm
	}{
		{methods.FedAux, []sim.Algorithm{methods.FedAux, methods.FedAvgMask, methods.Local}, []sim.Algorithm{methods.FedAvg, methods.GCFL, methods.FedPub, methods.FedSagePlus, methods.FedSageAPV, methods.FedGTAAPV}},
		{methods.FedAvg, []sim.Algorithm{methods.FedAvg, methods.GCFL, methods.FedGTA, methods.FedGNN}, []sim.Algorithm{methods.FedAux, methods.FedAvgMask, methods.Local, methods.FedPub, methods.FedSagePlus, methods.FedGTAAPV}},
		{methods.FedSagePlus, nil, []sim.Algorithm{methods.FedSagePlus, methods.FedAvg}},
	} {
		e, err := sim.New(sim.SmallConfig(c.from), sim.SmallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range c.ok {
			if err := e.CanSwitch(a); err != nil {
				t.Errorf("%s to %s: %v", c.from, a, err)
			}
		}
		for _, a := range c.not {
			if err := e.CanSwitch(a); err == nil {
				t.Errorf("%s to %s allowed; their client models differ", c.from, a)
			}
		}
		if err := e.CanSwitch("nope"); err == nil {
			t.Errorf("%s to an unknown algorithm allowed", c.from)
		}
	}
}

// TestForkAs forks a FedAux run after round 3 as FedAvg_mask: its rounds
// are those of an engine restored from the run's checkpoint with the other
// algorithm, and the run itself goes on as if never forked; its log holds
// the shared rounds, the algorithm line, then its rounds. A fork as Local
// (which shares no parameters) takes the server's pending messages at
// once: its clients' first round is FedAvg_mask's (the same start, the
// same training), their mixing none.
func TestForkAs(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := scenario{cfg: sim.SmallConfig(methods.FedAux), knobs: map[int]float64{2: 20}}
	s.cfg.Rounds = 6
	e := s.engine(t, 3, nil)
	s.runTo(t, e, 3)
	ckPath := filepath.Join(dir, "r3.ck")
	if err := e.SaveCheckpoint(ckPath); err != nil {
		t.Fatal(err)
	}
	log := openLog(t, filepath.Join(dir, "fork.jsonl"))
	f, err := e.ForkAs(log, methods.FedAvgMask)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := e.ForkAs(nil, methods.Local)
	if err != nil {
		t.Fatal(err)
	}
	if f.Config().Algo != methods.FedAvgMask || f.Strategy().Name() != methods.FedAvgMask || f.Round() != 3 {
		t.Fatalf("fork: algo %s, strategy %s, round %d", f.Config().Algo, f.Strategy().Name(), f.Round())
	}
	ck, err := sim.LoadCheckpoint(ckPath)
	if err != nil {
		t.Fatal(err)
	}
	ck.Config.Algo, ck.Strategy = methods.FedAvgMask, nil
	ref, err := ck.Resume(sim.SmallData(t, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	never := s.engine(t, 1, nil)
	s.runTo(t, never, 3)
	for r := 4; r <= 5; r++ {
		got, err := f.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d := sim.SameRound(got, want); d != "" {
			t.Errorf("round %d of the fork as fedavg_mask differs from the restored engine's: %s", r, d)
		}
		if got.Weights == nil || got.Weights[0][0] != got.Weights[0][1] {
			t.Errorf("round %d of the fork: weights %v, want FedAvg_mask's uniform weights", r, got.Weights)
		}
		a, err := e.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, err := never.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d := sim.SameRound(a, b); d != "" {
			t.Errorf("round %d of the forked run differs from a run never forked: %s", r, d)
		}
		l, err := loc.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r == 4 && !slices.Equal(l.Clients, got.Clients) {
			t.Errorf("round 4 of the fork as local: clients %+v, want those of the fork as fedavg_mask %+v (the same start)", l.Clients, got.Clients)
		}
		if r == 5 && slices.Equal(l.Clients, got.Clients) {
			t.Error("round 5 of the fork as local equals fedavg_mask's although local does not mix")
		}
		if l.Weights != nil {
			t.Errorf("round %d of the fork as local has weights", r)
		}
	}
	lines := logLines(t, log.Path())
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l["type"].(string))
	}
	want := []string{"run", "round", "control", "round", "round", "algorithm", "round", "round"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("fork's log: %v, want %v", kinds, want)
	}
	if a := lines[5]; a["round"] != 4.0 || a["from"] != "fedaux" || a["to"] != string(methods.FedAvgMask) {
		t.Errorf("algorithm line %v", a)
	}
	if _, err := e.ForkAs(nil, methods.FedAvg); err == nil {
		t.Error("fork as fedavg (another client model) allowed")
	}
}

// TestForkRollsBack forks a run with rollback on after round 3 (the
// same algorithm, and FedAvg_mask) and fails the fork's round 5: the
// fork rolls back to round 4 from the state it started from (the run
// kept none since round 1) and its round 5, run again, equals that of a
// fork that never failed.
func TestForkRollsBack(t *testing.T) {
	ctx := context.Background()
	for _, algo := range []sim.Algorithm{methods.FedAux, methods.FedAvgMask} {
		s := scenario{cfg: sim.SmallConfig(methods.FedAux)}
		s.cfg.Rounds = 8
		fork := func() *sim.Engine {
			e := s.engine(t, 2, nil)
			if err := e.SetRollback(true); err != nil {
				t.Fatal(err)
			}
			s.runTo(t, e, 3)
			f, err := e.ForkAs(nil, algo)
			if algo == methods.FedAux {
				f, err = e.Fork(nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		f, ref := fork(), fork()
		corrupt := false
		hooks := &sim.FaultHooks{Corrupt: func(round, client, epoch int, loss *float64, ps []*gnn.Param) {
			if corrupt && client == 1 {
				ps[0].Grad[0] = math.NaN()
			}
		}}
		if err := f.SetFaults(sim.Faults{Hooks: hooks}); err != nil {
			t.Fatal(err)
		}
		for r := 4; r <= 5; r++ {
			corrupt = r == 5
			if _, err := f.Step(ctx); (err != nil) != corrupt {
				t.Fatalf("%s: round %d: %v", algo, r, err)
			}
		}
		corrupt = false
		if n, re, err := f.Rollback(ctx); err != nil || n != 4 || re != 1 {
			t.Fatalf("%s: Rollback = %d, %d, %v; want 4, 1, nil", algo, n, re, err)
		}
		s.runTo(t, ref, 5)
		got, err := f.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d := sim.SameRound(got, ref.Reports()[4]); d != "" {
			t.Errorf("%s: round 5 after the rollback differs from a fork that never failed: %s", algo, d)
		}
	}
}
