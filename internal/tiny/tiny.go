package tiny

import (
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// Preset returns a 120-node SBM with k clients in 2 groups, 3 rounds of
// an 8-wide model, named name.
func Preset(name string, k int) *presets.Preset {
	return &presets.Preset{
		Name: name, Description: "tiny SBM for tests",
		Config: func() sim.Config {
			c := sim.DefaultConfig()
			c.Rounds, c.Hidden = 3, 8
			return c
		},
		Build: func(_ presets.Env, seed uint64) (*presets.Scenario, error) {
			cfg := graphio.DefaultSBM()
			cfg.Nodes, cfg.Clients, cfg.Groups, cfg.Classes = 120, k, 2, 3
			cfg.IntraProb = []float64{0.2, 0.4}
			cfg.Seed = seed
			g, block, groups, err := graphio.GenerateSBM(cfg)
			if err != nil {
				return nil, err
			}
			roles, err := graphio.SplitSeeded(g.N(), seed, graphio.DefaultTrainFrac, graphio.DefaultTestFrac)
			if err != nil {
				return nil, err
			}
			clients, err := graphio.Partition(g, block, roles, k)
			if err != nil {
				return nil, err
			}
			return &presets.Scenario{
				Data:      &sim.Data{Clients: clients, NumFeatures: g.NumFeatures(), NumClasses: g.NumClasses, Groups: groups},
				Partition: "tiny sbm",
			}, nil
		},
	}
}
