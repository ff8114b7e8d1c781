package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestMinSigmaBothSides runs a round at MinSigma, which must succeed,
// and at the float64 just below it, which ValidateKnob refuses and which
// (forced past the check) fails with NaN gradients, on the kernel
// transforms of both kinds.
func TestMinSigmaBothSides(t *testing.T) {
	below := math.Nextafter(sim.MinSigma, 0)
	if err := sim.ValidateKnob(sim.KnobSigma, sim.MinSigma, 0); err != nil {
		t.Errorf("ValidateKnob(MinSigma = %v): %v", sim.MinSigma, err)
	}
	if err := sim.ValidateKnob(sim.KnobSigma, below, 0); err == nil {
		t.Errorf("ValidateKnob(%v) accepted a sigma below MinSigma", below)
	}
	if s := sim.FmtKnobLimit(sim.MinSigma); s != "1.055e-154" {
		t.Errorf("the limit prints as %s, want 1.055e-154", s)
	}
	for _, kernel := range []sim.Kernel{sim.KernelDense, sim.KernelFast} {
		for _, c := range []struct {
			sigma float64
			ok    bool
		}{{sim.MinSigma, true}, {below, false}, {1e-200, false}} {
			cfg := sim.SmallConfig(methods.FedAux)
			cfg.Kernel = kernel
			e, err := sim.New(cfg, sim.SmallData(t, 7), nil)
			if err != nil {
				t.Fatal(err)
			}
			e.SetSigma(c.sigma) // past SetKnob's check
			_, err = e.Step(context.Background())
			var nf *sim.NonFiniteError
			switch {
			case c.ok && err != nil:
				t.Errorf("%s, sigma %v: %v", kernel, c.sigma, err)
			case !c.ok && !errors.As(err, &nf):
				t.Errorf("%s, sigma %v: err = %v, want a NonFiniteError", kernel, c.sigma, err)
			}
		}
	}
}

// TestRollback fails a round of every checkpoint scenario (round 3,
// with the state kept at round 0, and round 13, with the state kept at
// round 10 and knob changes since): by a sigma below MinSigma, and by a
// NaN injected in clients' gradients after others have trained. It
// rolls back (twice for the second: the kept state must survive a
// rollback), sets a good sigma and goes on; the reports must be those of
// a run that set that sigma before the failed round and never failed,
// bit for bit.
func TestRollback(t *testing.T) {
	for _, sc := range scenarios() {
		for _, failAt := range []int{3, 13} {
			s := sc
			s.cfg.Rounds = 20
			s.knobs = map[int]float64{2: 20, 5: 1, 12: 4}
			t.Run(fmt.Sprintf("%s/round%d", s.name, failAt), func(t *testing.T) {
				run := func(fail string) []*sim.RoundReport {
					e := s.engine(t, 2, nil)
					if err := e.SetRollback(fail != ""); err != nil {
						t.Fatal(err)
					}
					corrupt := false
					hooks := &sim.FaultHooks{Corrupt: func(round, client, epoch int, loss *float64, ps []*gnn.Param) {
						if corrupt && client >= 1 {
							ps[0].Grad[0] = math.NaN()
						}
					}}
					if err := e.SetFaults(sim.Faults{Dropout: s.dropout, Hooks: hooks}); err != nil {
						t.Fatal(err)
					}
					s.runTo(t, e, failAt-1)
					for try := range 2 {
						if fail == "" {
							break
						}
						switch fail {
						case "sigma":
							e.SetSigma(1e-200)
						case "nan":
							corrupt = true
						}
						if _, err := e.Step(context.Background()); err == nil {
							t.Fatalf("%s: round %d did not fail", fail, failAt)
						}
						if _, err := e.Step(context.Background()); err == nil {
							t.Fatal("a stopped engine ran a round")
						}
						corrupt = false // the injected fault is gone; a knob would stay
						n, re, err := e.Rollback(context.Background())
						if want := (failAt - 1) % sim.RollbackEvery; err != nil || n != failAt-1 || re != want {
							t.Fatalf("try %d: Rollback = %d, %d, %v; want %d, %d, nil", try, n, re, err, failAt-1, want)
						}
						if _, _, err := e.Rollback(context.Background()); !errors.Is(err, sim.ErrNoRollback) {
							t.Errorf("a second Rollback: %v, want ErrNoRollback", err)
						}
						e.SetSigma(s.cfg.Sigma)
					}
					if err := e.SetKnob(sim.KnobSigma, 0.5); err != nil {
						t.Fatal(err)
					}
					s.runTo(t, e, failAt+2)
					return e.Reports()
				}
				want := run("")
				for _, fail := range []string{"sigma", "nan"} {
					if fail == "sigma" && !s.engine(t, 1, nil).ReadsKnob(sim.KnobSigma) {
						continue // the round would not fail
					}
					got := run(fail)
					for i := range want {
						a, b := reportJSON(t, got[i]), reportJSON(t, want[i])
						if a != b {
							t.Errorf("%s: round %d differs from the run that never failed:\n%.300s\n%.300s", fail, i+1, a, b)
							break
						}
					}
				}
			})
		}
	}
}

// reportJSON is a report as the log writes it, without its time.
func reportJSON(t *testing.T, r *sim.RoundReport) string {
	t.Helper()
	c := *r
	c.Seconds = 0
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRollbackOff checks that Rollback refuses without SetRollback.
func TestRollbackOff(t *testing.T) {
	e, err := sim.New(sim.SmallConfig(methods.FedAux), sim.SmallData(t, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	e.SetSigma(1e-200)
	if _, err := e.Step(context.Background()); err == nil {
		t.Fatal("round did not fail")
	}
	if _, _, err := e.Rollback(context.Background()); !errors.Is(err, sim.ErrNoRollback) {
		t.Errorf("Rollback without SetRollback: %v, want ErrNoRollback", err)
	}
}

// TestReadsKnob checks which algorithms read which knob.
func TestReadsKnob(t *testing.T) {
	for _, c := range []struct {
		algo                   sim.Algorithm
		alpha, sigma, partners bool
	}{
		{methods.FedAux, true, true, true},
		{methods.FedAvg, false, false, false},
		{methods.Local, false, true, false},
		{methods.GCFL, false, false, false},
	} {
		e, err := sim.New(sim.SmallConfig(c.algo), sim.SmallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		if a, s, p := e.ReadsKnob(sim.KnobAlpha), e.ReadsKnob(sim.KnobSigma), e.ReadsKnob(sim.KnobPartners); a != c.alpha || s != c.sigma || p != c.partners {
			t.Errorf("%s reads alpha %v sigma %v partners %v, want %v %v %v", c.algo, a, s, p, c.alpha, c.sigma, c.partners)
		}
	}
}

// TestFork forks an engine after round 3: with the same knobs the fork's
// rounds equal the original's bit for bit; with another alpha they
// differ, and the original's equal those of an engine never forked.
func TestFork(t *testing.T) {
	s := scenarios()[0]
	ref := s.engine(t, 2, nil)
	s.runTo(t, ref, 6)
	e := s.engine(t, 2, nil)
	s.runTo(t, e, 3)
	f, err := e.Fork(nil)
	if err != nil {
		t.Fatal(err)
	}
	s.runTo(t, e, 4)
	s.runTo(t, f, 4)
	if a, b := reportJSON(t, e.Reports()[3]), reportJSON(t, f.Reports()[3]); a != b {
		t.Fatalf("round 4 of the fork differs with the same knobs:\n%.200s\n%.200s", a, b)
	}
	if err := f.SetKnob(sim.KnobAlpha, 50); err != nil {
		t.Fatal(err)
	}
	s.runTo(t, e, 6)
	s.runTo(t, f, 6)
	if a, b := reportJSON(t, e.Reports()[5]), reportJSON(t, f.Reports()[5]); a == b {
		t.Error("round 6 of the fork with alpha 50 equals the original's")
	}
	for i := range 6 {
		if a, b := reportJSON(t, e.Reports()[i]), reportJSON(t, ref.Reports()[i]); a != b {
			t.Errorf("round %d of the forked engine differs from an engine never forked", i+1)
		}
	}
}

// TestFusedStepReportsAsChecked fails a round with NaN gradients (sigma
// below MinSigma) with the fused backward pass and step that clients
// take when nothing touches their gradients, and with the unfused
// sequence that a Corrupt hook (here one that changes nothing) forces:
// the two errors must name the same client, epoch, entry and value.
func TestFusedStepReportsAsChecked(t *testing.T) {
	for _, algo := range []sim.Algorithm{methods.FedAux, methods.FedPubAPV, methods.FedAvgMask} {
		var msgs []string
		for _, hooked := range []bool{false, true} {
			cfg := sim.SmallConfig(algo)
			data := sim.SmallData(t, 7)
			if data.Clients[0].Graph.Features == nil {
				t.Fatal("dense features: the first layer's step would not be fused")
			}
			e, err := sim.New(cfg, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if hooked {
				noop := func(round, client, epoch int, loss *float64, ps []*gnn.Param) {}
				if err := e.SetFaults(sim.Faults{Hooks: &sim.FaultHooks{Corrupt: noop}}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := e.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
			e.SetSigma(1e-200)
			_, err = e.Step(context.Background())
			var nf *sim.NonFiniteError
			if !errors.As(err, &nf) {
				t.Fatalf("%s, hooked %v: err = %v, want a NonFiniteError", algo, hooked, err)
			}
			msgs = append(msgs, fmt.Sprintf("%+v", *nf))
		}
		if msgs[0] != msgs[1] {
			t.Errorf("%s: fused step reports %s, unfused %s", algo, msgs[0], msgs[1])
		}
		t.Log(algo, msgs)
	}
}
