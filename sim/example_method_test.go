package sim_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/sim"
)

// selfMix is a method of a few lines: FedAvg on the plain GCN, except
// that every client keeps a share of its own parameters,
// theta_k <- s theta_k + (1 - s) mean_l theta_l.
type selfMix struct{ self float64 }

func (selfMix) Name() sim.Algorithm      { return "selfmix" }
func (selfMix) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = false, false }
func (selfMix) Shares(p *gnn.Param) bool { return !p.Personal }
func (m selfMix) Mix(in *sim.RoundInput) sim.Mixing {
	k := len(in.Updates)
	w := make([][]float64, k)
	for i := range w {
		w[i] = make([]float64, k)
		for j := range w[i] {
			w[i][j] = (1 - m.self) / float64(k)
		}
		w[i][i] += m.self
	}
	return sim.Mixing{W: w}
}

// ExampleRegister registers a method with a setting of its own and runs
// it: the setting is then one of sim.Settings (so -set, scenario files,
// sweeps and the flags take it), its result key spells it, and the
// engine builds the method's strategy for a Config that names it.
func ExampleRegister() {
	sim.Register(sim.Method{
		Name:     "selfmix",
		Display:  "SelfMix",
		Describe: "FedAvg where each client keeps a share s of its own parameters (-selfmix_s)",
		Settings: []sim.Setting{{Key: "selfmix_s", Type: sim.Float, Default: "0.5", Check: sim.NonNegative,
			Doc: "selfmix: the share s of its own parameters a client keeps"}},
		New: func(c *sim.Config) (sim.Strategy, error) {
			return selfMix{self: c.Options.Float("selfmix_s")}, nil
		},
	})

	// A small federation: a two-group SBM of 120 nodes in 4 clients.
	sbm := graphio.DefaultSBM()
	sbm.Nodes, sbm.Clients, sbm.Groups, sbm.Classes, sbm.Seed = 120, 4, 2, 3, 1
	sbm.IntraProb = []float64{0.2, 0.4}
	g, block, _, err := graphio.GenerateSBM(sbm)
	if err != nil {
		fmt.Println(err)
		return
	}
	roles, err := graphio.SplitSeeded(g.N(), 1, graphio.DefaultTrainFrac, graphio.DefaultTestFrac)
	if err != nil {
		fmt.Println(err)
		return
	}
	clients, err := graphio.Partition(g, block, roles, sbm.Clients)
	if err != nil {
		fmt.Println(err)
		return
	}
	data := &sim.Data{Clients: clients, NumFeatures: g.NumFeatures(), NumClasses: g.NumClasses}

	cfg := sim.DefaultConfig()
	cfg.Algo, cfg.Rounds, cfg.Hidden = "selfmix", 2, 8
	if err := cfg.Set("selfmix_s", "0.25"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(slices.Contains(sim.Settings(), "selfmix_s"), sim.Describe("selfmix_s"))
	for _, kv := range strings.Split(cfg.Fingerprint(), ",") {
		if strings.HasPrefix(kv, "selfmix") {
			fmt.Println(kv)
		}
	}
	e, err := sim.New(cfg, data, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := e.Step(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: round %d, W[0] = %.4f\n", sim.Algorithm("selfmix").Display(), rep.Round, rep.Weights[0])
	if err := cfg.Set("selfmix_s", "-1"); err == nil {
		fmt.Println(cfg.Validate())
	}
	// Output:
	// true selfmix: the share s of its own parameters a client keeps
	// selfmix_s=0.25
	// SelfMix: round 1, W[0] = [0.4375 0.1875 0.1875 0.1875]
	// sim: selfmix_s = -1, want a finite value >= 0
}
