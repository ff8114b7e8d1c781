package methods

import (
	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// The two simplest baselines: FedAvg and no federation at all.
const (
	FedAvg sim.Algorithm = "fedavg"
	Local  sim.Algorithm = "local"
)

func fedAvgMethods() []sim.Method {
	return []sim.Method{
		{Name: FedAvg, Display: "FedAvg", Float32: true,
			Describe: "FedAvg: plain 2-layer GCN, every client starts each round from the mean",
			New:      func(*sim.Config) (sim.Strategy, error) { return fedAvg{}, nil }},
		{Name: Local, Display: "Local", Float32: true,
			Describe: "Local: each client trains the FedAux client model alone, no communication",
			New:      func(*sim.Config) (sim.Strategy, error) { return local{}, nil }},
	}
}

// fedAvg is plain FedAvg on a plain GCN: the unweighted mean.
type fedAvg struct{}

func (fedAvg) Name() sim.Algorithm               { return FedAvg }
func (fedAvg) Model(cfg *gnn.Config)             { cfg.Masked, cfg.Kernel = false, false }
func (fedAvg) Shares(p *gnn.Param) bool          { return !p.Personal }
func (fedAvg) Mix(in *sim.RoundInput) sim.Mixing { return sim.Mixing{W: uniform(len(in.Updates))} }

// local trains every client alone: FedAux's client model, nothing shared.
type local struct{}

func (local) Name() sim.Algorithm            { return Local }
func (local) Model(cfg *gnn.Config)          { cfg.Masked, cfg.Kernel = true, true }
func (local) Shares(*gnn.Param) bool         { return false }
func (local) Mix(*sim.RoundInput) sim.Mixing { return sim.Mixing{} }
