package graphio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/fedaux/fedaux/internal/datadir"
)

// nonIIDClient builds a client with the given labels, dense features (one
// row per node) and undirected edges.
func nonIIDClient(id int, labels []int, feats [][]float64, edges [][2]int) *Client {
	n := len(labels)
	var pairs [][2]int32
	for _, e := range edges {
		pairs = append(pairs, [2]int32{int32(e[0]), int32(e[1])})
	}
	g := &Graph{Adj: nonIIDEdges(n, pairs), Labels: labels}
	if feats != nil {
		g.Dense = mat.NewDense(n, len(feats[0]), slices.Concat(feats...))
	}
	return &Client{ID: id, Graph: g, Nodes: make([]int, n)}
}

// nonIIDEdges builds a symmetric CSR from distinct undirected edges.
func nonIIDEdges(n int, edges [][2]int32) *CSR {
	rows := make([][]int, n)
	for _, e := range edges {
		rows[e[0]] = append(rows[e[0]], int(e[1]))
		rows[e[1]] = append(rows[e[1]], int(e[0]))
	}
	c := &CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: []int{}}
	for i, r := range rows {
		slices.Sort(r)
		c.Indices = append(c.Indices, r...)
		c.Indptr[i+1] = len(c.Indices)
	}
	c.Values = make([]float64, len(c.Indices))
	for i := range c.Values {
		c.Values[i] = 1
	}
	return c
}

func TestNonIIDJSDHand(t *testing.T) {
	one := [][]float64{{1}, {2}}
	// Two pure clients of two classes: P = (1/2, 1/2), P_A = (1, 0),
	// R = (3/4, 1/4): KL(P_A||R) = ln(4/3), KL(P||R) = ln(4/3)/2, so
	// JS = 3/4 ln(4/3) for either client.
	e := [][2]int{{0, 1}}
	a := nonIIDClient(0, []int{0, 0}, one, e)
	b := nonIIDClient(1, []int{1, 1}, [][]float64{{3}, {5}}, e)
	st, err := NonIID([]*Client{a, b}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.75 * math.Log(4.0/3)
	if math.Abs(st.JSD-want) > 1e-15 || math.Abs(st.JS[0]-want) > 1e-15 {
		t.Errorf("JSD = %v (JS %v), want %v", st.JSD, st.JS, want)
	}
	// Unequal sizes, three classes: A = {0,0,0,1}, B = {1,2}.
	// P = (3/6, 2/6, 1/6), P_A = (3/4, 1/4, 0), P_B = (0, 1/2, 1/2).
	a = nonIIDClient(0, []int{0, 0, 0, 1}, [][]float64{{1}, {2}, {3}, {4}}, [][2]int{{0, 1}, {1, 2}, {2, 3}})
	b = nonIIDClient(1, []int{1, 2}, one, e)
	st, err = NonIID([]*Client{a, b}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// JS(P_A,P): R = (5/8, 7/24, 1/12).
	jsA := 0.5*(0.75*math.Log(0.75/(5.0/8))+0.25*math.Log(0.25/(7.0/24))) +
		0.5*(0.5*math.Log(0.5/(5.0/8))+(1.0/3)*math.Log((1.0/3)/(7.0/24))+(1.0/6)*math.Log((1.0/6)/(1.0/12)))
	// JS(P_B,P): R = (1/4, 5/12, 1/3).
	jsB := 0.5*(0.5*math.Log(0.5/(5.0/12))+0.5*math.Log(0.5/(1.0/3))) +
		0.5*(0.5*math.Log(0.5/0.25)+(1.0/3)*math.Log((1.0/3)/(5.0/12))+(1.0/6)*math.Log((1.0/6)/(1.0/3)))
	if math.Abs(st.JS[0]-jsA) > 1e-15 || math.Abs(st.JS[1]-jsB) > 1e-15 {
		t.Errorf("JS = %v, want [%v %v]", st.JS, jsA, jsB)
	}
	if got, want := st.JSD, (jsA+jsB)/2; math.Abs(got-want) > 1e-15 {
		t.Errorf("JSD = %v, want %v", got, want)
	}
	if want := []float64{0.5, 1.0 / 3, 1.0 / 6}; !nonIIDNear(st.Prior, want, 1e-15) {
		t.Errorf("Prior = %v, want %v", st.Prior, want)
	}
	if !slices.Equal(st.Counts[0], []int{3, 1, 0}) || !slices.Equal(st.Counts[1], []int{0, 1, 1}) {
		t.Errorf("Counts = %v", st.Counts)
	}
	if math.Abs(st.Xi-st.JSD-st.MMD) > 1e-15 {
		t.Errorf("Xi = %v, want JSD + MMD = %v", st.Xi, st.JSD+st.MMD)
	}
}

func nonIIDNear(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// randomClient returns a client with n nodes, f dense features drawn from
// N(shift, 1), random labels in [0, c) and a random edge set.
func nonIIDRandomClient(r *rand.Rand, id, n, f, c int, shift float64) *Client {
	return nonIIDSparseClient(r, id, n, f, c, shift, 1)
}

// nonIIDSparseClient is nonIIDRandomClient with each feature kept with
// probability density (the others are zero).
func nonIIDSparseClient(r *rand.Rand, id, n, f, c int, shift, density float64) *Client {
	labels := make([]int, n)
	feats := make([][]float64, n)
	for i := range n {
		labels[i] = r.IntN(c)
		feats[i] = make([]float64, f)
		for j := range f {
			if r.Float64() < density {
				feats[i][j] = r.NormFloat64() + shift
			}
		}
	}
	seen := map[[2]int]bool{}
	var edges [][2]int
	for range 2 * n {
		u, v := r.IntN(n), r.IntN(n)
		if u == v {
			continue
		}
		u, v = min(u, v), max(u, v)
		if !seen[[2]int{u, v}] {
			seen[[2]int{u, v}] = true
			edges = append(edges, [2]int{u, v})
		}
	}
	return nonIIDClient(id, labels, feats, edges)
}

// nonIIDBruteMMD computes the pairwise squared MMDs and bandwidth naively in
// float64 from the definitions.
func nonIIDBruteMMD(clients []*Client) ([][]float64, float64) {
	var zs [][][]float64
	var all [][]float64
	for _, c := range clients {
		g := c.Graph
		_, f := g.Dense.Dims()
		var z [][]float64
		for i := range g.N() {
			row := make([]float64, f)
			cols, _ := g.Adj.Row(i)
			for _, j := range cols {
				for t := range f {
					row[t] += g.Dense.At(j, t)
				}
			}
			z = append(z, row)
		}
		zs = append(zs, z)
		all = append(all, z...)
	}
	dist := func(x, y []float64) float64 {
		var s float64
		for i := range x {
			s += (x[i] - y[i]) * (x[i] - y[i])
		}
		return math.Sqrt(s)
	}
	var ds []float64
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			ds = append(ds, dist(all[i], all[j]))
		}
	}
	sort.Float64s(ds)
	bw := ds[len(ds)/2]
	if len(ds)%2 == 0 {
		bw = (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
	}
	mean := func(a, b [][]float64) float64 {
		var s float64
		for _, x := range a {
			for _, y := range b {
				d := dist(x, y)
				s += math.Exp(-d * d / (2 * bw * bw))
			}
		}
		return s / float64(len(a)*len(b))
	}
	k := len(zs)
	out := make([][]float64, k)
	for a := range k {
		out[a] = make([]float64, k)
		for b := range k {
			if a != b {
				out[a][b] = mean(zs[a], zs[a]) + mean(zs[b], zs[b]) - 2*mean(zs[a], zs[b])
			}
		}
	}
	return out, bw
}

func TestNonIIDMMDMatchesBruteForce(t *testing.T) {
	// Dense z takes the Gemm path, sparse z (1 % of 200 features) the
	// sparse product path.
	t.Run("dense", func(t *testing.T) { testNonIIDBrute(t, 7, 1) })
	t.Run("sparse", func(t *testing.T) { testNonIIDBrute(t, 200, 0.01) })
}

func testNonIIDBrute(t *testing.T, f int, density float64) {
	r := rand.New(rand.NewPCG(1, 2))
	// Sizes straddle the Z Z^T block size so that several blocks are used.
	clients := []*Client{
		nonIIDSparseClient(r, 0, 300, f, 3, 0, density),
		nonIIDSparseClient(r, 1, 1, f, 3, 0.5, density), // a single node
		nonIIDSparseClient(r, 2, 151, f, 3, 0.2, density),
		nonIIDSparseClient(r, 3, 80, f, 3, 1, density),
	}
	st, err := NonIIDWith(clients, 3, NonIIDOptions{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	want, bw := nonIIDBruteMMD(clients)
	if math.Abs(st.Bandwidth-bw) > 1e-6*bw {
		t.Errorf("Bandwidth = %v, want %v", st.Bandwidth, bw)
	}
	var mean float64
	for a := range want {
		for b := range want {
			if math.Abs(st.PairMMD[a][b]-want[a][b]) > 1e-6 {
				t.Errorf("PairMMD[%d][%d] = %v, want %v", a, b, st.PairMMD[a][b], want[a][b])
			}
			if b > a {
				mean += want[a][b]
			}
		}
	}
	mean /= 6
	if math.Abs(st.MMD-mean) > 1e-6 {
		t.Errorf("MMD = %v, want %v", st.MMD, mean)
	}
	if st.Nodes != 532 {
		t.Errorf("Nodes = %d, want 532", st.Nodes)
	}
	// One worker gives the same numbers, bit for bit.
	st1, err := NonIIDWith(clients, 3, NonIIDOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st1.MMD != st.MMD || st1.Bandwidth != st.Bandwidth {
		t.Errorf("1 worker: MMD %v bandwidth %v; 3 workers: %v %v", st1.MMD, st1.Bandwidth, st.MMD, st.Bandwidth)
	}
}

func TestNonIIDMMDIdenticalAndSymmetric(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := nonIIDRandomClient(r, 0, 60, 5, 2, 0)
	twin := &Client{ID: 1, Graph: a.Graph, Nodes: a.Nodes}
	b := nonIIDRandomClient(r, 2, 40, 5, 2, 0.7)
	st, err := NonIID([]*Client{a, twin, b}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if st.PairMMD[0][1] > 1e-9 {
		t.Errorf("MMD of identical clients = %v, want 0", st.PairMMD[0][1])
	}
	if st.JS[0] != st.JS[1] {
		t.Errorf("JS of identical clients differ: %v", st.JS)
	}
	if st.PairMMD[0][2] <= 1e-3 || st.PairMMD[1][2] <= 1e-3 {
		t.Errorf("MMD of different clients = %v, %v, want > 0", st.PairMMD[0][2], st.PairMMD[1][2])
	}
	// Reversing the client order leaves every pair's value unchanged.
	rev, err := NonIID([]*Client{b, twin, a}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(rev.PairMMD[0][2]-st.PairMMD[2][0]) > 1e-9 || math.Abs(rev.PairMMD[0][1]-st.PairMMD[1][2]) > 1e-9 {
		t.Errorf("not symmetric: %v vs %v", rev.PairMMD, st.PairMMD)
	}
	if math.Abs(rev.MMD-st.MMD) > 1e-9 || math.Abs(rev.JSD-st.JSD) > 1e-15 {
		t.Errorf("order changes MMD/JSD: %v/%v vs %v/%v", rev.MMD, rev.JSD, st.MMD, st.JSD)
	}
	// All clients identical: xi = 0.
	st, err = NonIID([]*Client{a, twin}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if st.Xi > 1e-9 {
		t.Errorf("xi of identical clients = %v, want 0", st.Xi)
	}
}

func TestNonIIDSparseMatchesDense(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var dense, sparse []*Client
	for k := range 3 {
		c := nonIIDRandomClient(r, k, 50+10*k, 6, 3, float64(k)/3)
		dense = append(dense, c)
		g := *c.Graph
		rows, cols := g.Dense.Dims()
		x := &CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1)}
		for i := range rows {
			for j := range cols {
				if v := g.Dense.At(i, j); v > 0 { // keep only positive entries
					x.Indices = append(x.Indices, j)
					x.Values = append(x.Values, v)
				}
			}
			x.Indptr[i+1] = len(x.Indices)
		}
		d := mat.NewDense(rows, cols, nil)
		for i := range rows {
			for p := x.Indptr[i]; p < x.Indptr[i+1]; p++ {
				d.Set(i, x.Indices[p], x.Values[p])
			}
		}
		dense[k].Graph.Dense = d
		g.Dense, g.Features = nil, x
		sparse = append(sparse, &Client{ID: k, Graph: &g})
	}
	sd, err := NonIID(dense, 0)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := NonIID(sparse, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sd.Xi-ss.Xi) > 1e-12 || sd.Bandwidth != ss.Bandwidth {
		t.Errorf("dense xi %v bw %v, sparse xi %v bw %v", sd.Xi, sd.Bandwidth, ss.Xi, ss.Bandwidth)
	}
}

func TestNonIIDSubsample(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var clients []*Client
	for k := range 4 {
		clients = append(clients, nonIIDRandomClient(r, k, 200, 4, 3, float64(k)*0.3))
	}
	exact, err := NonIID(clients, 3)
	if err != nil {
		t.Fatal(err)
	}
	opt := NonIIDOptions{MaxNodes: 400, Seed: 11}
	s1, err := NonIIDWith(clients, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := NonIIDWith(clients, 3, opt)
	if err != nil {
		t.Fatal(err)
	}
	if s1.MMD != s2.MMD || s1.Nodes != 400 {
		t.Errorf("subsample not deterministic or wrong size: %v %v nodes %d", s1.MMD, s2.MMD, s1.Nodes)
	}
	if s1.JSD != exact.JSD {
		t.Errorf("subsample changed JSD: %v vs %v", s1.JSD, exact.JSD)
	}
	if math.Abs(s1.MMD-exact.MMD) > 0.25*exact.MMD+0.01 {
		t.Errorf("subsampled MMD %v far from exact %v", s1.MMD, exact.MMD)
	}
	t.Logf("exact MMD %.5f, sampled (400 of 800 nodes) %.5f", exact.MMD, s1.MMD)
}

func TestNonIIDErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	good := nonIIDRandomClient(r, 0, 5, 3, 2, 0)
	noFeat := nonIIDClient(1, []int{0, 1}, nil, nil)
	otherDim := nonIIDRandomClient(r, 2, 5, 4, 2, 0)
	empty := &Client{ID: 3, Graph: &Graph{Adj: &CSR{Indptr: []int{0}}}}
	// All z = 0: no edges.
	flat := nonIIDClient(4, []int{0, 1}, [][]float64{{1}, {2}}, nil)
	nan := nonIIDClient(5, []int{0, 1}, [][]float64{{math.NaN(), 0, 0}, {1, 1, 1}}, [][2]int{{0, 1}})
	for _, tc := range []struct {
		name    string
		clients []*Client
		classes int
		opt     NonIIDOptions
	}{
		{"no clients", nil, 2, NonIIDOptions{}},
		{"label out of range", []*Client{good}, 1, NonIIDOptions{}},
		{"no features", []*Client{good, noFeat}, 2, NonIIDOptions{}},
		{"feature dims", []*Client{good, otherDim}, 2, NonIIDOptions{}},
		{"empty client", []*Client{good, empty}, 2, NonIIDOptions{}},
		{"zero median", []*Client{flat, flat}, 2, NonIIDOptions{}},
		{"nan", []*Client{good, nan}, 2, NonIIDOptions{}},
		{"negative MaxNodes", []*Client{good, good}, 2, NonIIDOptions{MaxNodes: -1}},
	} {
		if _, err := NonIIDWith(tc.clients, tc.classes, tc.opt); err == nil {
			t.Errorf("%s: no error", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	// One client: MMD is 0 and xi is its JSD (0).
	st, err := NonIID([]*Client{good}, 0)
	if err != nil || st.Xi != 0 || st.MMD != 0 {
		t.Errorf("one client: %+v, %v", st, err)
	}
}

// nonIIDRefClients loads a dataset file and a reference partition file and
// builds the clients as the data protocol does: the LCC, row-normalised
// features, induced subgraphs.
func nonIIDRefClients(t testing.TB, dataset, partition string) []*Client {
	t.Helper()
	base := loadTestDataset(t, dataset)
	nodes, client, roles, err := LoadPartition(datadir.File(t, partition), base)
	if err != nil {
		t.Fatal(err)
	}
	g := RowNormalize(Subgraph(base, nodes))
	k := slices.Max(client) + 1
	clients, err := Partition(g, client, roles, k)
	if err != nil {
		t.Fatal(err)
	}
	return clients
}

// TestNonIIDData computes xi for the shipped Cora reference partitions
// (the extra datasets with FEDAUX_NONIID_ALL=1: about 40 s more on 2 cores).
func TestNonIIDData(t *testing.T) {
	type setting struct {
		dataset, file, partition string
		paper                    float64
	}
	settings := []setting{
		{"cora", "cora", "cora_fedaux10.npz", 0.3092},
		{"cora", "cora", "partitions/cora_5.npz", 0.2667},
		{"cora", "cora", "partitions/cora_10.npz", 0.3092},
		{"cora", "cora", "partitions/cora_20.npz", 0.3760},
	}
	if os.Getenv("FEDAUX_NONIID_ALL") != "" {
		paper := map[string][3]float64{
			"citeseer":  {0.1848, 0.2292, 0.2572},
			"computers": {0.2774, 0.3582, 0.3931},
			"photo":     {0.3600, 0.4314, 0.4840},
		}
		files := map[string]string{"citeseer": "citeseer", "computers": "amazon_electronics_computers", "photo": "amazon_electronics_photo"}
		for _, d := range []string{"citeseer", "computers", "photo"} {
			for i, k := range []int{5, 10, 20} {
				settings = append(settings, setting{d, files[d], fmt.Sprintf("partitions/%s_%d.npz", d, k), paper[d][i]})
			}
		}
	}
	for _, s := range settings {
		t.Run(s.dataset+"/"+filepath.Base(s.partition), func(t *testing.T) {
			clients := nonIIDRefClients(t, s.file, s.partition)
			start := time.Now()
			st, err := NonIID(clients, 0)
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(start)
			t.Logf("%-9s K=%-2d nodes=%d  JSD=%.4f  MMD=%.4f  xi=%.4f  (paper %.4f)  bandwidth=%.4g  %v",
				s.dataset, len(clients), st.Nodes, st.JSD, st.MMD, st.Xi, s.paper, st.Bandwidth, el.Round(time.Millisecond))
			if st.JSD <= 0.01 || st.JSD > math.Log(2) {
				t.Errorf("JSD = %v outside (0.01, ln 2]", st.JSD)
			}
			if st.MMD <= 0 || st.MMD > 2 {
				t.Errorf("MMD = %v outside (0, 2]", st.MMD)
			}
			for k := range clients {
				for l := range clients {
					if st.PairMMD[k][l] != st.PairMMD[l][k] || (k != l && !(st.PairMMD[k][l] > 0)) {
						t.Fatalf("PairMMD[%d][%d] = %v, [%d][%d] = %v", k, l, st.PairMMD[k][l], l, k, st.PairMMD[l][k])
					}
				}
			}
		})
	}
}
