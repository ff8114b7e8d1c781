package gnn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randRemote draws remote neighbours of width d for about half of n nodes.
func randRemote(rng *rand.Rand, n, d int) [][]RemoteNeighbor {
	remote := make([][]RemoteNeighbor, n)
	for u := range remote {
		if rng.IntN(2) == 0 {
			continue
		}
		for range 1 + rng.IntN(3) {
			e := make([]float64, d)
			for j := range e {
				e[j] = math.Abs(rng.NormFloat64()) // a ReLU output
			}
			remote[u] = append(remote[u], RemoteNeighbor{Embedding: e, Degree: float64(rng.IntN(5))})
		}
	}
	return remote
}

// TestExpansionGradients checks every parameter gradient of a plain GCN
// whose second layer is expanded with remote neighbours (FedGNN) against
// central differences, with dropout and in evaluation mode, at depth 2
// and 3.
func TestExpansionGradients(t *testing.T) {
	const n, f, d, classes = 12, 8, 5, 3
	for _, tc := range []struct {
		name   string
		layers int
		train  bool
	}{{"L2/train", 2, true}, {"L2/eval", 2, false}, {"L3/train", 3, true}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(71, 72))
			c := newTestClient(rng, n, f, classes)
			adj := randGraph(rng, n, 0.2)
			c.in.Prop = mustProp(adj)
			exp, err := NewExpansion(adj, 1, randRemote(rng, n, d))
			if err != nil {
				t.Fatal(err)
			}
			if len(exp.Rows) == 0 {
				t.Fatal("no node has remote neighbours")
			}
			c.in.Expand = exp
			m, err := NewModel(Config{InFeatures: f, Hidden: d, Classes: classes, Layers: tc.layers, Dropout: 0.5}, rng)
			if err != nil {
				t.Fatal(err)
			}
			dl := mat.NewDense(n, classes, nil)
			loss := func() float64 {
				logits, err := m.Forward(c.in, tc.train, rand.New(rand.NewPCG(7, 7)))
				if err != nil {
					t.Fatal(err)
				}
				return SoftmaxCrossEntropy(logits, c.labels, c.train, dl)
			}
			loss()
			m.ZeroGrad()
			m.Backward(dl)
			for _, p := range m.Params() {
				analytic := slices.Clone(p.Grad)
				checkGrad(t, p.Name, analytic, numGrad(loss, p.Value))
			}
		})
	}
}

// TestExpansionMatchesFormula compares the expanded layer with the paper's
// sum written out densely:
//
//	h2_u = sum_{v in N(u) ∪ {u}} h1_v W2 / sqrt(d_u d_v) + sum_{r in R(u)} e_r W2 / sqrt(d_u d_r) + b2,
//
// d_u = 1 + |N(u)| + |R(u)|, d_r = 1 + deg_r.
func TestExpansionMatchesFormula(t *testing.T) {
	const n, f, d, classes = 10, 6, 4, 3
	rng := rand.New(rand.NewPCG(73, 74))
	adj := randGraph(rng, n, 0.3)
	remote := randRemote(rng, n, d)
	exp, err := NewExpansion(adj, 1, remote)
	if err != nil {
		t.Fatal(err)
	}
	prop := mustProp(adj)
	x := Features{Sparse: randSparse(rng, n, f, 3)}
	m, err := NewModel(Config{InFeatures: f, Hidden: d, Classes: classes}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		for i := range p.Value {
			p.Value[i] += 0.1 * rng.NormFloat64() // non-zero biases
		}
	}
	h1 := mat.DenseCopyOf(m.FirstLayer(Input{Prop: prop, X: x}))
	if _, err := m.Forward(Input{Prop: prop, X: x, Expand: exp}, false, nil); err != nil {
		t.Fatal(err)
	}
	got := m.Embeddings()

	a := adj.Dense()
	deg := make([]float64, n)
	for u := range n {
		deg[u] = 1 + float64(len(remote[u]))
		for v := range n {
			if v != u {
				deg[u] += a.At(u, v)
			}
		}
	}
	w2 := m.Param("conv2.weight").Matrix()
	b2 := m.Param("conv2.bias").Value
	for u := range n {
		in := make([]float64, d)
		for v := range n {
			if v == u || a.At(u, v) != 0 {
				axpy(in, 1/math.Sqrt(deg[u]*deg[v]), h1.RawRowView(v))
			}
		}
		for _, r := range remote[u] {
			axpy(in, 1/math.Sqrt(deg[u]*(1+r.Degree)), r.Embedding)
		}
		var out mat.VecDense
		out.MulVec(w2.T(), mat.NewVecDense(d, in))
		for j := range d {
			want := math.Max(0, out.AtVec(j)+b2[j]) // relu; no dropout in evaluation
			if diff := math.Abs(got.At(u, j) - want); diff > 1e-12 {
				t.Errorf("h2[%d][%d] = %v, formula %v", u, j, got.At(u, j), want)
			}
		}
	}
}

// TestExpansionWithoutRemoteIsLocal: an expansion without remote
// neighbours changes nothing, bit for bit.
func TestExpansionWithoutRemoteIsLocal(t *testing.T) {
	const n, f, d, classes = 10, 6, 4, 3
	rng := rand.New(rand.NewPCG(75, 76))
	adj := randGraph(rng, n, 0.3)
	exp, err := NewExpansion(adj, 1, make([][]RemoteNeighbor, 3))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Prop: mustProp(adj), X: Features{Sparse: randSparse(rng, n, f, 3)}}
	m, _ := NewModel(Config{InFeatures: f, Hidden: d, Classes: classes}, rng)
	plain, _ := m.Forward(in, false, nil)
	plain = mat.DenseCopyOf(plain)
	in.Expand = exp
	expanded, _ := m.Forward(in, false, nil)
	if !mat.Equal(plain, expanded) {
		t.Error("an expansion without remote neighbours changed the logits")
	}
}

func TestExpansionErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 78))
	adj := randGraph(rng, 6, 0.3)
	in := Input{Prop: mustProp(adj), X: Features{Sparse: randSparse(rng, 6, 4, 2)}}
	good, err := NewExpansion(adj, 1, randRemote(rng, 6, 3))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		cfg  Config
		exp  *Expansion
		want string
	}{
		{"masked", Config{Masked: true}, good, "plain model"},
		{"layer 0", Config{}, &Expansion{Layer: 0, Prop: good.Prop}, "layer 0"},
		{"last of 2", Config{}, &Expansion{Layer: 2, Prop: good.Prop}, "layer 2"},
		{"width", Config{Hidden: 4}, good, "layer input of 4"},
		{"graph", Config{}, &Expansion{Layer: 1, Prop: mustProp(randGraph(rng, 5, 0.3))}, "another graph"},
	}
	for _, c := range cases {
		c.cfg.InFeatures, c.cfg.Classes = 4, 2
		if c.cfg.Hidden == 0 {
			c.cfg.Hidden = 3
		}
		m, err := NewModel(c.cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		in.Expand = c.exp
		if _, err := m.Forward(in, false, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	bad := [][]RemoteNeighbor{{{Embedding: []float64{1, 2}}}, {{Embedding: []float64{1}}}}
	if _, err := NewExpansion(adj, 1, bad); err == nil || !strings.Contains(err.Error(), "width") {
		t.Errorf("ragged embeddings: %v", err)
	}
}
