package graphio

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/fedaux/fedaux/internal/datadir"
)

// TestLoadHeterophilous reads the five heterophilous graphs and checks
// their sizes against the published counts.
func TestLoadHeterophilous(t *testing.T) {
	for _, tc := range []struct {
		name              string
		nodes, feats, cls int
		dense             bool
		homophily         float64 // edge homophily, as Platonov et al. report it (2 decimals)
	}{
		{"minesweeper", 10000, 7, 2, false, 0.68},
		{"tolokers", 11758, 10, 2, true, 0.59},
		{"actor", 7600, 932, 5, false, 0.22},
		{"chameleon_filtered", 890, 2325, 5, false, 0.24},
		{"squirrel_filtered", 2223, 2089, 5, false, 0.21},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := datadir.File(t, filepath.Join("heterophilous", tc.name+".npz"))
			g, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if g.N() != tc.nodes || g.NumFeatures() != tc.feats || g.NumClasses != tc.cls {
				t.Errorf("%d nodes, %d features, %d classes; want %d, %d, %d", g.N(), g.NumFeatures(), g.NumClasses, tc.nodes, tc.feats, tc.cls)
			}
			if err := g.Adj.Validate(); err != nil {
				t.Fatal(err)
			}
			for i := range g.N() {
				cols, _ := g.Adj.Row(i)
				for _, j := range cols {
					if j == i {
						t.Fatalf("self loop at %d", i)
					}
				}
			}
			if h := EdgeHomophily(g); math.Abs(h-tc.homophily) > 0.005 {
				t.Errorf("edge homophily %.4f, want %.2f", h, tc.homophily)
			}
			if (g.Dense != nil) != tc.dense {
				t.Errorf("dense features %v, want %v", g.Dense != nil, tc.dense)
			}
			t.Logf("%s: %d undirected edges, edge homophily %.4f, dense features %v", tc.name, g.NumEdges(), EdgeHomophily(g), g.Dense != nil)
		})
	}
}
