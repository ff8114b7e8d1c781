package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sageAPVCase builds a SAGEAPVNet on a random graph of n0 nodes plus ne
// generated rows, with sparse features.
func sageAPVCase(kind ScoreKind, gauss Gauss, seed uint64) (*SAGEAPVNet, *MeanAdj, Features, *mat.Dense) {
	const n0, ne, fin, hid, fout = 9, 4, 5, 6, 3
	rng := rand.New(rand.NewPCG(seed, 10))
	adj, err := NewMeanAdj(randGraph(rng, n0+ne, 0.3))
	if err != nil {
		panic(err)
	}
	x := Features{Sparse: randSparse(rng, n0, fin, 2)}
	e := randDense(rng, ne, fin, 1)
	net := NewSAGENet("cls", fin, hid, fout, 0.5, rng)
	return NewSAGEAPVNet(net, kind, 0.8, gauss, rng), adj, x, e
}

// TestSAGEAPVNetGradients checks every parameter's gradient (the APV's
// included) and the generated rows' against central differences, in
// training mode (dropout drawn alike in every evaluation), for both
// scores and both transforms.
func TestSAGEAPVNetGradients(t *testing.T) {
	for _, kind := range []ScoreKind{Cosine, MaxNorm} {
		for _, gauss := range []Gauss{Dense{}, Fast{}} {
			t.Run(fmt.Sprintf("%v/%T", kind, gauss), func(t *testing.T) {
				m, adj, x, e := sageAPVCase(kind, gauss, 9)
				n := adj.N()
				rng := rand.New(rand.NewPCG(3, 4))
				labels := make([]int, n)
				for i := range labels {
					labels[i] = rng.IntN(3)
				}
				idx := []int{0, 2, 3, 5, 8, 10}
				forward := func() *mat.Dense {
					out, err := m.Forward(adj, x, e, true, rand.New(rand.NewPCG(1, 1)))
					if err != nil {
						t.Fatal(err)
					}
					return out
				}
				loss := func() float64 { return SoftmaxCrossEntropy(forward(), labels, idx, nil) }
				dl := mat.NewDense(n, 3, nil)
				SoftmaxCrossEntropy(forward(), labels, idx, dl)
				de := m.Backward(dl, true)
				names := []string{"cls1.root", "cls1.neigh", "cls1.bias", "cls2.root", "cls2.neigh", "cls2.bias", "apv"}
				var got []string
				for _, p := range m.Params() {
					got = append(got, p.Name)
					checkGrad(t, p.Name, p.Grad, numGrad(loss, p.Value))
				}
				if !slices.Equal(got, names) {
					t.Errorf("parameters %v, want %v", got, names)
				}
				checkGrad(t, "extra", copyData(de), numGrad(loss, rawData(e)))
			})
		}
	}
}

// TestSAGEAPVNetIsConcatenation checks that the projected head equals
// the literal second layer on [h || agg(h)] (Eq. 5), in both modes.
func TestSAGEAPVNetIsConcatenation(t *testing.T) {
	for _, kind := range []ScoreKind{Cosine, MaxNorm} {
		for _, train := range []bool{true, false} {
			m, adj, x, e := sageAPVCase(kind, nil, 11)
			out, err := m.Forward(adj, x, e, train, rand.New(rand.NewPCG(5, 6)))
			if err != nil {
				t.Fatal(err)
			}
			out = mat.DenseCopyOf(out)
			h := mat.DenseCopyOf(m.Hidden())
			n, d := h.Dims()
			score := &Score{Kind: kind, APV: m.Score.APV}
			z, err := (&Kernel{Sigma: 0.8}).Forward(h, score.Forward(h))
			if err != nil {
				t.Fatal(err)
			}
			cat := mat.NewDense(n, 2*d, nil)
			cat.Augment(h, z)
			l2 := &SAGE{In: 2 * d, Out: 3, Root: m.Root, Neigh: m.Neigh, Bias: m.Bias}
			if diff := maxAbsDiff(out, l2.Forward(adj, Features{Dense: cat}, nil)); diff > 1e-12 {
				t.Errorf("%v train=%v: head differs from sage2([h||z]) by %g", kind, train, diff)
			}
		}
	}
}

// TestNewSAGEAPVNet checks what the network takes from the SAGENet it
// widens (its first layer, its second layer's h rows and bias) and what
// it draws (the z rows, in the layer's bound, and the APV), and that
// SetSigma reaches the kernel.
func TestNewSAGEAPVNet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const fin, hid, fout = 5, 4, 3
	net := NewSAGENet("cls", fin, hid, fout, 0.5, rng)
	root := slices.Clone(net.L2.Root.Value)
	m := NewSAGEAPVNet(net, Cosine, 1, nil, rand.New(rand.NewPCG(7, 8)))
	if m.L1 != net.L1 {
		t.Error("the first layer is not the SAGENet's")
	}
	if !slices.Equal(m.Root.Value[:hid*fout], root) || !slices.Equal(m.Neigh.Value[:hid*fout], net.L2.Neigh.Value) ||
		!slices.Equal(m.Bias.Value, net.L2.Bias.Value) {
		t.Error("the h rows and the bias are not the SAGENet's second layer's")
	}
	if m.Root.Rows != 2*hid || m.Neigh.Rows != 2*hid || m.Score.APV.Cols != hid {
		t.Errorf("shapes: root %dx%d, neigh %dx%d, apv %d", m.Root.Rows, m.Root.Cols, m.Neigh.Rows, m.Neigh.Cols, m.Score.APV.Cols)
	}
	bound := 1 / math.Sqrt(hid)
	for _, p := range []*Param{m.Root, m.Neigh} {
		z := p.Value[hid*fout:]
		if slices.Equal(z, p.Value[:hid*fout]) || slices.ContainsFunc(z, func(v float64) bool { return v == 0 || math.Abs(v) > bound }) {
			t.Errorf("%s: z rows %v, want fresh draws in +-%g", p.Name, z, bound)
		}
	}
	again := NewSAGEAPVNet(net, Cosine, 1, nil, rand.New(rand.NewPCG(7, 8)))
	if !slices.Equal(again.Root.Value, m.Root.Value) || !slices.Equal(again.Score.APV.Value, m.Score.APV.Value) {
		t.Error("equal streams drew different heads")
	}
	m.SetSigma(0.25)
	if m.agg.Sigma != 0.25 {
		t.Errorf("sigma %v after SetSigma(0.25)", m.agg.Sigma)
	}
}
