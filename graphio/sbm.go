package graphio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// FeatureKind selects the node features of the SBM generator.
type FeatureKind int

const (
	// OneHotFeatures gives each node the one-hot vector of its label
	// (sparse, Classes columns).
	OneHotFeatures FeatureKind = iota
	// GaussianFeatures gives each node mu[label] + Noise * eps (dense,
	// FeatureDim columns), where the class means mu[c] are drawn once from
	// N(0, MeanScale^2 I) and eps from N(0, I).
	GaussianFeatures
)

// String returns "onehot" or "gaussian".
func (k FeatureKind) String() string {
	switch k {
	case OneHotFeatures:
		return "onehot"
	case GaussianFeatures:
		return "gaussian"
	}
	return fmt.Sprintf("FeatureKind(%d)", int(k))
}

// SBMConfig describes a stochastic block model whose blocks are clients
// (docs/method.md#the-synthetic-sbm). Nodes are split into Clients consecutive blocks of
// equal size (the first Nodes mod Clients blocks get one node more);
// clients are split the same way into Groups consecutive groups. Every
// pair of nodes in one block of group g is an edge with probability
// IntraProb[g]; every pair in two different blocks with probability
// InterProb (those edges exist in the global graph; the induced-subgraph
// rule drops them per client). A node of group g gets the label g mod
// Classes with probability Purity, otherwise one of the other Classes-1
// labels uniformly.
type SBMConfig struct {
	Nodes     int       // number of nodes
	Clients   int       // number of blocks, one client each
	Groups    int       // number of client groups
	IntraProb []float64 // per group (length Groups): edge probability inside a block
	InterProb float64   // edge probability between two different blocks
	Classes   int       // number of labels
	Purity    float64   // probability that a node has its group's label

	Features   FeatureKind // kind of node features
	FeatureDim int         // GaussianFeatures: dimension
	Noise      float64     // GaussianFeatures: standard deviation around the class mean
	MeanScale  float64     // GaussianFeatures: standard deviation of the class means

	Seed uint64 // seed of the math/rand/v2 PCG generator (see NewRand)
}

// DefaultSBM returns the paper's synthetic scenario: 3000 nodes in 20
// blocks (clients) of 150, 5 groups of 4 consecutive clients, intra-block
// probability 0.15*i for group i = 1..5, inter-block probability 0.02, 5
// classes with purity 0.8 (group i's label is i-1), one-hot features,
// seed 1.
func DefaultSBM() SBMConfig {
	return SBMConfig{
		Nodes: 3000, Clients: 20, Groups: 5,
		IntraProb: []float64{0.15, 0.30, 0.45, 0.60, 0.75},
		InterProb: 0.02,
		Classes:   5, Purity: 0.8,
		Features: OneHotFeatures,
		Seed:     1,
	}
}

// ArxivScaleSBM returns an SBM of ogbn-arxiv's size, as a stand-in for it:
// 169,343 nodes, 10 clients in 5 groups of 2, 40 classes with purity 0.8,
// 128 dense Gaussian features (unit class-mean scale, noise 1), and edge
// probabilities for an average degree of about 13.7 (about 1.16 million
// undirected edges).
func ArxivScaleSBM() SBMConfig {
	return SBMConfig{
		Nodes: 169343, Clients: 10, Groups: 5,
		IntraProb: []float64{2.4e-4, 4.8e-4, 7.2e-4, 9.6e-4, 1.2e-3},
		InterProb: 1e-5,
		Classes:   40, Purity: 0.8,
		Features: GaussianFeatures, FeatureDim: 128, Noise: 1, MeanScale: 1,
		Seed: 1,
	}
}

// Validate reports the first problem of cfg, as an error starting with
// "graphio: sbm config: ".
func (cfg SBMConfig) Validate() error {
	probOK := func(p float64) bool { return p >= 0 && p <= 1 }
	switch {
	case cfg.Clients < 1:
		return fmt.Errorf("graphio: sbm config: Clients = %d, want at least 1", cfg.Clients)
	case cfg.Nodes > math.MaxInt32:
		return fmt.Errorf("graphio: sbm config: Nodes = %d, want at most %d", cfg.Nodes, math.MaxInt32)
	case cfg.Nodes < cfg.Clients:
		return fmt.Errorf("graphio: sbm config: Nodes = %d, want at least Clients = %d", cfg.Nodes, cfg.Clients)
	case cfg.Groups < 1 || cfg.Groups > cfg.Clients:
		return fmt.Errorf("graphio: sbm config: Groups = %d, want 1..Clients = %d", cfg.Groups, cfg.Clients)
	case len(cfg.IntraProb) != cfg.Groups:
		return fmt.Errorf("graphio: sbm config: IntraProb has %d entries, want Groups = %d", len(cfg.IntraProb), cfg.Groups)
	case !probOK(cfg.InterProb):
		return fmt.Errorf("graphio: sbm config: InterProb = %v, want [0,1]", cfg.InterProb)
	case cfg.Classes < 1:
		return fmt.Errorf("graphio: sbm config: Classes = %d, want at least 1", cfg.Classes)
	case !probOK(cfg.Purity):
		return fmt.Errorf("graphio: sbm config: Purity = %v, want [0,1]", cfg.Purity)
	}
	for g, p := range cfg.IntraProb {
		if !probOK(p) {
			return fmt.Errorf("graphio: sbm config: IntraProb[%d] = %v, want [0,1]", g, p)
		}
	}
	switch cfg.Features {
	case OneHotFeatures:
	case GaussianFeatures:
		if cfg.FeatureDim < 1 {
			return fmt.Errorf("graphio: sbm config: FeatureDim = %d, want at least 1 for Gaussian features", cfg.FeatureDim)
		}
		if !(cfg.Noise >= 0) || math.IsInf(cfg.Noise, 0) || !(cfg.MeanScale >= 0) || math.IsInf(cfg.MeanScale, 0) {
			return fmt.Errorf("graphio: sbm config: Noise = %v and MeanScale = %v, want finite and non-negative", cfg.Noise, cfg.MeanScale)
		}
	default:
		return fmt.Errorf("graphio: sbm config: unknown feature kind %v", cfg.Features)
	}
	return nil
}

// evenSplit returns the start offsets (length parts+1) of total items split
// into parts consecutive runs whose sizes differ by at most one, the larger
// ones first.
func evenSplit(total, parts int) []int {
	start := make([]int, parts+1)
	q, r := total/parts, total%parts
	for i := range parts {
		size := q
		if i < r {
			size++
		}
		start[i+1] = start[i] + size
	}
	return start
}

// GenerateSBM draws the graph described by cfg. It returns the graph
// (named "sbm", symmetric, no self loops, sorted columns), the block, that
// is the client, of every node, and the group of every client. The result
// depends only on cfg: one PCG generator seeded by cfg.Seed draws the
// labels, then the intra-block edges block by block, then the
// inter-block edges block pair by block pair, then the features. Edges are
// drawn by geometric skipping over node pairs (Batagelj and Brandes 2005),
// so the cost is linear in nodes + edges + block pairs.
func GenerateSBM(cfg SBMConfig) (*Graph, []int, []int, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, nil, err
	}
	r := NewRand(cfg.Seed)
	n, k := cfg.Nodes, cfg.Clients
	blockStart := evenSplit(n, k)
	groupStart := evenSplit(k, cfg.Groups)
	groupOf := make([]int, k)
	for g := range cfg.Groups {
		for c := groupStart[g]; c < groupStart[g+1]; c++ {
			groupOf[c] = g
		}
	}
	block := make([]int, n)
	for b := range k {
		for u := blockStart[b]; u < blockStart[b+1]; u++ {
			block[u] = b
		}
	}

	labels := make([]int, n)
	for u := range labels {
		dom := groupOf[block[u]] % cfg.Classes
		if cfg.Classes == 1 || r.Float64() < cfg.Purity {
			labels[u] = dom
			continue
		}
		y := r.IntN(cfg.Classes - 1)
		if y >= dom {
			y++
		}
		labels[u] = y
	}

	var edges [][2]int32
	for b := range k {
		lo, size := blockStart[b], blockStart[b+1]-blockStart[b]
		edges = sampleTriangle(r, edges, lo, size, cfg.IntraProb[groupOf[b]])
	}
	for a := range k {
		for b := a + 1; b < k; b++ {
			edges = sampleRectangle(r, edges, blockStart[a], blockStart[a+1]-blockStart[a],
				blockStart[b], blockStart[b+1]-blockStart[b], cfg.InterProb)
		}
	}

	g := &Graph{Name: "sbm", Adj: edgesToCSR(n, edges), Labels: labels, NumClasses: cfg.Classes}
	switch cfg.Features {
	case OneHotFeatures:
		x := &CSR{Rows: n, Cols: cfg.Classes, Indptr: make([]int, n+1),
			Indices: slices.Clone(labels), Values: make([]float64, n)}
		for u := range n {
			x.Indptr[u+1] = u + 1
			x.Values[u] = 1
		}
		g.Features = x
	case GaussianFeatures:
		d := cfg.FeatureDim
		mu := make([]float64, cfg.Classes*d)
		for i := range mu {
			mu[i] = cfg.MeanScale * r.NormFloat64()
		}
		x := make([]float64, n*d)
		for u := range n {
			m := mu[labels[u]*d : (labels[u]+1)*d]
			row := x[u*d : (u+1)*d]
			for j := range row {
				row[j] = m[j] + cfg.Noise*r.NormFloat64()
			}
		}
		g.Dense = mat.NewDense(n, d, x)
	}
	return g, block, groupOf, nil
}

// geomSkip returns how many Bernoulli(p) failures precede the next success,
// given logq = log(1-p) < 0, capped at limit.
func geomSkip(r *rand.Rand, logq float64, limit int) int {
	u := 1 - r.Float64() // in (0, 1]
	s := math.Floor(math.Log(u) / logq)
	if s >= float64(limit) {
		return limit
	}
	return int(s)
}

// sampleTriangle appends every pair {lo+v, lo+w}, 0 <= w < v < size, with
// probability p independently.
func sampleTriangle(r *rand.Rand, edges [][2]int32, lo, size int, p float64) [][2]int32 {
	if p <= 0 || size < 2 {
		return edges
	}
	logq := math.Log1p(-p)
	total := size * (size - 1) / 2
	v, w := 1, -1
	for {
		w += 1 + geomSkip(r, logq, total)
		for w >= v && v < size {
			w -= v
			v++
		}
		if v >= size {
			return edges
		}
		edges = append(edges, [2]int32{int32(lo + v), int32(lo + w)})
	}
}

// sampleRectangle appends every pair {loA+i, loB+j}, i < sizeA, j < sizeB,
// with probability p independently.
func sampleRectangle(r *rand.Rand, edges [][2]int32, loA, sizeA, loB, sizeB int, p float64) [][2]int32 {
	total := sizeA * sizeB
	if p <= 0 || total == 0 {
		return edges
	}
	logq := math.Log1p(-p)
	for k := -1; ; {
		k += 1 + geomSkip(r, logq, total)
		if k >= total {
			return edges
		}
		edges = append(edges, [2]int32{int32(loA + k/sizeB), int32(loB + k%sizeB)})
	}
}

// edgesToCSR builds the symmetric adjacency of n nodes from distinct
// undirected edges without self loops.
func edgesToCSR(n int, edges [][2]int32) *CSR {
	ptr := make([]int, n+1)
	for _, e := range edges {
		ptr[e[0]+1]++
		ptr[e[1]+1]++
	}
	for i := range n {
		ptr[i+1] += ptr[i]
	}
	idx := make([]int, ptr[n])
	next := slices.Clone(ptr[:n])
	for _, e := range edges {
		u, v := int(e[0]), int(e[1])
		idx[next[u]] = v
		next[u]++
		idx[next[v]] = u
		next[v]++
	}
	for i := range n {
		slices.Sort(idx[ptr[i]:ptr[i+1]])
	}
	vals := make([]float64, len(idx))
	for i := range vals {
		vals[i] = 1
	}
	return &CSR{Rows: n, Cols: n, Indptr: ptr, Indices: idx, Values: vals}
}
