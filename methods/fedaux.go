package methods

import (
	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// FedAux is the paper's method (Eq. 3, 4, 6): masked GCN + APV kernel,
// mixed by softmax(alpha * APV cosine).
const FedAux sim.Algorithm = "fedaux"

func fedAuxMethods() []sim.Method {
	return []sim.Method{
		{Name: FedAux, Display: "FedAux", Uses: []string{"alpha", "partners"}, Float32: true,
			Describe: "FedAux: masked GCN + APV kernel; server mixes by softmax(alpha * APV cosine) (Eq. 3, 4, 6)",
			New: func(c *sim.Config) (sim.Strategy, error) {
				return fedAux{variantOf(c)}, nil
			}},
	}
}

// fedAux mixes every non-mask parameter (the APV too when apvMix) with
// weights softmax(alpha * sim(k, l)) over l, sim the cosine of the chosen
// signature (Eq. 3, 4, 6; the paper's signature is the APV).
type fedAux struct{ apvVariant }

func (fedAux) Name() sim.Algorithm                 { return FedAux }
func (fedAux) Model(cfg *gnn.Config)               { cfg.Masked, cfg.Kernel = true, true }
func (f fedAux) Mix(in *sim.RoundInput) sim.Mixing { return sim.SimilarityMixing(in, f.source) }

// apvVariant is what FedAux and its ablations read of a run beyond the
// model: the signature whose similarity the server computes (-sim) and
// whether the APV is mixed too (-apv_mix).
type apvVariant struct {
	source sim.Source
	apvMix bool
}

func variantOf(c *sim.Config) apvVariant { return apvVariant{source: c.Source, apvMix: c.APVMix} }

// Uses asks for the similarity of the run's signature.
func (v apvVariant) Uses() []sim.Source { return []sim.Source{v.source} }

// Shares shares every parameter but the masks, and the APV only with
// apv-mix.
func (v apvVariant) Shares(p *gnn.Param) bool { return sim.SharesAPV(p, v.apvMix) }
