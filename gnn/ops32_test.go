package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/vec"
)

// csrColumnTerms (the reference for blocked32) sets b to the columns of c as terms on a matrix of
// stride columns: row j (a column of c) sums c_ij times row i, in the
// order of i.
func (b *terms32) csrColumnTerms(c *CSR, stride int) {
	b.reset(c.Cols)
	for _, j := range c.Indices {
		b.n[j]++
	}
	pos := make([]int, c.Cols+1)
	for j, k := range b.n {
		pos[j+1] = pos[j] + k
	}
	b.t = append(b.t[:0], make([]vec.Term32, len(c.Indices))...)
	for i := 0; i < c.Rows; i++ {
		for k := c.Indptr[i]; k < c.Indptr[i+1]; k++ {
			j := c.Indices[k]
			b.t[pos[j]] = vec.Term32{Off: int32(i * stride), A: float32(c.Values[k])}
			pos[j]++
		}
	}
}

// TestBlocked32KeepsBits checks that the float32 layers' blocked terms
// of a sparse input sum to the bits of the terms in one list (csrTerms,
// csrColumnTerms), by rows and by columns, at every level: on inputs
// dense enough to be blocked (an Amazon client's bag of words), sparse
// ones that are not, and rows out of column order (one block).
func TestBlocked32KeepsBits(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		level := vec.Current()
		rng := rand.New(rand.NewPCG(41, 42))
		for _, s := range []struct {
			n, f, nnz int
			reverse   bool
		}{{300, 767, 320, false}, {200, 1433, 18, false}, {150, 400, 200, true}, {129, 257, 257, false}} {
			x := randSparse(rng, s.n, s.f, s.nnz)
			for k := range x.Values {
				if rng.IntN(50) == 0 {
					x.Values[k] = []float64{math.Inf(1), math.NaN(), math.Copysign(0, -1), 0}[rng.IntN(4)]
				}
			}
			if s.reverse {
				for i := 0; i < x.Rows; i++ {
					for a, b := x.Indptr[i], x.Indptr[i+1]-1; a < b; a, b = a+1, b-1 {
						x.Indices[a], x.Indices[b] = x.Indices[b], x.Indices[a]
						x.Values[a], x.Values[b] = x.Values[b], x.Values[a]
					}
				}
			}
			const d = 256 + 13
			w := make([]float32, s.f*d)
			p := make([]float32, s.n*d)
			for i := range w {
				w[i] = float32(rng.NormFloat64())
			}
			for i := range p {
				p[i] = float32(rng.NormFloat64())
			}
			var rows, cols blocked32
			rows.build(x.Rows, x.Cols, x.Indptr, x.Indices, x.Values, d)
			var csc cscMatrix
			csc.build(x, increasing(x.Indptr, x.Indices, x.Rows))
			cols.build(x.Cols, x.Rows, csc.ptr, csc.idx, csc.val, d)
			var refRows, refCols terms32
			refRows.csrTerms(x, d)
			refCols.csrColumnTerms(x, d)
			name := fmt.Sprintf("%v %dx%d nnz %d reverse %v (%d and %d blocks)", level, s.n, s.f, s.nnz, s.reverse, len(rows.n), len(cols.n))
			for _, c := range []struct {
				what string
				b    *blocked32
				ref  *terms32
				rows int
				src  []float32
			}{{"rows", &rows, &refRows, s.n, w}, {"columns", &cols, &refCols, s.f, p}} {
				got, want := make([]float32, c.rows*d), make([]float32, c.rows*d)
				c.b.sum(got, d, d, c.src)
				c.ref.sum(want, d, c.src)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s, by %s: element %d is %v, want %v", name, c.what, i, got[i], want[i])
					}
				}
				for r, k := range c.ref.n {
					if c.b.count[r] != k {
						t.Fatalf("%s, by %s: row %d counts %d terms, want %d", name, c.what, r, c.b.count[r], k)
					}
				}
			}
			if !s.reverse && s.nnz >= 200 && len(rows.n) < 2 {
				t.Errorf("%s: the rows were not blocked", name)
			}
		}
	})
}
