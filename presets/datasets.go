package presets

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/partition"
	"github.com/fedaux/fedaux/sim"
)

// dataSeed seeds the split and our own partitioner for real datasets. It is
// fixed, as in the reference protocol: the clients are made once and every
// run seed trains on the same clients.
const dataSeed = 1234

// dataset describes one graph of the paper's Table 1.
type dataset struct {
	name     string // preset prefix
	title    string
	file     string // .npz in the data directory, or a directory for OGB
	ogb      bool   // raw OGB CSV layout (ogbn-arxiv)
	refName  string // partitions/<refName>_<K>.npz
	rounds   int
	epochs   int
	getIt    string
	trainFr  float64
	testFr   float64
	noNormal bool
}

var datasets = []dataset{
	{name: "cora", title: "Cora", file: "cora.npz", refName: "cora", rounds: 100, epochs: 1},
	{name: "citeseer", title: "CiteSeer", file: "citeseer.npz", refName: "citeseer", rounds: 100, epochs: 1},
	{name: "pubmed", title: "PubMed", file: "pubmed.npz", refName: "pubmed", rounds: 100, epochs: 1,
		getIt: "PubMed is not shipped (its feature file could not be obtained offline). Convert PyG's Planetoid PubMed to the gnn-benchmark .npz schema (see README, \"More datasets\") and save it as pubmed.npz."},
	{name: "computer", title: "Amazon-Computer", file: "amazon_electronics_computers.npz", refName: "computers", rounds: 200, epochs: 2},
	{name: "photo", title: "Amazon-Photo", file: "amazon_electronics_photo.npz", refName: "photo", rounds: 200, epochs: 2},
	{name: "arxiv", title: "ogbn-arxiv", file: "ogbn_arxiv", ogb: true, refName: "arxiv", rounds: 200, epochs: 2,
		trainFr: 0.05, testFr: 0.475, noNormal: true,
		getIt: "Download ogbn-arxiv from the OGB website and unpack it so that ogbn_arxiv/raw/ holds edge.csv.gz, node-feat.csv.gz and node-label.csv.gz (see README, \"More datasets\")."},
}

// DatasetTitle returns the paper's name of a dataset ("citeseer":
// "CiteSeer"), or name itself for a dataset it does not know.
func DatasetTitle(name string) string {
	for _, ds := range datasets {
		if ds.name == name {
			return ds.title
		}
	}
	return name
}

func init() {
	for _, ds := range datasets {
		for _, k := range []int{5, 10, 20} {
			ds, k := ds, k
			needs := ds.file
			if ds.ogb {
				needs += "/raw/*.csv.gz"
			}
			register(&Preset{
				Name:         fmt.Sprintf("%s-%d", ds.name, k),
				Description:  fmt.Sprintf("%s, %d clients (METIS reference partition when present, else ours); %d rounds x %d epochs", ds.title, k, ds.rounds, ds.epochs),
				Needs:        needs,
				files:        []string{ds.file},
				refPartition: filepath.Join("partitions", fmt.Sprintf("%s_%d.npz", ds.refName, k)),
				Config: func() sim.Config {
					c := sim.DefaultConfig()
					c.Rounds, c.Epochs = ds.rounds, ds.epochs
					return c
				},
				Build: func(env Env, _ uint64) (*Scenario, error) { return buildDataset(env, ds, k) },
			})
		}
	}
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*Scenario{}
)

// buildDataset loads a dataset, keeps its largest connected component,
// row-normalises its features and splits it into k clients, either from
// the reference partition file or with the multilevel partitioner. Real
// data does not depend on the run seed, so the result is cached.
func buildDataset(env Env, ds dataset, k int) (*Scenario, error) {
	key := fmt.Sprintf("%s|%s|%s|%d", env.DataDir, env.Partition, ds.name, k)
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if sc, ok := cache[key]; ok {
		return sc, nil
	}
	getIt := ds.getIt
	if getIt == "" {
		getIt = "It ships in the project's shared data (see README, \"More datasets\")."
	}
	gp, err := need(env.DataDir, ds.file, getIt)
	if err != nil {
		return nil, err
	}
	refPath := filepath.Join(env.DataDir, "partitions", fmt.Sprintf("%s_%d.npz", ds.refName, k))
	_, statErr := os.Stat(refPath)
	mode := env.Partition
	switch mode {
	case "":
		mode = "multilevel"
		if statErr == nil {
			mode = "ref"
		}
	case "ref":
		if statErr != nil {
			return nil, fmt.Errorf("-partition ref: reference partition %s not found", refPath)
		}
	default:
		if _, err := partitioner(mode); err != nil {
			return nil, err
		}
	}
	var sc *Scenario
	if mode == "ref" {
		sc, err = loadWithPartitionFile(gp, refPath)
	} else {
		sc, err = loadPartitioned(gp, ds, k, mode)
	}
	if err != nil {
		return nil, err
	}
	if sc.Extra, err = nonIIDExtra(sc.Data); err != nil {
		return nil, err
	}
	cache[key] = sc
	return sc, nil
}

// Partitioners lists the ways -partition may form real-data clients
// besides the reference file ("ref"): "multilevel" (METIS-quality,
// ours), "louvain" (communities merged or split to K as OpenFGL does),
// "label-skew" or "label-skew=BETA" (Dirichlet over labels, beta 0.5
// unless given) and "random".
func Partitioners() []string {
	return []string{"multilevel", "louvain", "label-skew", "random"}
}

// A partitionFunc forms k clients of g, seeded.
type partitionFunc func(g *graphio.Graph, k int, seed uint64) ([]int, string, error)

// partitioner returns the partitioner a -partition value names, which
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
				return nil, fmt.Errorf("-partition: %q: want label-skew=BETA with a finite BETA > 0", mode)
			}
			beta = b
		}
		return func(g *graphio.Graph, k int, seed uint64) ([]int, string, error) {
			a, err := partition.LabelSkew(g.Labels, k, partition.LabelSkewOptions{Seed: seed, Beta: beta})
			return a, fmt.Sprintf("label skew beta %g seed %d", beta, seed), err
		}, nil
	}
	return nil, fmt.Errorf("-partition: %q, want ref, %s or label-skew=BETA", mode, strings.Join(Partitioners(), ", "))
}

// loadPartitioned partitions the largest component with the partitioner
// mode names after drawing the global split (spec section 4).
func loadPartitioned(path string, ds dataset, k int, mode string) (*Scenario, error) {
	part, err := partitioner(mode)
	if err != nil {
		return nil, err
	}
	var full *graphio.Graph
	if ds.ogb {
		full, err = graphio.LoadOGB(path)
	} else {
		full, err = graphio.LoadNPZ(path)
	}
	if err != nil {
		return nil, err
	}
	g, _ := graphio.LargestComponent(full)
	if !ds.noNormal {
		g = graphio.RowNormalize(g)
	}
	trainFr, testFr := graphio.DefaultTrainFrac, graphio.DefaultTestFrac
	if ds.trainFr > 0 {
		trainFr, testFr = ds.trainFr, ds.testFr
	}
	roles, err := graphio.SplitSeeded(g.N(), dataSeed, trainFr, testFr)
	if err != nil {
		return nil, err
	}
	assign, how, err := part(g, k, dataSeed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	clients, err := graphio.Partition(g, assign, roles, k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc := &Scenario{
		Data:      &sim.Data{Clients: clients, NumFeatures: g.NumFeatures(), NumClasses: g.NumClasses},
		Partition: fmt.Sprintf("%s, edge cut %d", how, graphio.EdgeCut(g, assign)),
	}
	if !ds.ogb {
		f, err := Checksum(path)
		if err != nil {
			return nil, err
		}
		sc.Files = append(sc.Files, f)
	}
	return sc, nil
}
