package presets

import (
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/sim"
)

// exactNonIIDNodes is the largest graph whose MMD term is computed on
// every node; larger graphs use a seeded stratified sample of this size.
const exactNonIIDNodes = 5000

// NonIID returns the non-IID degree xi = JSD + MMD of a scenario's clients
// (docs/method.md#non-iid-degree), exact up to exactNonIIDNodes nodes and on a seeded
// stratified sample of that many nodes above.
func NonIID(d *sim.Data) (*graphio.NonIIDStats, error) {
	n := 0
	for _, c := range d.Clients {
		n += c.Graph.N()
	}
	opt := graphio.NonIIDOptions{Seed: dataSeed}
	if n > exactNonIIDNodes {
		opt.MaxNodes = exactNonIIDNodes
	}
	return graphio.NonIIDWith(d.Clients, d.NumClasses, opt)
}

// nonIIDExtra is the non-IID summary for the run log's run line.
func nonIIDExtra(d *sim.Data) (map[string]any, error) {
	st, err := NonIID(d)
	if err != nil {
		return nil, err
	}
	return map[string]any{"noniid": map[string]any{
		"jsd": st.JSD, "mmd": st.MMD, "xi": st.Xi, "bandwidth": st.Bandwidth, "mmd_nodes": st.Nodes,
	}}, nil
}
