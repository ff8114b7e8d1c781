package gnn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// TestSageSparseBits checks a SAGE layer's kept products by its sparse
// input against the CSR's own (mulDense, mulTransAdd), bit for bit, at
// every kernel level: on inputs with enough entries a row for
// sumCompressed's blocks (about 150 of 400 columns, 300 rows), called
// again on the same input (the kept columns and plans), on sources of
// other strides, on an input with an empty column (x^T's terms gathered
// from the kept columns) and on one whose rows do not list increasing
// columns (the CSR's own product).
func TestSageSparseBits(t *testing.T) {
	for l := vec.Portable; l <= vec.Best(); l++ {
		t.Run(l.String(), func(t *testing.T) {
			prev := vec.Use(l)
			defer vec.Use(prev)
			rng := rand.New(rand.NewPCG(71, uint64(l)))
			dense := randSparse(rng, 300, 400, 200)
			gappy := randSparse(rng, 300, 400, 200)
			for k, j := range gappy.Indices { // column 200 has no entry
				if j >= 200 {
					gappy.Indices[k] = j + 1
				}
			}
			gappy.Cols++
			unsorted := randSparse(rng, 300, 400, 200)
			for i := range unsorted.Rows { // reverse each row's entries
				idx, val := unsorted.Indices[unsorted.Indptr[i]:unsorted.Indptr[i+1]], unsorted.Values[unsorted.Indptr[i]:unsorted.Indptr[i+1]]
				for a, b := 0, len(idx)-1; a < b; a, b = a+1, b-1 {
					idx[a], idx[b] = idx[b], idx[a]
					val[a], val[b] = val[b], val[a]
				}
			}
			var s sageSparse
			for it, x := range []*CSR{dense, dense, gappy, unsorted, dense} {
				for _, m := range []int{70, 256} {
					name := fmt.Sprintf("input %d, %d columns", it, m)
					w := denseCase(rng, x.Cols, m, 0.1, false)
					got, want := denseCase(rng, x.Rows, m, 0, false), denseCase(rng, x.Rows, m, 0, false)
					s.mul(got, x, w)
					x.mulDense(want, w)
					sameMatBits(t, name+": mul", got, want)

					g := denseCase(rng, x.Rows, m, 0.1, false)
					init := denseCase(rng, x.Cols, m, 0.2, false)
					got, want = mat.DenseCopyOf(init), mat.DenseCopyOf(init)
					s.transAdd(got, x, g)
					x.mulTransAdd(want, g)
					sameMatBits(t, name+": transAdd", got, want)
				}
			}
			if !s.plans.sorted || s.of != dense || len(s.plans.fwd) == 0 || s.plans.fwd[0].nb < 2 || s.plans.bwd[0].nb < 2 {
				t.Errorf("the dense input was not summed in blocks (sorted %v, plans %d)", s.plans.sorted, len(s.plans.fwd))
			}
		})
	}
}
