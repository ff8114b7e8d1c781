package graphio

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// datasetCounts holds each dataset's published counts.
var datasetCounts = []struct {
	file                              string
	nodes, edges, classes, feats, nnz int
	lcc                               int
	labelCounts                       []int
}{
	{"cora", 2708, 5278, 7, 1433, 49216, 2485, []int{351, 217, 418, 818, 426, 298, 180}},
	{"citeseer", 3327, 4552, 6, 3703, 105165, 2120, []int{264, 590, 668, 701, 596, 508}},
	{"amazon_electronics_computers", 13752, 245861, 10, 767, 3675081, 13381,
		[]int{436, 2142, 1414, 542, 5158, 308, 487, 818, 2156, 291}},
	{"amazon_electronics_photo", 7650, 119081, 8, 745, 1979909, 7487,
		[]int{369, 1686, 703, 915, 882, 823, 1941, 331}},
}

// checkGraphInvariants checks what Graph promises: a valid square
// symmetric adjacency with sorted columns, no self loops or duplicates,
// values 1, and features and labels for every node.
func checkGraphInvariants(t *testing.T, g *Graph) {
	t.Helper()
	a := g.Adj
	if err := a.Validate(); err != nil {
		t.Fatalf("%s: adjacency: %v", g.Name, err)
	}
	if a.Rows != a.Cols {
		t.Fatalf("%s: adjacency %dx%d", g.Name, a.Rows, a.Cols)
	}
	for i := range a.Rows {
		cols, vals := a.Row(i)
		for k, j := range cols {
			if j == i {
				t.Fatalf("%s: self loop at %d", g.Name, i)
			}
			if k > 0 && j <= cols[k-1] {
				t.Fatalf("%s: row %d not strictly sorted", g.Name, i)
			}
			if vals[k] != 1 {
				t.Fatalf("%s: edge (%d,%d) has value %v", g.Name, i, j, vals[k])
			}
			back, _ := a.Row(j)
			if _, ok := slices.BinarySearch(back, i); !ok {
				t.Fatalf("%s: edge (%d,%d) has no reverse", g.Name, i, j)
			}
		}
	}
	if len(g.Labels) != g.N() {
		t.Fatalf("%s: %d labels for %d nodes", g.Name, len(g.Labels), g.N())
	}
	if (g.Features == nil) == (g.Dense == nil) {
		t.Fatalf("%s: want exactly one of Features and Dense", g.Name)
	}
	if g.Features != nil {
		if err := g.Features.Validate(); err != nil {
			t.Fatalf("%s: features: %v", g.Name, err)
		}
		if g.Features.Rows != g.N() {
			t.Fatalf("%s: %d feature rows for %d nodes", g.Name, g.Features.Rows, g.N())
		}
	} else if r, _ := g.Dense.Dims(); r != g.N() {
		t.Fatalf("%s: %d dense feature rows for %d nodes", g.Name, r, g.N())
	}
}

func TestLoadNPZCounts(t *testing.T) {
	for _, d := range datasetCounts {
		t.Run(d.file, func(t *testing.T) {
			g := loadTestDataset(t, d.file)
			if g.Name != d.file {
				t.Errorf("Name = %q, want %q", g.Name, d.file)
			}
			checkGraphInvariants(t, g)
			got := []int{g.N(), g.NumEdges(), g.Adj.NNZ(), g.NumClasses, g.NumFeatures(), g.Features.NNZ()}
			want := []int{d.nodes, d.edges, 2 * d.edges, d.classes, d.feats, d.nnz}
			if !slices.Equal(got, want) {
				t.Errorf("nodes, edges, directed edges, classes, features, feature nnz = %v, want %v", got, want)
			}
			counts := make([]int, g.NumClasses)
			for _, y := range g.Labels {
				counts[y]++
			}
			if !slices.Equal(counts, d.labelCounts) {
				t.Errorf("label counts %v, want %v", counts, d.labelCounts)
			}
			for _, v := range g.Features.Values {
				if v != 1 {
					t.Fatalf("feature value %v, want 1 (binary features)", v)
				}
			}

			lcc, kept := LargestComponent(g)
			if lcc.N() != d.lcc || len(kept) != d.lcc {
				t.Errorf("LCC has %d nodes (%d kept ids), want %d", lcc.N(), len(kept), d.lcc)
			}
			if !slices.IsSorted(kept) {
				t.Errorf("kept ids not ascending")
			}
			checkGraphInvariants(t, lcc)
			if _, sizes := Components(lcc); len(sizes) != 1 {
				t.Errorf("LCC has %d components", len(sizes))
			}
			for i, u := range kept {
				if lcc.Labels[i] != g.Labels[u] {
					t.Fatalf("LCC label %d differs from original node %d", i, u)
				}
				c1, _ := lcc.Features.Row(i)
				c0, _ := g.Features.Row(u)
				if !slices.Equal(c0, c1) {
					t.Fatalf("LCC feature row %d differs from original node %d", i, u)
				}
			}

			RowNormalize(lcc)
			for i := range lcc.N() {
				_, vals := lcc.Features.Row(i)
				s := 0.0
				for _, v := range vals {
					s += v
				}
				if len(vals) > 0 && math.Abs(s-1) > 1e-12 {
					t.Fatalf("row %d sums to %v after RowNormalize", i, s)
				}
			}
			if _, vals := g.Features.Row(kept[0]); vals[0] != 1 {
				t.Errorf("RowNormalize of the LCC changed the original graph")
			}
		})
	}
}

func TestLoadNPZCora(t *testing.T) {
	g := loadTestDataset(t, "cora")
	if want := []int{3, 4, 4, 0, 3, 2, 0, 3, 3, 2}; !slices.Equal(g.Labels[:10], want) {
		t.Errorf("y[:10] = %v, want %v", g.Labels[:10], want)
	}
	c0, _ := g.Adj.Row(0)
	c1, _ := g.Adj.Row(1)
	if !slices.Equal(c0, []int{633, 1862, 2582}) || c1[0] != 2 {
		t.Errorf("first edges: row 0 %v, row 1 %v; want [633 1862 2582] and (1,2) first", c0, c1)
	}
	if _, sizes := Components(g); len(sizes) != 78 {
		t.Errorf("cora has %d components, want 78", len(sizes))
	}
}

func TestLoadNPZCiteSeerIsolated(t *testing.T) {
	g := loadTestDataset(t, "citeseer")
	comp, sizes := Components(g)
	if len(sizes) != 438 {
		t.Errorf("citeseer has %d components, want 438", len(sizes))
	}
	isolated := 0
	for u := range g.N() {
		if sizes[comp[u]] == 1 {
			isolated++
		}
	}
	if isolated != 48 {
		t.Errorf("citeseer has %d isolated nodes, want 48", isolated)
	}
	if cols, _ := g.Features.Row(2407); len(cols) != 0 || g.Labels[2407] != 0 {
		t.Errorf("node 2407: %d features, label %d; want a zero row and label 0", len(cols), g.Labels[2407])
	}
}

// TestCanonicalCSR checks canonicalCSR against its definition (each row's
// entries sorted by column, the values of a repeated column summed in the
// order a stable sort leaves them) on random rows: sorted and unsorted,
// with and without repeated columns, dense in their columns (placed
// through the table) and sparse (sorted).
func TestCanonicalCSR(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, cols := range []int{1, 5, 64, 767, 5000} {
		for trial := range 20 {
			c := &CSR{Rows: 30, Cols: cols, Indptr: []int{0}}
			for range c.Rows {
				k := rng.IntN(3*cols/2 + 2)
				if trial%2 == 0 {
					k = min(k, cols) // often without repeats
				}
				perm := rng.Perm(cols)
				for e := range k {
					j := perm[e%cols]
					if trial%2 == 1 {
						j = rng.IntN(cols)
					}
					c.Indices = append(c.Indices, j)
					c.Values = append(c.Values, float64(rng.IntN(7))+rng.Float64()/3)
				}
				if trial%4 == 0 {
					slices.Sort(c.Indices[c.Indptr[len(c.Indptr)-1]:])
				}
				c.Indptr = append(c.Indptr, len(c.Indices))
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			got := canonicalCSR(c)
			for i := range c.Rows {
				rc, rv := c.Row(i)
				type ent struct {
					j int
					v float64
				}
				var want []ent
				for k, j := range rc {
					want = append(want, ent{j, rv[k]})
				}
				slices.SortStableFunc(want, func(a, b ent) int { return cmp.Compare(a.j, b.j) })
				dups := false
				for k := len(want) - 1; k > 0; k-- {
					if want[k].j == want[k-1].j {
						dups = true
					}
				}
				gc, gv := got.Row(i)
				if dups {
					// Summed in the order of an unstable sort: compare
					// columns and sums to rounding.
					var sum []ent
					for _, e := range want {
						if n := len(sum); n > 0 && sum[n-1].j == e.j {
							sum[n-1].v += e.v
							continue
						}
						sum = append(sum, e)
					}
					want = sum
				}
				if len(gc) != len(want) {
					t.Fatalf("cols %d trial %d row %d: %d entries, want %d", cols, trial, i, len(gc), len(want))
				}
				for k, e := range want {
					if gc[k] != e.j || (!dups && gv[k] != e.v) || math.Abs(gv[k]-e.v) > 1e-9*math.Abs(e.v) {
						t.Fatalf("cols %d trial %d row %d entry %d: (%d, %v), want (%d, %v)", cols, trial, i, k, gc[k], gv[k], e.j, e.v)
					}
				}
			}
		}
	}
}
