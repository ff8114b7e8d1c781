package presets

import (
	"context"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/internal/cputime"
	"github.com/fedaux/fedaux/internal/datadir"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// BenchmarkRoundPrecision is BenchmarkRound at both precisions, as
// sub-benchmarks prec=f64 and prec=f32 of one name, for
//
//	go test ./presets -run '^$' -bench RoundPrecision -count 10 > p.txt
//	benchstat -col /prec p.txt
func BenchmarkRoundPrecision(b *testing.B) {
	for _, c := range []struct {
		preset string
		algo   sim.Algorithm
	}{
		{"cora-10-ref", methods.FedAux},
		{"cora-10-ref", methods.FedAvg},
		{"computer-10", methods.FedAux},
	} {
		for _, prec := range []gnn.Precision{gnn.F64, gnn.F32} {
			b.Run(c.preset+"/"+string(c.algo)+"/prec="+prec.String(), func(b *testing.B) {
				dir := datadir.Dir(b)
				p, err := Get(c.preset)
				if err != nil {
					b.Fatal(err)
				}
				cfg := p.Config()
				cfg.Algo, cfg.Seed, cfg.Rounds, cfg.Precision = c.algo, 42, 1<<30, prec
				e, _, err := NewEngine(p, Env{DataDir: dir}, cfg, nil)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				if _, err := e.Step(ctx); err != nil { // warm-up
					b.Fatal(err)
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
}
