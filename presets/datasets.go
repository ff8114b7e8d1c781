package presets

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/partition"
)

// dataSeed seeds the split and our own partitioner for real datasets. It is
// fixed, as in the reference protocol: the clients are made once and every
// run seed trains on the same clients.
const dataSeed = 1234

// titles are the paper's names of the datasets of the presets.
var titles = map[string]string{
	"cora": "Cora", "citeseer": "CiteSeer", "pubmed": "PubMed",
	"computer": "Amazon-Computer", "photo": "Amazon-Photo", "arxiv": "ogbn-arxiv",
	"minesweeper": "Minesweeper", "tolokers": "Tolokers", "actor": "Actor",
	"chameleon-filtered": "Chameleon (filtered)", "squirrel-filtered": "Squirrel (filtered)",
}

// DatasetTitle returns the paper's name of a dataset ("citeseer":
// "CiteSeer"), or name itself for a dataset it does not know.
func DatasetTitle(name string) string {
	if t, ok := titles[name]; ok {
		return t
	}
	return name
}

// Partitioners lists the ways Env.Partition may form real-data clients
// besides the reference file ("ref"): "multilevel" (METIS-quality,
// ours), "louvain" (communities merged or split to K as OpenFGL does),
// "label-skew" or "label-skew=BETA" (Dirichlet over labels, beta 0.5
// unless given) and "random".
func Partitioners() []string {
	return []string{"multilevel", "louvain", "label-skew", "random"}
}

// A partitionFunc forms k clients of g, seeded.
type partitionFunc func(g *graphio.Graph, k int, seed uint64) ([]int, string, error)

// partitioner returns the partitioner a Partition mode names, which
// also returns a description of the partition it made.
func partitioner(mode string) (partitionFunc, error) {
	adj := func(g *graphio.Graph) partition.Graph {
		return partition.Graph{Indptr: g.Adj.Indptr, Indices: g.Adj.Indices}
	}
	name, arg, hasArg := strings.Cut(mode, "=")
	switch {
	case name == "multilevel" && !hasArg:
		return func(g *graphio.Graph, k int, seed uint64) ([]int, string, error) {
			a, err := partition.Multilevel(adj(g), k, partition.MultilevelOptions{Seed: seed})
			return a, fmt.Sprintf("multilevel seed %d", seed), err
		}, nil
	case name == "louvain" && !hasArg:
		return func(g *graphio.Graph, k int, seed uint64) ([]int, string, error) {
			a, err := partition.Louvain(adj(g), k, partition.LouvainOptions{Seed: seed})
			return a, fmt.Sprintf("louvain seed %d", seed), err
		}, nil
	case name == "random" && !hasArg:
		return func(g *graphio.Graph, k int, seed uint64) ([]int, string, error) {
			a, err := partition.Random(g.N(), k, seed)
			return a, fmt.Sprintf("random seed %d", seed), err
		}, nil
	case name == "label-skew":
		beta := 0.5
		if hasArg {
			b, err := strconv.ParseFloat(arg, 64)
			if err != nil || !(b > 0) || math.IsInf(b, 0) {
				return nil, partitionError(mode, "want label-skew=BETA with a finite BETA > 0")
			}
			beta = b
		}
		return func(g *graphio.Graph, k int, seed uint64) ([]int, string, error) {
			a, err := partition.LabelSkew(g.Labels, k, partition.LabelSkewOptions{Seed: seed, Beta: beta})
			return a, fmt.Sprintf("label skew beta %g seed %d", beta, seed), err
		}, nil
	}
	return nil, partitionError(mode, "want ref, %s or label-skew=BETA", strings.Join(Partitioners(), ", "))
}
