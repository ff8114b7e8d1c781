package sim

import (
	"strings"

	"github.com/fedaux/fedaux/gnn"
)

// fedPer is FedPer (Arivazhagan et al., "Federated Learning with
// Personalization Layers", 2019) on a plain GCN: the server averages the
// GCN layers (base layers) uniformly and every client keeps its own
// classifier head (personalisation layer), which never leaves it.
type fedPer struct{}

func (fedPer) Name() Algorithm       { return "fedper" }
func (fedPer) Model(cfg *gnn.Config) { cfg.Masked, cfg.Kernel = false, false }
func (fedPer) Shares(p *gnn.Param) bool {
	return !p.Personal && !strings.HasPrefix(p.Name, "cls.")
}
func (fedPer) Mix(in *RoundInput) Mixing {
	return Mixing{W: uniformWeights(len(in.Updates))}
}
