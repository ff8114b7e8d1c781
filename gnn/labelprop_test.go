package gnn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLabelPropagationMatchesDense compares LabelPropagation with the
// recurrence written out on dense matrices.
func TestLabelPropagationMatchesDense(t *testing.T) {
	const n, c = 9, 3
	rng := rand.New(rand.NewPCG(81, 82))
	adj := randGraph(rng, n, 0.3)
	prop := mustProp(adj)
	logits := randDense(rng, n, c, 1)
	probs := Softmax(logits)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(c)
	}
	labelled := []int{0, 4, 7}
	for _, lp := range []LabelPropagation{{5, 0.5, 20}, {0, 0.5, 20}, {3, 0.9, 1}} {
		p, pt, err := lp.Run(prop, probs, labels, labelled)
		if err != nil {
			t.Fatal(err)
		}
		a := prop.Matrix().Dense()
		y0 := mat.DenseCopyOf(probs)
		for _, i := range labelled {
			for j := range c {
				y0.Set(i, j, 0)
			}
			y0.Set(i, labels[i], 1)
		}
		f := mat.DenseCopyOf(y0)
		for range lp.Steps {
			var g mat.Dense
			g.Mul(a, f)
			for i := range n {
				for j := range c {
					v := lp.Alpha*g.At(i, j) + (1-lp.Alpha)*y0.At(i, j)
					if slices.Contains(labelled, i) {
						v += y0.At(i, j)
					}
					g.Set(i, j, v)
				}
			}
			f = &g
		}
		for i := range n {
			var z, zt float64
			for j := range c {
				z += math.Exp(f.At(i, j))
				zt += math.Exp(f.At(i, j) / lp.Tau)
			}
			for j := range c {
				want, wantT := math.Exp(f.At(i, j))/z, math.Exp(f.At(i, j)/lp.Tau)/zt
				if slices.Contains(labelled, i) {
					want, wantT = 0, 0
					if j == labels[i] {
						want, wantT = 1, 1
					}
				}
				if math.Abs(p.At(i, j)-want) > 1e-14 || math.Abs(pt.At(i, j)-wantT) > 1e-14 {
					t.Errorf("%+v: P[%d][%d] = %v, %v; want %v, %v", lp, i, j, p.At(i, j), pt.At(i, j), want, wantT)
				}
			}
		}
	}
}

func TestLabelPropagationErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	prop := mustProp(randGraph(rng, 5, 0.3))
	probs := Softmax(randDense(rng, 5, 2, 1))
	labels := []int{0, 1, 0, 1, 3}
	cases := []struct {
		lp       LabelPropagation
		probs    *mat.Dense
		labelled []int
		want     string
	}{
		{LabelPropagation{5, 0.5, 0}, probs, nil, "temperature"},
		{LabelPropagation{-1, 0.5, 1}, probs, nil, "steps"},
		{LabelPropagation{5, 0.5, 1}, Softmax(randDense(rng, 4, 2, 1)), nil, "4 rows"},
		{LabelPropagation{5, 0.5, 1}, probs, []int{5}, "out of range"},
		{LabelPropagation{5, 0.5, 1}, probs, []int{4}, "class 3"},
	}
	for _, c := range cases {
		if _, _, err := c.lp.Run(prop, c.probs, labels, c.labelled); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %v: error %v, want one saying %q", c.lp, c.labelled, err, c.want)
		}
	}
}
