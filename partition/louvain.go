package partition

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/graph/community"
	"gonum.org/v1/gonum/graph/simple"
)

// LouvainOptions configures Louvain. The zero value selects the defaults,
// which are OpenFGL's (louvain_resolution = 1, louvain_delta = 20).
type LouvainOptions struct {
	// Seed seeds the random node visit orders of the Louvain local moving
	// phase. Equal seeds give equal partitions.
	Seed uint64
	// Resolution is the modularity resolution gamma of Reichardt and
	// Bornholdt (larger values give more, smaller communities). Zero
	// selects 1 (Newman-Girvan modularity); it must be positive and finite.
	Resolution float64
	// Delta is OpenFGL's louvain_delta, the slack of the assignment of
	// communities to clients (see Louvain): communities are cut into
	// pieces of at most max(1, n/k - Delta) nodes, and a client accepts a
	// piece only while it then holds fewer than n/k + Delta nodes. Zero
	// selects 20; a negative value selects 0 (pieces of n/k nodes, so that
	// every community of at most n/k nodes stays whole). With the default,
	// graphs with n/k <= 21 are cut into single nodes: pass a small or
	// negative Delta for small graphs.
	Delta int
}

// Default values of the LouvainOptions fields.
const (
	DefaultResolution = 1.0
	DefaultDelta      = 20
)

// louvainStream is the random stream of Louvain for a seed.
const louvainStream = 0x4c6f7576 // "Louv"

// Louvain splits the undirected graph g into k clients made of Louvain
// communities, following the "louvain" subgraph-FL simulation of OpenFGL
// (xkLi-Allen/OpenFGL, openfgl/data/simulation.py, subgraph_fl_louvain).
// Louvain clients were introduced to subgraph FL by FedSage+ (K. Zhang et
// al., "Subgraph Federated Learning with Missing Neighbor Generation",
// NeurIPS 2021) and are used by FederatedScope; the code here is our own.
//
// First, the communities of g are found by Louvain modularity maximisation
// (V. D. Blondel et al., "Fast unfolding of communities in large
// networks", J. Stat. Mech. 2008, P10008), with gonum's
// community.Modularize at resolution opts.Resolution on g as an unweighted
// simple.UndirectedGraph, its random source a PCG stream of opts.Seed; the
// communities of the top level of the hierarchy are used. OpenFGL uses
// scikit-network's Louvain instead, so the communities themselves differ.
//
// Then the communities are brought to exactly k clients by OpenFGL's rule,
// with q = floor(n/k) and d = opts.Delta:
//
//  1. The communities are listed in the order of their smallest node, each
//     with its nodes in ascending order. A community of more than
//     c = max(1, q-d) nodes keeps its first c nodes and the rest is
//     appended to the end of the list as a new piece, which is cut in turn
//     when the scan reaches it. (OpenFGL has no max(1, ...): with q <= d it
//     loops for ever.)
//  2. The pieces are sorted by size, largest first; equal sizes keep their
//     list order (a stable sort, as Python's sorted).
//  3. The clients 0..k-1 form a circular list with a pointer at client 0.
//     For each piece P in turn: while at least two clients remain in the
//     list and the client at the pointer holds q or more nodes, that client
//     leaves the list (the pointer stays at the same position, modulo the
//     new length). Then the pointer advances circularly to the first client,
//     starting at itself, that would hold fewer than q+d nodes with P, and
//     P goes to that client; the pointer stays there. If no client in the
//     list would, P goes to the one holding the fewest nodes (the first in
//     list order on ties) and the pointer moves there. (OpenFGL searches
//     1000 steps and then runs a fallback loop that, through an indexing
//     slip, does not find the smallest client; the smallest client is what
//     it evidently intends.)
//  4. Our addition, so that no client is empty (OpenFGL leaves a client
//     empty when the others absorb all pieces): while some client is
//     empty, the lowest-numbered empty client receives, from the client
//     holding the most nodes (the lowest-numbered on ties), the last
//     floor(m/2) nodes of that client's largest piece, of m nodes (the
//     earliest received on ties), if m >= 2, or else (all its pieces are
//     single nodes) its last received piece. For n >= k that client holds
//     at least two nodes, so no client is emptied.
//
// Client i is a client id in 0..k-1; clients are numbered as in step 3,
// so client 0 receives the largest piece. Every client is non-empty. The
// result is a deterministic function of g, k and opts: the modularity
// gains of an unweighted graph are sums of integers, exact in any order,
// and gonum shuffles the nodes from sorted order and scans candidate
// communities in sorted order, so its map-based graph adds no
// nondeterminism. Errors are returned for an invalid graph, k < 1, k > n
// and an invalid resolution.
func Louvain(g Graph, k int, opts LouvainOptions) ([]int, error) {
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("partition: louvain: invalid graph: %w", err)
	}
	n := g.n()
	if k < 1 || k > n {
		return nil, fmt.Errorf("partition: louvain: k = %d, want 1 <= k <= %d nodes", k, n)
	}
	res := opts.Resolution
	switch {
	case res == 0:
		res = DefaultResolution
	case !(res > 0) || math.IsInf(res, 0):
		return nil, fmt.Errorf("partition: louvain: resolution = %v, want a positive finite number", opts.Resolution)
	}
	delta := opts.Delta
	switch {
	case delta == 0:
		delta = DefaultDelta
	case delta < 0:
		delta = 0
	}
	parts, _ := assignCommunities(louvainCommunities(g, res, opts.Seed), n, k, delta)
	return parts, nil
}

// louvainCommunities returns the top-level Louvain communities of g, each
// sorted, ordered by their smallest node.
func louvainCommunities(g Graph, resolution float64, seed uint64) [][]int {
	n := g.n()
	sg := simple.NewUndirectedGraph()
	for i := 0; i < n; i++ {
		sg.AddNode(simple.Node(int64(i)))
	}
	for i := 0; i < n; i++ {
		for _, j := range g.Indices[g.Indptr[i]:g.Indptr[i+1]] {
			if i < j {
				sg.SetEdge(simple.Edge{F: simple.Node(int64(i)), T: simple.Node(int64(j))})
			}
		}
	}
	reduced := community.Modularize(sg, resolution, rand.NewPCG(seed, louvainStream))
	var comms [][]int
	for _, members := range reduced.Communities() {
		if len(members) == 0 {
			continue
		}
		c := make([]int, len(members))
		for i, v := range members {
			c[i] = int(v.ID())
		}
		slices.Sort(c)
		comms = append(comms, c)
	}
	slices.SortFunc(comms, func(a, b []int) int { return cmp.Compare(a[0], b[0]) })
	return comms
}

// assignCommunities brings communities (disjoint, covering 0..n-1, in the
// order of step 1 of Louvain's doc comment) to exactly k non-empty
// clients by the rule in that comment; 1 <= k <= n. It also returns the
// number of pieces moved by step 4.
func assignCommunities(comms [][]int, n, k, delta int) (parts []int, repairs int) {
	q := n / k
	chunk := max(1, q-delta)
	// Step 1: cut communities into pieces of at most chunk nodes.
	pieces := slices.Clone(comms)
	for i := 0; i < len(pieces); i++ {
		if p := pieces[i]; len(p) > chunk {
			pieces[i] = p[:chunk:chunk]
			pieces = append(pieces, p[chunk:])
		}
	}
	// Step 2: largest first, stable.
	slices.SortStableFunc(pieces, func(a, b []int) int { return cmp.Compare(len(b), len(a)) })
	// Step 3: greedy circular assignment.
	size := make([]int, k)
	held := make([][][]int, k) // pieces of each client, in the order received
	owners := make([]int, k)
	for i := range owners {
		owners[i] = i
	}
	ptr := 0
	for _, p := range pieces {
		for len(owners) >= 2 && size[owners[ptr]] >= q {
			owners = slices.Delete(owners, ptr, ptr+1)
			ptr %= len(owners)
		}
		found := false
		for step := range owners {
			j := (ptr + step) % len(owners)
			if size[owners[j]]+len(p) < q+delta {
				ptr, found = j, true
				break
			}
		}
		if !found {
			ptr = 0
			for j := range owners {
				if size[owners[j]] < size[owners[ptr]] {
					ptr = j
				}
			}
		}
		o := owners[ptr]
		held[o] = append(held[o], p)
		size[o] += len(p)
	}
	// Step 4: no empty client.
	for {
		empty := slices.Index(size, 0)
		if empty < 0 {
			break
		}
		donor := 0
		for c := range size {
			if size[c] > size[donor] {
				donor = c
			}
		}
		big := 0
		for i, p := range held[donor] {
			if len(p) > len(held[donor][big]) {
				big = i
			}
		}
		var moved []int
		if p := held[donor][big]; len(p) >= 2 {
			keep := len(p) - len(p)/2
			held[donor][big], moved = p[:keep:keep], p[keep:]
		} else {
			last := len(held[donor]) - 1
			moved = held[donor][last]
			held[donor] = held[donor][:last]
		}
		held[empty] = append(held[empty], moved)
		repairs++
		size[donor] -= len(moved)
		size[empty] += len(moved)
	}
	parts = make([]int, n)
	for c, ps := range held {
		for _, p := range ps {
			for _, v := range p {
				parts[v] = c
			}
		}
	}
	return parts, repairs
}
