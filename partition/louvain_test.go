package partition

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// checkParts fails unless parts holds one part in 0..k-1 per node and
// every part is non-empty.
func checkParts(t *testing.T, parts []int, n, k int) {
	t.Helper()
	if len(parts) != n {
		t.Fatalf("%d parts for %d nodes", len(parts), n)
	}
	sizes := make([]int, k)
	for i, p := range parts {
		if p < 0 || p >= k {
			t.Fatalf("node %d in part %d, want 0..%d", i, p, k-1)
		}
		sizes[p]++
	}
	if slices.Contains(sizes, 0) {
		t.Fatalf("empty part: sizes %v", sizes)
	}
}

// withIsolated returns g with m isolated nodes appended.
func withIsolated(g Graph, m int) Graph {
	out := Graph{Indptr: slices.Clone(g.Indptr), Indices: slices.Clone(g.Indices)}
	for i := 0; i < m; i++ {
		out.Indptr = append(out.Indptr, len(out.Indices))
	}
	return out
}

func TestLouvainCliques(t *testing.T) {
	for _, m := range []int{5, 8, 30} {
		g := testCliques(m)
		for seed := uint64(0); seed < 5; seed++ {
			// Delta < 0: pieces of n/k = m nodes, so each clique stays whole.
			parts, err := Louvain(g, 2, LouvainOptions{Seed: seed, Delta: -1})
			if err != nil {
				t.Fatal(err)
			}
			checkParts(t, parts, 2*m, 2)
			for i := range parts {
				want := parts[0]
				if i >= m {
					want = 1 - parts[0]
				}
				if parts[i] != want {
					t.Fatalf("m=%d seed %d: parts %v, want the two cliques", m, seed, parts)
				}
			}
			if c := EdgeCut(g, parts); c != 1 {
				t.Fatalf("m=%d seed %d: cut %d, want 1", m, seed, c)
			}
		}
	}
}

func TestLouvainCommunitiesCliques(t *testing.T) {
	// Four cliques of 6 in a ring of single edges: four communities.
	var edges [][2]int
	for b := 0; b < 4; b++ {
		for i := 0; i < 6; i++ {
			for j := i + 1; j < 6; j++ {
				edges = append(edges, [2]int{6*b + i, 6*b + j})
			}
		}
		edges = append(edges, [2]int{6*b + 5, (6*b + 6) % 24})
	}
	g := testGraph(24, edges)
	comms := louvainCommunities(g, 1, 3)
	want := [][]int{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}, {12, 13, 14, 15, 16, 17}, {18, 19, 20, 21, 22, 23}}
	if !slices.EqualFunc(comms, want, slices.Equal) {
		t.Fatalf("communities %v, want %v", comms, want)
	}
	// A high resolution splits more finely.
	if fine := louvainCommunities(g, 20, 3); len(fine) <= 4 {
		t.Fatalf("resolution 20: %d communities, want more than 4", len(fine))
	}
}

func TestLouvainShapes(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    Graph
		k    int
		opts LouvainOptions
	}{
		{"ring30/k=3", testRing(30), 3, LouvainOptions{Seed: 1}},
		{"ring30/k=3/delta0", testRing(30), 3, LouvainOptions{Seed: 1, Delta: -1}},
		{"ring10/k=n", testRing(10), 10, LouvainOptions{Seed: 2}},
		{"ring10/k=1", testRing(10), 1, LouvainOptions{Seed: 2}},
		{"grid8x8/k=4", testGrid(8, 8), 4, LouvainOptions{Seed: 3, Delta: 2}},
		{"isolated", withIsolated(testCliques(6), 5), 3, LouvainOptions{Seed: 4, Delta: -1}},
		{"only-isolated/k=n", withIsolated(Graph{Indptr: []int{0}}, 7), 7, LouvainOptions{}},
		{"only-isolated/k=3", withIsolated(Graph{Indptr: []int{0}}, 7), 3, LouvainOptions{}},
		{"random200/k=7", testRandom(200, 300, 5), 7, LouvainOptions{Seed: 5, Delta: 3}},
		{"random200/k=7/res2", testRandom(200, 300, 5), 7, LouvainOptions{Seed: 5, Resolution: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.g.n()
			parts, err := Louvain(tc.g, tc.k, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkParts(t, parts, n, tc.k)
			if tc.k == n {
				if got := slices.Sorted(slices.Values(parts)); !slices.Equal(got, identity(n)) {
					t.Fatalf("k = n: parts %v, want one node each", parts)
				}
			}
		})
	}
}

func TestLouvainDeterministic(t *testing.T) {
	g := testRandom(300, 600, 9)
	want, err := Louvain(g, 6, LouvainOptions{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	// gonum's simple graph iterates maps: repeat to catch any order
	// dependence.
	for i := 0; i < 5; i++ {
		got, err := Louvain(g, 6, LouvainOptions{Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("run %d differs from the first", i)
		}
	}
}

func TestLouvainErrors(t *testing.T) {
	ring := testRing(10)
	for _, tc := range []struct {
		name string
		g    Graph
		k    int
		opts LouvainOptions
		want string
	}{
		{"k=0", ring, 0, LouvainOptions{}, "partition: louvain: k = 0, want 1 <= k <= 10 nodes"},
		{"k<0", ring, -2, LouvainOptions{}, "k = -2, want 1 <= k <= 10 nodes"},
		{"k>n", ring, 11, LouvainOptions{}, "k = 11, want 1 <= k <= 10 nodes"},
		{"empty graph", Graph{Indptr: []int{0}}, 1, LouvainOptions{}, "k = 1, want 1 <= k <= 0 nodes"},
		{"no indptr", Graph{}, 1, LouvainOptions{}, "partition: louvain: invalid graph: indptr is empty"},
		{"asymmetric", Graph{Indptr: []int{0, 1, 1}, Indices: []int{1}}, 1, LouvainOptions{}, "invalid graph: adjacency not symmetric"},
		{"self loop", Graph{Indptr: []int{0, 1}, Indices: []int{0}}, 1, LouvainOptions{}, "invalid graph: self loop"},
		{"resolution<0", ring, 2, LouvainOptions{Resolution: -1}, "resolution = -1, want a positive finite number"},
		{"resolution NaN", ring, 2, LouvainOptions{Resolution: math.NaN()}, "resolution = NaN"},
		{"resolution Inf", ring, 2, LouvainOptions{Resolution: math.Inf(1)}, "resolution = +Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts, err := Louvain(tc.g, tc.k, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want error containing %q", parts, err, tc.want)
			}
		})
	}
}

// TestAssignCommunities pins OpenFGL's rule on cases worked out by hand
// (see Louvain's doc comment).
func TestAssignCommunities(t *testing.T) {
	rng := func(lo, hi int) []int { return identity(hi)[lo:] }
	for _, tc := range []struct {
		name    string
		comms   [][]int
		n, k, d int
		want    []int
		repairs int
	}{
		{
			// q = 5, pieces of <= 4: [0-3] [6-8] [9] [4 5], sorted
			// [0-3] [6-8] [4 5] [9]. [6-8] does not fit client 0 (4+3 >= 6),
			// goes to client 1, which also takes [4 5]; client 1 is full
			// and leaves, so [9] goes to client 0.
			name: "fit", comms: [][]int{rng(0, 6), rng(6, 9), {9}}, n: 10, k: 2, d: 1,
			want: []int{0, 0, 0, 0, 1, 1, 1, 1, 1, 0},
		},
		{
			// d = 0: nothing fits (size+3 < 3 never holds), so every piece
			// goes to the smallest client.
			name: "fallback", comms: [][]int{rng(0, 3), rng(3, 6)}, n: 6, k: 2, d: 0,
			want: []int{0, 0, 0, 1, 1, 1},
		},
		{
			// q = 11, pieces of <= 5, clients accept while below 17 nodes:
			// clients 0-2 take three pieces of 5 each, client 3 the small
			// pieces, client 4 nothing; step 4 moves the last 2 nodes of
			// client 0's first piece [0-4] to client 4.
			name: "empty", n: 56, k: 5, d: 6,
			comms: [][]int{rng(0, 6), rng(6, 10), rng(10, 35), rng(35, 38), rng(38, 55), {55}},
			want: func() []int {
				p := make([]int, 56)
				for c, r := range [][][2]int{
					{{0, 3}, {10, 15}, {38, 43}},
					{{15, 25}, {43, 48}},
					{{25, 35}, {48, 53}},
					{{5, 10}, {35, 38}, {53, 56}},
					{{3, 5}},
				} {
					for _, lh := range r {
						for v := lh[0]; v < lh[1]; v++ {
							p[v] = c
						}
					}
				}
				return p
			}(),
			repairs: 1,
		},
		{
			// k = n with the default delta: single-node pieces in the
			// order [0] [3] [1] [2] (tails go to the end of the list), one
			// per client.
			name: "k=n", comms: [][]int{rng(0, 3), {3}}, n: 4, k: 4, d: 20,
			want: []int{0, 2, 3, 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, repairs := assignCommunities(tc.comms, tc.n, tc.k, tc.d)
			if !slices.Equal(got, tc.want) || repairs != tc.repairs {
				t.Fatalf("got %v (%d repairs)\nwant %v (%d repairs)", got, repairs, tc.want, tc.repairs)
			}
		})
	}
}

// TestAssignCommunitiesRandom checks on many random community structures
// that every client is non-empty.
func TestAssignCommunitiesRandom(t *testing.T) {
	r := newSplitMix(5, 5)
	repaired := 0
	for trial := 0; trial < 20000; trial++ {
		n := 1 + r.intn(60)
		k := 1 + r.intn(n)
		delta := r.intn(25)
		var comms [][]int
		for v := 0; v < n; {
			m := 1 + r.intn(n-v)
			if r.intn(2) == 0 {
				m = 1 + r.intn(min(n-v, 6))
			}
			comms = append(comms, identity(v + m)[v:])
			v += m
		}
		parts, repairs := assignCommunities(comms, n, k, delta)
		repaired += min(repairs, 1)
		checkParts(t, parts, n, k)
	}
	t.Logf("step 4 repaired %d of 20000 random cases", repaired)
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}
