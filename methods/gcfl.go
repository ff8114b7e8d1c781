package methods

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// GCFL is GCFL (Xie et al., NeurIPS 2021), clustered FedAvg.
const GCFL sim.Algorithm = "gcfl"

func gcflMethods() []sim.Method {
	return []sim.Method{
		{Name: GCFL, Display: "GCFL", Float32: true,
			Describe: "GCFL: clustered FedAvg; a cluster splits by min cut of update cosines when its mean update norm < -eps1 and max > -eps2",
			Settings: []sim.Setting{
				{Key: "eps1", Type: sim.Float, Default: strconv.FormatFloat(defaultGCFLEps1, 'g', -1, 64), Check: sim.NonNegative, Live: true,
					Doc: "gcfl: a cluster splits when the norm of its mean update is below eps1 ..."},
				{Key: "eps2", Type: sim.Float, Default: strconv.FormatFloat(defaultGCFLEps2, 'g', -1, 64), Check: sim.NonNegative, Live: true,
					Doc: "gcfl: ... and its largest update norm above eps2"},
			},
			New: func(c *sim.Config) (sim.Strategy, error) {
				return &gcfl{eps1: c.Options.Float("eps1"), eps2: c.Options.Float("eps2")}, nil
			}},
	}
}

// GCFL's split thresholds and conditions, from its reference code
// (Oxfordblue7/GCFL: main_oneDS.py defaults --epsilon1 0.05 and
// --epsilon2 0.1; training.py run_gcfl splits a cluster only when it has
// more than 2 clients and after round 20). Xie et al., "Federated Graph
// Classification over Non-IID Graphs", NeurIPS 2021.
const (
	defaultGCFLEps1 = 0.05
	defaultGCFLEps2 = 0.1
	gcflWarmup      = 20 // rounds before the first split may happen
	gcflMinSplit    = 3  // smallest cluster that may split
)

// gcfl is GCFL (docs/method.md#gcfl) on a plain GCN. Clients report their
// update dW = theta_end - theta_start (the SourceUpdate signature). After
// every round, each cluster C with
//
//	|| mean_{k in C} dW_k || < eps1   and   max_{k in C} ||dW_k|| > eps2
//
// (and more than two clients, after the warm-up) splits in two by the
// minimum cut of the complete graph on C weighted by cos(dW_k, dW_l) + 1
// (GCFL's pairwise_angles; Stoer-Wagner, as its server.min_cut). Every
// client then starts the next round from the unweighted mean of its
// cluster (the paper's average; the reference code weights by training
// set size). All parameters are shared within a cluster.
//
// The clusters persist across rounds: a gcfl value belongs to one engine.
type gcfl struct {
	eps1, eps2 float64
	round      int     // rounds mixed so far
	clusters   [][]int // client indices, each sorted; nil before round 1
}

func (*gcfl) Name() sim.Algorithm      { return GCFL }
func (*gcfl) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = false, false }
func (*gcfl) Shares(p *gnn.Param) bool { return !p.Personal }
func (*gcfl) Uses() []sim.Source       { return []sim.Source{sim.SourceUpdate} }

// ClientSide asks for the update signature.
func (*gcfl) ClientSide() sim.ClientSide { return sim.ClientSide{Update: true} }

// Mix splits the clusters that meet GCFL's criterion and returns the
// block-uniform weights of the new clusters.
func (g *gcfl) Mix(in *sim.RoundInput) sim.Mixing {
	k := len(in.Updates)
	g.round++
	if g.clusters == nil {
		all := make([]int, k)
		for i := range all {
			all[i] = i
		}
		g.clusters = [][]int{all}
	}
	cos := in.Views[sim.SourceUpdate]
	dw := make([][]float64, k)
	for i, u := range in.Updates {
		dw[i] = u.Signatures[sim.SourceUpdate]
	}
	var next [][]int
	norms := make([]sim.ClusterNorm, len(g.clusters))
	for i, c := range g.clusters {
		norms[i].Mean, norms[i].Max = updateNorms(dw, c)
		if g.round > gcflWarmup && len(c) >= gcflMinSplit && g.shouldSplit(norms[i]) {
			a, b := splitCluster(cos, c)
			next = append(next, a, b)
			continue
		}
		next = append(next, c)
	}
	g.clusters = next
	return sim.Mixing{W: clusterWeights(k, g.clusters), Similarity: cos, Source: sim.SourceUpdate, Clusters: g.clusters, ClusterNorms: norms}
}

// shouldSplit applies GCFL's norm criterion to a cluster's statistics.
func (g *gcfl) shouldSplit(n sim.ClusterNorm) bool {
	return n.Mean < g.eps1 && n.Max > g.eps2
}

// updateNorms returns ||mean_{k in c} dw_k|| and max_{k in c} ||dw_k||
// (GCFL's compute_mean_update_norm and compute_max_update_norm).
func updateNorms(dw [][]float64, c []int) (mean, maxNorm float64) {
	sum := make([]float64, len(dw[c[0]]))
	for _, i := range c {
		for j, v := range dw[i] {
			sum[j] += v
		}
		maxNorm = math.Max(maxNorm, math.Sqrt(dot(dw[i], dw[i])))
	}
	return math.Sqrt(dot(sum, sum)) / float64(len(c)), maxNorm
}

// splitCluster bipartitions cluster c by the minimum cut of the complete
// graph weighted by cos + 1. Both parts are sorted; the first holds c's
// smallest index.
func splitCluster(cos [][]float64, c []int) (a, b []int) {
	w := make([][]float64, len(c))
	for i, ci := range c {
		w[i] = make([]float64, len(c))
		for j, cj := range c {
			if i != j {
				w[i][j] = cos[ci][cj] + 1
			}
		}
	}
	side := make([]bool, len(c))
	for _, i := range minCut(w) {
		side[i] = true
	}
	for i, ci := range c {
		if side[i] == side[0] {
			a = append(a, ci)
		} else {
			b = append(b, ci)
		}
	}
	return a, b
}

// minCut returns one side of a global minimum cut of the undirected graph
// with symmetric non-negative weights w (n >= 2), by Stoer and Wagner's
// algorithm ("A simple min-cut algorithm", JACM 1997): n-1 phases of
// maximum-adjacency ordering, each cutting off its last vertex and merging
// it into the one before. Ties go to the lowest vertex index, so the
// result is deterministic.
func minCut(w [][]float64) []int {
	n := len(w)
	g := make([][]float64, n)
	for i := range g {
		g[i] = slices.Clone(w[i])
	}
	members := make([][]int, n)
	alive := make([]int, n)
	for i := range members {
		members[i] = []int{i}
		alive[i] = i
	}
	best := math.Inf(1)
	var bestSide []int
	conn := make([]float64, n)
	for len(alive) > 1 {
		added := make([]bool, n)
		clear(conn)
		prev, last := -1, -1
		var cut float64
		for range alive {
			next := -1
			for _, v := range alive {
				if !added[v] && (next < 0 || conn[v] > conn[next]) {
					next = v
				}
			}
			added[next] = true
			prev, last, cut = last, next, conn[next]
			for _, v := range alive {
				conn[v] += g[next][v]
			}
		}
		if cut < best {
			best, bestSide = cut, slices.Clone(members[last])
		}
		// Merge last into prev.
		for _, v := range alive {
			g[prev][v] += g[last][v]
			g[v][prev] = g[prev][v]
		}
		g[prev][prev] = 0
		members[prev] = append(members[prev], members[last]...)
		alive = slices.DeleteFunc(alive, func(v int) bool { return v == last })
	}
	slices.Sort(bestSide)
	return bestSide
}

// clusterWeights returns the K x K matrix that averages uniformly within
// each cluster.
func clusterWeights(k int, clusters [][]int) [][]float64 {
	w := make([][]float64, k)
	for i := range w {
		w[i] = make([]float64, k)
	}
	for _, c := range clusters {
		for _, i := range c {
			for _, j := range c {
				w[i][j] = 1 / float64(len(c))
			}
		}
	}
	return w
}

// gcflState is GCFL's state between rounds.
type gcflState struct {
	Round    int     `json:"round"`
	Clusters [][]int `json:"clusters"`
}

// MarshalState returns the clusters and the round count (see Stateful).
func (g *gcfl) MarshalState() ([]byte, error) {
	return json.Marshal(gcflState{Round: g.round, Clusters: g.clusters})
}

// UnmarshalState restores a state returned by MarshalState.
func (g *gcfl) UnmarshalState(b []byte) error {
	var s gcflState
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("gcfl state: %w", err)
	}
	g.round, g.clusters = s.Round, s.Clusters
	return nil
}

// Clusters returns the current clusters (client indices); nil before the
// first round.
func (g *gcfl) Clusters() [][]int { return g.clusters }

// GCFLStep is GCFL's server step on the K updates dW, with the split
// forced so that the minimum cut is always measured: the update norms of
// the one cluster of all clients, the K x K cosine of the dW and the
// Stoer-Wagner cut of the complete graph (gcfl.Mix after its warm-up,
// with thresholds that always split). The dW arrive flat (the clients
// upload theta_end - theta_start as one vector), so there is nothing to
// flatten.
func GCFLStep(dw [][]float64) sim.ServerStep {
	return sim.ServerStep{Method: "gcfl", Input: floatBytes(dw), Run: func() sim.Mixing {
		g := forcedGCFL()
		return sim.MixSignatures(g.Mix, sim.SourceUpdate, dw, sim.Knobs{}, gcflWarmup+1)
	}}
}

// forcedGCFL returns a GCFL server in the round after its warm-up whose
// criterion splits every cluster of three or more clients.
func forcedGCFL() *gcfl {
	return &gcfl{eps1: math.Inf(1), eps2: math.Inf(-1), round: gcflWarmup}
}

// dot returns the dot product of a and b, summed in order.
func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
