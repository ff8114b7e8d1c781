package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"gonum.org/v1/gonum/mat"
)

func TestLDPClip(t *testing.T) {
	params := []*gnn.Param{
		{Name: "big", Grad: []float64{3, 4}},          // norm 5: scaled to 0.1
		{Name: "small", Grad: []float64{0.03, 0.04}},  // norm 0.05: kept
		{Name: "zero", Grad: []float64{0, 0, 0}},      // kept
		{Name: "edge", Grad: []float64{0.06, -0.08}},  // norm 0.1: kept
		{Name: "neg", Grad: []float64{-30, 0, 40, 0}}, // norm 50
	}
	(&LDP{Clip: 0.1, Eps: 1, LR: 0.01}).clip(params)
	want := [][]float64{{0.06, 0.08}, {0.03, 0.04}, {0, 0, 0}, {0.06, -0.08}, {-0.06, 0, 0.08, 0}}
	for i, p := range params {
		for j := range p.Grad {
			if math.Abs(p.Grad[j]-want[i][j]) > 1e-15 {
				t.Errorf("%s: clipped gradient %v, want %v", p.Name, p.Grad, want[i])
				break
			}
		}
	}
}

// TestLDPNoise checks the scale lambda = lr 2 delta / (sqrt(|Tr|) eps)
// and that the noise is Laplace(0, lambda): mean 0, mean absolute value
// lambda, variance 2 lambda^2.
func TestLDPNoise(t *testing.T) {
	l := &LDP{Clip: 0.1, Eps: 1, LR: 0.01}
	if got, want := l.scale(25), 0.01*2*0.1/5; math.Abs(got-want) > 1e-18 {
		t.Errorf("lambda for 25 training nodes %v, want %v", got, want)
	}
	const n = 200000
	p := &gnn.Param{Name: "w", Value: make([]float64, n)}
	l.noise([]*gnn.Param{p}, 4, rand.New(rand.NewPCG(1, 2)))
	b := l.scale(4)
	var sum, abs, sq float64
	for _, v := range p.Value {
		sum += v
		abs += math.Abs(v)
		sq += v * v
	}
	mean, mabs, variance := sum/n, abs/n, sq/n
	if math.Abs(mean) > 5*b*math.Sqrt(2.0/n) || math.Abs(mabs/b-1) > 0.02 || math.Abs(variance/(2*b*b)-1) > 0.03 {
		t.Errorf("noise mean %.3g, mean |x| %.4g, variance %.4g; want 0, %.4g, %.4g", mean, mabs, variance, b, 2*b*b)
	}
}

// TestFedGNNExpansion runs a round of FedGNN and checks, for every
// client, that each node with cut edges got as remote neighbours exactly
// the first-layer embeddings, under the round's global parameters, of its
// cut-edge neighbours (all clients present), with their whole-graph
// degrees; and that the HMAC tags let the server match every cut edge.
func TestFedGNNExpansion(t *testing.T) {
	c := smallConfig("fedgnn") // package methods registers it (the external tests import it)
	c.Rounds = 2
	data := smallData(t, 7)
	e, err := New(c, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.Step(ctx); err != nil {
		t.Fatal(err)
	}
	// The embeddings every client computes with the global parameters of
	// round 2, by global node id.
	h1 := map[int][]float64{}
	deg := map[int]float64{}
	global := e.pending[0].Shared
	for i, r := range e.runners {
		cl := r.(*Client)
		if !slices.Equal(e.pending[i].Shared, global) {
			t.Fatal("FedAvg sent clients different parameters")
		}
		m, err := gnn.NewModel(cl.model.Config(), rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		off := 0
		for _, p := range m.Params() {
			off += copy(p.Value, global[off:off+len(p.Value)])
		}
		h := mat.DenseCopyOf(m.FirstLayer(gnn.Input{Prop: cl.input.Prop, X: cl.input.X}))
		cuts := map[int]int{}
		for _, ce := range data.Clients[i].Cut {
			cuts[ce.Local]++
		}
		for u, g := range data.Clients[i].Nodes {
			h1[g] = h.RawRowView(u)
			cols, _ := data.Clients[i].Graph.Adj.Row(u)
			deg[g] = float64(len(cols) + cuts[u])
		}
	}
	remote, err := e.exchange(ctx, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	cutEdges := 0
	for i, r := range e.runners {
		cl := r.(*Client)
		if err := cl.expand(remote[i]); err != nil {
			t.Fatal(err)
		}
		d := data.Clients[i]
		byNode := map[int][]gnn.RemoteNeighbor{}
		for _, ce := range d.Cut {
			byNode[ce.Local] = append(byNode[ce.Local], gnn.RemoteNeighbor{Embedding: h1[ce.Remote], Degree: deg[ce.Remote]})
			cutEdges++
		}
		if got, want := len(remote[i].Tags), len(cl.cut.wants); got != want {
			t.Errorf("client %d: %d of its %d cut-edge neighbours matched", i, got, want)
		}
		lists := make([][]gnn.RemoteNeighbor, d.Graph.N())
		for u, rs := range byNode {
			lists[u] = rs
		}
		want, err := gnn.NewExpansion(ToGNN(d.Graph.Adj), 1, lists)
		if err != nil {
			t.Fatal(err)
		}
		got := cl.input.Expand
		if got == nil || !slices.Equal(got.Rows, want.Rows) || (want.Remote != nil && !reflect.DeepEqual(got.Remote.RawMatrix().Data, want.Remote.RawMatrix().Data)) {
			t.Errorf("client %d: expansion differs from its cut-edge neighbours' embeddings", i)
		}
	}
	if cutEdges == 0 {
		t.Fatal("the test data has no cut edges")
	}
}
