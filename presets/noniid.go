package presets

import (
	"sync"

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

// facts are a scenario's facts for the run log, its non-IID statistics,
// computed once, on first use: on a large graph the MMD term's pairwise
// distances take seconds, and a run that writes no log never needs them.
type facts struct {
	once sync.Once
	data *sim.Data
	m    map[string]any
	err  error
}

func newFacts(d *sim.Data) *facts { return &facts{data: d} }

// Facts returns the scenario's facts for the run log (its non-IID
// statistics: docs/method.md#non-iid-degree), computing them on the
// first call; later calls, from any goroutine, return the same map,
// which the caller must not change. A scenario built by hand has none.
func (sc *Scenario) Facts() (map[string]any, error) {
	f := sc.facts
	if f == nil {
		return nil, nil
	}
	f.once.Do(func() {
		st, err := NonIID(f.data)
		if err != nil {
			f.err = err
			return
		}
		f.m = map[string]any{"noniid": map[string]any{
			"jsd": st.JSD, "mmd": st.MMD, "xi": st.Xi, "bandwidth": st.Bandwidth, "mmd_nodes": st.Nodes,
		}}
	})
	return f.m, f.err
}
