package graphio

import (
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
