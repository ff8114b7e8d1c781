package methods

import (
	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// FedAux's two ablations (docs/method.md#ablations).
const (
	FedAvgMask sim.Algorithm = "fedavg_mask" // ablation ii: FedAux's client, uniform weights
	FedAuxHard sim.Algorithm = "fedaux_hard" // ablation i: the kernel replaced by sort + two 1-D convolutions
)

func ablationMethods() []sim.Method {
	return []sim.Method{
		{
			Name: FedAvgMask, Display: "FedAvg_mask", Float32: true,
			Describe: "ablation ii: FedAux client, uniform server weights (alpha = 0)",
			New: func(c *sim.Config) (sim.Strategy, error) {
				return fedAvgMask{variantOf(c)}, nil
			},
		},
		{
			Name: FedAuxHard, Display: "FedAux_hard", Uses: []string{"alpha", "partners"}, Float32: true,
			Describe: "ablation i: FedAux with the kernel replaced by sort by score + two 1-D convolutions",
			New: func(c *sim.Config) (sim.Strategy, error) {
				return fedAuxHard{variantOf(c)}, nil
			},
		},
	}
}

// fedAvgMask is ablation (ii): FedAux's client (masked GCN with the APV
// kernel) and uniform server weights, softmax(0 * S); the similarity S of
// -sim is still computed and reported beside the weights.
type fedAvgMask struct{ apvVariant }

func (fedAvgMask) Name() sim.Algorithm   { return FedAvgMask }
func (fedAvgMask) Model(cfg *gnn.Config) { cfg.Masked, cfg.Kernel = true, true }
func (f fedAvgMask) Mix(in *sim.RoundInput) sim.Mixing {
	s := in.Views[f.source]
	return sim.Mixing{W: sim.SoftmaxRows(s, 0), Similarity: s, Source: f.source}
}

// fedAuxHard is ablation (i) of the FedAux paper: the FedAux client and
// server, with the kernel aggregate replaced by a hard sort of the nodes
// by their APV score followed by two 1-D convolutions (see
// gnn.Config.Hard).
type fedAuxHard struct{ apvVariant }

func (fedAuxHard) Name() sim.Algorithm { return FedAuxHard }
func (fedAuxHard) Model(cfg *gnn.Config) {
	cfg.Masked, cfg.Kernel, cfg.Hard = true, true, true
}
func (f fedAuxHard) Mix(in *sim.RoundInput) sim.Mixing { return sim.SimilarityMixing(in, f.source) }
