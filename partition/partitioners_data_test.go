package partition

import (
	"slices"
	"testing"
	"time"

	"github.com/sbinet/npyio/npz"

	"github.com/fedaux/fedaux/internal/datadir"
)

// coraLabels returns the labels of the nodes of Cora's largest connected
// component (nodes as returned by datasetLCC).
func coraLabels(t *testing.T, nodes []int) []int {
	t.Helper()
	path := datadir.File(t, "cora.npz")
	r, err := npz.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var all []int64
	if err := r.Read("labels.npy", &all); err != nil {
		t.Fatalf("%s: labels.npy: %v", path, err)
	}
	labels := make([]int, len(nodes))
	for i, v := range nodes {
		labels[i] = int(all[v])
	}
	return labels
}

// coraPins are the edge cuts and part hashes (see partHash) of the
// partitions of TestPartitionersCora (seed 1), so that any change of
// behaviour on a real graph, ours or gonum's, is noticed. Multilevel's are
// pinned in TestMultilevelDatasetsPinned. Update them when an algorithm
// changes on purpose.
var coraPins = map[string]map[int]struct {
	cut  int
	hash uint64
}{
	"louvain":         {5: {540, 0x06f266ac8e7fece7}, 10: {958, 0x482eb45c75f51be3}, 20: {2018, 0xf6814b73afb386ee}},
	"louvain/delta=0": {5: {541, 0x2f5cf51fe191ad7c}, 10: {942, 0x34ca1510a2df8ff7}, 20: {1784, 0x45807a7fec401a23}},
	"random":          {5: {4086, 0xca8ecc9e94d89b73}, 10: {4580, 0x501671168d6e5749}, 20: {4837, 0x5872689c06b40a61}},
	"labelskew/0.5":   {5: {3145, 0xb98cbe20fd81a2f4}, 10: {3698, 0x60cf5f9692d600f9}, 20: {4360, 0x0416ed74e78735cd}},
}

// TestPartitionersCora runs every partitioner on the largest component of
// Cora at K = 5, 10, 20 and logs edge cut, imbalance and the mean label
// JS divergence (client vs global) side by side. Louvain must give exactly
// K non-empty clients and cut fewer edges than Random; the partitions
// must match coraPins.
func TestPartitionersCora(t *testing.T) {
	adj, nodes := datasetLCC(t, "cora.npz")
	labels := coraLabels(t, nodes)
	n := adj.n()
	classes := slices.Max(labels) + 1
	start := time.Now()
	comms := louvainCommunities(adj, DefaultResolution, 1)
	sizes := make([]int, len(comms))
	for i, c := range comms {
		sizes[i] = len(c)
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	t.Logf("cora LCC: %d nodes, %d edges, %d classes; Louvain (seed 1): %d communities in %v, largest %v",
		n, len(adj.Indices)/2, classes, len(comms), time.Since(start).Round(time.Millisecond), sizes[:min(10, len(sizes))])
	for _, k := range []int{5, 10, 20} {
		_, repairs := assignCommunities(comms, n, k, DefaultDelta)
		for _, run := range []struct {
			name string
			part func() ([]int, error)
		}{
			{"louvain", func() ([]int, error) { return Louvain(adj, k, LouvainOptions{Seed: 1}) }},
			{"louvain/delta=0", func() ([]int, error) { return Louvain(adj, k, LouvainOptions{Seed: 1, Delta: -1}) }},
			{"multilevel", func() ([]int, error) { return Multilevel(adj, k, MultilevelOptions{Seed: 1}) }},
			{"random", func() ([]int, error) { return Random(n, k, 1) }},
			{"labelskew/0.5", func() ([]int, error) { return LabelSkew(labels, k, LabelSkewOptions{Seed: 1, Beta: 0.5}) }},
		} {
			parts, err := run.part()
			if err != nil {
				t.Fatalf("%s k=%d: %v", run.name, k, err)
			}
			checkParts(t, parts, n, k)
			cut := EdgeCut(adj, parts)
			t.Logf("k=%2d %-16s cut %5d (%4.1f%%) imbalance %.3f label JS %.4f hash %#016x", k, run.name, cut,
				100*float64(cut)/float64(len(adj.Indices)/2), Imbalance(parts, k), labelJS(labels, parts, k, classes), partHash(parts))
			if pin, ok := coraPins[run.name][k]; ok && (cut != pin.cut || partHash(parts) != pin.hash) {
				t.Errorf("%s k=%d: cut %d hash %#016x, want cut %d hash %#016x", run.name, k, cut, partHash(parts), pin.cut, pin.hash)
			}
			if run.name == "louvain" {
				if repairs > 0 {
					t.Logf("k=%2d louvain: step 4 moved %d pieces to empty clients", k, repairs)
				}
				if random, _ := Random(n, k, 1); cut >= EdgeCut(adj, random) {
					t.Errorf("k=%d: louvain cut %d, not below random's %d", k, cut, EdgeCut(adj, random))
				}
			}
		}
	}
}
