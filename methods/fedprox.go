package methods

import (
	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// defaultMu is FedProx's default proximal coefficient. FedProx (Li et al.,
// "Federated Optimization in Heterogeneous Networks", MLSys 2020) tunes mu
// in {0.001, 0.01, 0.1, 1}; GCFL's reference code (Oxfordblue7/GCFL,
// main_oneDS.py) runs its FedProx baseline with mu = 0.01, and FED-PUB's
// code ships no FedProx configuration, so 0.01 it is.
const defaultMu = "0.01"

func fedProxMethods() []sim.Method {
	return []sim.Method{
		{
			Name: FedProx, Display: "FedProx", Float32: true,
			Describe: "FedProx: FedAvg with the local proximal term (mu/2)||theta - theta_global||^2 (-mu)",
			Settings: []sim.Setting{{Key: "mu", Type: sim.Float, Default: defaultMu, Check: sim.NonNegative, Live: true,
				Doc: "fedprox: proximal coefficient mu of (mu/2)||theta - theta_global||^2"}},
			New: func(c *sim.Config) (sim.Strategy, error) { return fedProx{mu: c.Options.Float("mu")}, nil },
		},
	}
}

// fedProx is FedAvg (model, shared parameters, uniform mixing) whose
// clients minimise the loss plus (mu/2)||theta - theta_global||^2
// (FedProx, Eq. 2 of Li et al.), with theta_global the mean the server
// sent at the start of the round: the engine's proximal term
// (sim.ClientSide.ProxMu).
//
// The proximal gradient mu (theta - theta_global) vanishes at the first
// local step of a round, where theta = theta_global. With one local epoch
// (one full-batch step) per round, the paper's schedule for Cora, CiteSeer
// and PubMed, FedProx is therefore FedAvg bit for bit whatever mu; it
// differs from the second local step on (Amazon: 2 epochs).
type fedProx struct{ mu float64 }

func (fedProx) Name() sim.Algorithm               { return FedProx }
func (fedProx) Model(cfg *gnn.Config)             { cfg.Masked, cfg.Kernel = false, false }
func (fedProx) Shares(p *gnn.Param) bool          { return !p.Personal }
func (fedProx) Mix(in *sim.RoundInput) sim.Mixing { return sim.Mixing{W: uniform(len(in.Updates))} }

// ClientSide asks for the proximal term.
func (f fedProx) ClientSide() sim.ClientSide { return sim.ClientSide{ProxMu: f.mu} }
