// Package simtest holds the small federation that the tests of sim and
// of the built-in methods run on, so that their digests describe the
// same runs. It depends on graphio only, so that sim's own (internal)
// tests can use it.
package simtest

import (
	"testing"

	"github.com/fedaux/fedaux/graphio"
)

// A Federation is the clients of a graph and what a sim.Data says of it.
type Federation struct {
	Clients     []*graphio.Client
	NumFeatures int
	NumClasses  int
	Groups      []int
}

// Small returns the test federation: a two-group SBM of 240 nodes and 3
// classes in 8 clients, its graph, split and partition drawn from seed.
func Small(tb testing.TB, seed uint64) Federation {
	tb.Helper()
	cfg := graphio.DefaultSBM()
	cfg.Nodes, cfg.Clients, cfg.Groups = 240, 8, 2
	cfg.IntraProb = []float64{0.2, 0.4}
	cfg.Classes = 3
	cfg.Seed = seed
	g, block, groups, err := graphio.GenerateSBM(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	roles, err := graphio.SplitSeeded(g.N(), seed, graphio.DefaultTrainFrac, graphio.DefaultTestFrac)
	if err != nil {
		tb.Fatal(err)
	}
	clients, err := graphio.Partition(g, block, roles, cfg.Clients)
	if err != nil {
		tb.Fatal(err)
	}
	return Federation{Clients: clients, NumFeatures: g.NumFeatures(), NumClasses: g.NumClasses, Groups: groups}
}
