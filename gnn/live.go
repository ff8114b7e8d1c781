package gnn

import (
	"math"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// liveRows is the working memory of mulTransAddLive and SAGE.rootRows:
// the rows they keep, the rows mulTransAddLive leaves out, and the
// copies of the rows kept.
type liveRows struct {
	rows, dead []int
	x, p       buffer
}

// mulTransAddLive adds x^T * p to dst as mulTransAddSkip does, leaving
// out the rows of p that are zero throughout when they are at least a
// quarter of its rows (FedSage+'s classifier: the generated rows whose
// parent is not a training node have no gradient), the rows kept copied
// in order. It gives mulTransAddSkip's bits when x is finite in the rows
// left out and dst has no -0: each of those rows' terms is x_ij times
// +-0, a zero, and a zero added to a sum that is not -0 leaves it as it
// is, every sum here starting from dst. Otherwise it calls
// mulTransAddSkip on all the rows.
func mulTransAddLive(dst, x, p *mat.Dense, l *liveRows) {
	n, k := x.Dims()
	l.rows, l.dead = l.rows[:0], l.dead[:0]
	for i := range n {
		if allZero(p.RawRowView(i)[:p.RawMatrix().Cols]) {
			l.dead = append(l.dead, i)
		} else {
			l.rows = append(l.rows, i)
		}
	}
	if len(l.dead) < n/4 || hasNegZero(dst) || !finiteRows(x, l.dead) {
		mulTransAddSkip(dst, x, p)
		return
	}
	if len(l.rows) == 0 {
		return
	}
	mulTransAddSkip(dst, gatherRows(l.x.get(len(l.rows), k), x, l.rows), gatherRows(l.p.padded(len(l.rows), p.RawMatrix().Cols), p, l.rows))
}

// gatherRows copies the listed rows of src, in order, to the rows of dst
// (as many, and as wide as src), and returns dst.
func gatherRows(dst, src *mat.Dense, rows []int) *mat.Dense {
	c := src.RawMatrix().Cols
	for r, i := range rows {
		copy(dst.RawRowView(r)[:c], src.RawRowView(i)[:c])
	}
	return dst
}

// finiteRows reports whether the listed rows of m are finite.
func finiteRows(m *mat.Dense, rows []int) bool {
	c := m.RawMatrix().Cols
	for _, i := range rows {
		if !vec.AllFinite(m.RawRowView(i)[:c]) {
			return false
		}
	}
	return true
}

// allZero reports whether every entry of v is +0 or -0.
func allZero(v []float64) bool {
	for _, a := range v {
		if a != 0 {
			return false
		}
	}
	return true
}

// hasNegZero reports whether m has an entry -0.
func hasNegZero(m *mat.Dense) bool {
	r, c := m.Dims()
	for i := range r {
		for _, a := range m.RawRowView(i)[:c] {
			if a == 0 && math.Signbit(a) {
				return true
			}
		}
	}
	return false
}
