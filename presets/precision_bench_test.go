package presets

import (
	"testing"

	"github.com/fedaux/fedaux/gnn"
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
				benchRounds(b, c.preset, 1, func(cfg *sim.Config) error {
					cfg.Algo, cfg.Precision = c.algo, prec
					return nil
				})
			})
		}
	}
}
