package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSAGENetForwardAtBits checks ForwardAt against Forward in training
// mode, bit for bit at every kernel level: the output at the loss's rows
// and every parameter gradient of a cross-entropy on those rows. The
// graphs are mended graphs (extra rows hanging on one real node each, as
// FedSage+'s generated rows) and graphs whose extra rows are joined at
// random (some of them among the loss's rows), with sparse and dense
// features.
func TestSAGENetForwardAtBits(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 14))
		for it := range 8 {
			n0, ne, fin, hid, fout := 40+rng.IntN(40), 30+rng.IntN(120), 20+rng.IntN(30), 24, 5
			if it == 7 && !testing.Short() {
				n0, ne, fin, hid = 300, 250, 767, 256 // Amazon-Computer's widths
			}
			mended := it%2 == 0
			n := n0 + ne
			a := mat.DenseCopyOf(randGraph(rng, n0, 0.08).Dense())
			adjm := mat.NewDense(n, n, nil)
			adjm.Slice(0, n0, 0, n0).(*mat.Dense).Copy(a)
			for g := n0; g < n; g++ {
				if mended { // a leaf on one real node
					p := rng.IntN(n0)
					adjm.Set(g, p, 1)
					adjm.Set(p, g, 1)
					continue
				}
				for range 1 + rng.IntN(3) {
					j := rng.IntN(n)
					adjm.Set(g, j, 1)
					adjm.Set(j, g, 1)
				}
			}
			adj, err := NewMeanAdj(CSRFromDense(adjm))
			if err != nil {
				t.Fatal(err)
			}
			var x Features
			if it%4 < 2 {
				x.Sparse = randSparse(rng, n0, fin, 5)
			} else {
				x.Dense = randDense(rng, n0, fin, 0.3)
			}
			e := randDense(rng, ne, fin, 1)
			var rows []int
			for i := range n {
				if i < n0 && rng.IntN(5) == 0 || !mended && i >= n0 && rng.IntN(10) == 0 {
					rows = append(rows, i)
				}
			}
			labels := make([]int, n)
			for i := range labels {
				labels[i] = rng.IntN(fout)
			}
			seed := rng.Uint64()
			nets := [2]*SAGENet{}
			outs := [2]*mat.Dense{}
			for k := range nets {
				nets[k] = NewSAGENet("cls", fin, hid, fout, 0.5, rand.New(rand.NewPCG(seed, 1)))
				drop := rand.New(rand.NewPCG(seed, 2))
				if k == 0 {
					outs[k] = nets[k].Forward(adj, x, e, true, drop)
				} else {
					outs[k] = nets[k].ForwardAt(adj, x, e, rows, drop)
				}
				dl := mat.NewDense(n, fout, nil)
				SoftmaxCrossEntropy(outs[k], labels, rows, dl)
				nets[k].Backward(dl, false)
			}
			name := fmt.Sprintf("case %d (%d+%d rows, %d features, mended %v, %d loss rows)", it, n0, ne, fin, mended, len(rows))
			for _, i := range rows {
				for c := range fout {
					if g, w := outs[1].At(i, c), outs[0].At(i, c); math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("%s: output (%d, %d) is %v, want %v", name, i, c, g, w)
					}
				}
			}
			for p, want := range nets[0].Params() {
				got := nets[1].Params()[p]
				for i := range want.Grad {
					if math.Float64bits(got.Grad[i]) != math.Float64bits(want.Grad[i]) {
						t.Fatalf("%s: %s gradient entry %d is %v, want %v", name, want.Name, i, got.Grad[i], want.Grad[i])
					}
				}
			}
		}
	})
}
