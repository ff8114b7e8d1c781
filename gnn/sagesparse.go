package gnn

import (
	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// sageSparse holds what a SAGE layer keeps of its sparse input x while x
// is the same matrix (its client's features, the same at every step): x
// by columns and sumCompressed's block plans, as GCN keeps them. With
// them the layer's products by x and by x^T run in blocks of the other
// factor's rows, whose strips stay in the first-level cache, and x is
// not sorted by columns again at every step (that sort, twice a step,
// was about 5 % of FedSage+'s classifier steps on computer-10).
type sageSparse struct {
	of    *CSR
	xt    cscMatrix
	plans sparsePlans
}

// use makes s hold x's columns and plans, keeping them if it already
// does.
func (s *sageSparse) use(x *CSR) {
	if !s.plans.use(x) && s.of == x {
		return
	}
	s.xt.build(x, s.plans.sorted)
	s.of = x
}

// mul sets dst to x w, as x.mulDense(dst, w) does, to the bit.
func (s *sageSparse) mul(dst *mat.Dense, x *CSR, w *mat.Dense) {
	s.use(x)
	if !s.plans.sorted {
		x.mulDense(dst, w)
		return
	}
	s.plans.mul(dst.RawMatrix(), x, w.RawMatrix())
}

// transAdd adds x^T g to dst, as x.mulTransAdd(dst, g) does, to the bit:
// when every column of x has entries, termRows rows of dst at a time in
// blocks of g's rows (addCompressed); otherwise the rows of dst that
// columns with entries name, from x's columns, by vec.RowSumsAt.
func (s *sageSparse) transAdd(dst *mat.Dense, x *CSR, g *mat.Dense) {
	s.use(x)
	d, gr := dst.RawMatrix(), g.RawMatrix()
	b := getTerms()
	defer putTerms(b)
	if cols := s.xt.nonEmpty; len(cols) < x.Cols {
		b.reset(len(cols), 0)
		b.t = grow(b.t, len(s.xt.idx))
		gatherTerms(b.t, s.xt.idx, s.xt.val, gr.Stride)
		off := b.offsets(len(cols))
		for q, j := range cols {
			b.n[q] = s.xt.ptr[j+1] - s.xt.ptr[j]
			off[q] = j * d.Stride
		}
		vec.RowSumsAt(d.Data, off, d.Cols, gr.Data, b.t, b.n, false)
		return
	}
	for j0 := 0; j0 < x.Cols; j0 += termRows {
		j1 := min(j0+termRows, x.Cols)
		cols := b.rowRange(j0, j1)
		p := s.plans.plan(&s.plans.bwd, j0/termRows, s.xt.ptr, s.xt.idx, cols, gr.Rows, &b.pos)
		b.addCompressed(d.Data[j0*d.Stride:], d.Stride, d.Cols, gr.Data, gr.Stride, s.xt.ptr, s.xt.idx, s.xt.val, cols, p)
	}
}
