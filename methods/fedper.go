package methods

import (
	"strings"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

func fedPerMethods() []sim.Method {
	return []sim.Method{
		{
			Name: FedPer, Display: "FedPer", Float32: true,
			Describe: "FedPer: plain GCN, GCN layers averaged, classifier head kept local",
			New:      func(*sim.Config) (sim.Strategy, error) { return fedPer{}, nil },
		},
	}
}

// fedPer is FedPer (Arivazhagan et al., "Federated Learning with
// Personalization Layers", 2019) on a plain GCN: the server averages the
// GCN layers (base layers) uniformly and every client keeps its own
// classifier head (personalisation layer), which never leaves it.
type fedPer struct{}

func (fedPer) Name() sim.Algorithm   { return FedPer }
func (fedPer) Model(cfg *gnn.Config) { cfg.Masked, cfg.Kernel = false, false }
func (fedPer) Shares(p *gnn.Param) bool {
	return !p.Personal && !strings.HasPrefix(p.Name, "cls.")
}
func (fedPer) Mix(in *sim.RoundInput) sim.Mixing { return sim.Mixing{W: uniform(len(in.Updates))} }
