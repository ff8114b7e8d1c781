package gnn

import "gonum.org/v1/gonum/mat"

// sageSparse holds what a SAGE layer keeps of its sparse input x while x
// is the same matrix (its client's features, the same at every step):
// x by columns and sumCompressed's block plans (as GCN keeps them), or,
// when some column of x has no entry, the terms of x^T (keptColumns).
// With them the layer's products by x and by x^T run in blocks of the
// other factor's rows, whose strips stay in the first-level cache.
type sageSparse struct {
	of    *CSR
	xt    cscMatrix
	plans sparsePlans
	kept  keptColumns
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
// blocks of g's rows (addCompressed); otherwise through keptColumns.
func (s *sageSparse) transAdd(dst *mat.Dense, x *CSR, g *mat.Dense) {
	s.use(x)
	if len(s.xt.nonEmpty) < x.Cols {
		s.kept.mulTransAdd(x, dst, g)
		return
	}
	d, gr := dst.RawMatrix(), g.RawMatrix()
	b := getTerms()
	defer putTerms(b)
	for j0 := 0; j0 < x.Cols; j0 += termRows {
		j1 := min(j0+termRows, x.Cols)
		cols := b.rowRange(j0, j1)
		p := s.plans.plan(&s.plans.bwd, j0/termRows, s.xt.ptr, s.xt.idx, cols, gr.Rows, &b.pos)
		b.addCompressed(d.Data[j0*d.Stride:], d.Stride, d.Cols, gr.Data, gr.Stride, s.xt.ptr, s.xt.idx, s.xt.val, cols, p)
	}
}
