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
// ($FEDAUX_DATA or ../shared/data) and is skipped without it.
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
			dir := datadir.Dir(b)
			p, err := Get(c.preset)
			if err != nil {
				b.Fatal(err)
			}
			cfg := p.Config()
			cfg.Algo, cfg.Seed, cfg.Rounds = c.algo, 42, 1<<30
			warm := 1
			if c.algo == methods.FedSagePlus {
				if err := cfg.Set("gen_rounds", "2"); err != nil {
					b.Fatal(err)
				}
				warm += 2
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
		})
	}
}

// BenchmarkGenRound times one round of FedSage+'s generator phase (every
// client's NeighGen and classifier step, each answering every other
// client's request) on the real data, seed 42, after six warm-up rounds:
// the generators of the first rounds predict few missing neighbours, and
// a round grows with the neighbours they generate.
// Its cost grows with the square of the number of clients. It needs the
// data directory, as BenchmarkRound, and a few GiB (cora-20 holds 20
// generators of 177 MB each).
func BenchmarkGenRound(b *testing.B) {
	for _, preset := range []string{"cora-10-ref", "cora-20"} {
		b.Run(preset+"/"+string(methods.FedSagePlus), func(b *testing.B) {
			dir := datadir.Dir(b)
			p, err := Get(preset)
			if err != nil {
				b.Fatal(err)
			}
			cfg := p.Config()
			cfg.Algo, cfg.Seed, cfg.Rounds = methods.FedSagePlus, 42, 1<<30
			if err := cfg.Set("gen_rounds", "1000000"); err != nil {
				b.Fatal(err)
			}
			e, _, err := NewEngine(p, Env{DataDir: dir}, cfg, nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for range 6 {
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
		})
	}
}
