package presets

import (
	"context"
	"testing"

	"github.com/fedaux/fedaux/internal/cputime"
	"github.com/fedaux/fedaux/internal/datadir"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// BenchmarkRound times one communication round (local training of every
// client, mixing and evaluation) of a preset on the real data, seed 42,
// after one warm-up round (FedSage+: after its generator phase, cut to 2
// rounds, and the round that mends the graphs, so that what is timed is a
// round of its federated phase). It needs the data directory
// (the tests' data directory, internal/datadir) and is skipped without it.
func BenchmarkRound(b *testing.B) {
	for _, c := range []struct {
		preset string
		algo   sim.Algorithm
	}{
		{"cora-10-ref", methods.FedAux},
		{"computer-10", methods.FedAux},
		{"computer-10", methods.FedAuxHard},
		{"cora-10-ref", methods.FedSagePlus},
		{"computer-10", methods.FedSagePlus},
	} {
		b.Run(c.preset+"/"+string(c.algo), func(b *testing.B) {
			warm := 1
			if c.algo == methods.FedSagePlus {
				warm += 2
			}
			benchRounds(b, c.preset, warm, func(cfg *sim.Config) error {
				cfg.Algo = c.algo
				if c.algo == methods.FedSagePlus {
					return cfg.Set("gen_rounds", "2")
				}
				return nil
			})
		})
	}
}

// BenchmarkGenRound times one round of FedSage+'s generator phase (every
// client's NeighGen and classifier step, each answering every other
// client's request) on the real data, seed 42, after six warm-up rounds:
// the generators of the first rounds predict few missing neighbours, and
// a round grows with the neighbours they generate. Its cost grows with
// the square of the number of clients. It needs the data directory, as
// BenchmarkRound, and a few GiB (cora-20 holds 20 generators of 177 MB
// each).
func BenchmarkGenRound(b *testing.B) {
	for _, preset := range []string{"cora-10-ref", "cora-20"} {
		b.Run(preset+"/"+string(methods.FedSagePlus), func(b *testing.B) {
			benchRounds(b, preset, 6, func(cfg *sim.Config) error {
				cfg.Algo = methods.FedSagePlus
				return cfg.Set("gen_rounds", "1000000")
			})
		})
	}
}

// benchRounds times the rounds of preset's engine, seed 42, with the
// preset's configuration changed by set, after warm rounds: wall time,
// and CPU time beside it (internal/cputime).
func benchRounds(b *testing.B, preset string, warm int, set func(*sim.Config) error) {
	b.Helper()
	dir := datadir.Dir(b)
	p, err := Get(preset)
	if err != nil {
		b.Fatal(err)
	}
	cfg := p.Config()
	cfg.Seed, cfg.Rounds = 42, 1<<30
	if err := set(&cfg); err != nil {
		b.Fatal(err)
	}
	e, _, err := NewEngine(p, Env{DataDir: dir}, cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for range warm {
		if _, err := e.Step(ctx); err != nil {
			b.Fatal(err)
		}
	}
	stop := cputime.Start(b)
	for b.Loop() {
		if _, err := e.Step(ctx); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}
