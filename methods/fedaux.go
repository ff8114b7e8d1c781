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
				return fedAux{source: c.Source, apvMix: c.APVMix}, nil
			}},
	}
}

// fedAux mixes every non-mask parameter (the APV too when apvMix) with
// weights softmax(alpha * sim(k, l)) over l, sim the cosine of the chosen
// signature (Eq. 3, 4, 6; the paper's signature is the APV).
type fedAux struct {
	source sim.Source
	apvMix bool
}

func (fedAux) Name() sim.Algorithm                 { return FedAux }
func (fedAux) Model(cfg *gnn.Config)               { cfg.Masked, cfg.Kernel = true, true }
func (f fedAux) Uses() []sim.Source                { return []sim.Source{f.source} }
func (f fedAux) Shares(p *gnn.Param) bool          { return sim.SharesAPV(p, f.apvMix) }
func (f fedAux) Mix(in *sim.RoundInput) sim.Mixing { return sim.SimilarityMixing(in, f.source) }
