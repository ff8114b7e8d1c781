package graphio

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/fedaux/fedaux/internal/datadir"
)

var (
	datasetMu    sync.Mutex
	datasetCache = map[string]*Graph{}
)

// loadTestDataset loads (once per test binary) the dataset file name.npz.
// Callers must not modify the returned graph.
func loadTestDataset(t testing.TB, name string) *Graph {
	t.Helper()
	path := datadir.File(t, name+".npz")
	datasetMu.Lock()
	defer datasetMu.Unlock()
	if g, ok := datasetCache[name]; ok {
		return g
	}
	g, err := LoadNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	datasetCache[name] = g
	return g
}

// BenchmarkLoadNPZ loads Amazon-Computer (13,752 nodes, 3.68 M feature
// entries in 32 MB): reading the members, decoding them and putting the
// features in canonical order.
func BenchmarkLoadNPZ(b *testing.B) {
	path := filepath.Join(datadir.Dir(b), "amazon_electronics_computers.npz")
	for b.Loop() {
		if _, err := LoadNPZ(path); err != nil {
			b.Fatal(err)
		}
	}
}
