package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/fedaux/fedaux/gnn"
)

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

func (*gcfl) Name() Algorithm          { return "gcfl" }
func (*gcfl) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = false, false }
func (*gcfl) Shares(p *gnn.Param) bool { return !p.Personal }
func (*gcfl) Uses() []Source           { return []Source{SourceUpdate} }

// ClientSide asks for the update signature.
func (*gcfl) ClientSide() ClientSide { return ClientSide{Update: true} }

// Mix splits the clusters that meet GCFL's criterion and returns the
// block-uniform weights of the new clusters.
func (g *gcfl) Mix(in *RoundInput) Mixing {
	k := len(in.Updates)
	g.round++
	if g.clusters == nil {
		all := make([]int, k)
		for i := range all {
			all[i] = i
		}
		g.clusters = [][]int{all}
	}
	sim := in.Views[SourceUpdate]
	dw := make([][]float64, k)
	for i, u := range in.Updates {
		dw[i] = u.Signatures[SourceUpdate]
	}
	var next [][]int
	norms := make([]ClusterNorm, len(g.clusters))
	for i, c := range g.clusters {
		norms[i].Mean, norms[i].Max = updateNorms(dw, c)
		if g.round > gcflWarmup && len(c) >= gcflMinSplit && g.shouldSplit(norms[i]) {
			a, b := splitCluster(sim, c)
			next = append(next, a, b)
			continue
		}
		next = append(next, c)
	}
	g.clusters = next
	return Mixing{W: clusterWeights(k, g.clusters), Similarity: sim, Source: SourceUpdate, Clusters: g.clusters, ClusterNorms: norms}
}

// shouldSplit applies GCFL's norm criterion to a cluster's statistics.
func (g *gcfl) shouldSplit(n ClusterNorm) bool {
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
// graph weighted by sim + 1. Both parts are sorted; the first holds c's
// smallest index.
func splitCluster(sim [][]float64, c []int) (a, b []int) {
	w := make([][]float64, len(c))
	for i, ci := range c {
		w[i] = make([]float64, len(c))
		for j, cj := range c {
			if i != j {
				w[i][j] = sim[ci][cj] + 1
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
		return fmt.Errorf("sim: gcfl state: %w", err)
	}
	g.round, g.clusters = s.Round, s.Clusters
	return nil
}

// Clusters returns the current clusters (client indices); nil before the
// first round.
func (g *gcfl) Clusters() [][]int { return g.clusters }
