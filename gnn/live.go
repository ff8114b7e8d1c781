package gnn

import (
	"math"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// liveRows is the working memory of mulTransAddLive: the rows it keeps
// and their copies.
type liveRows struct {
	rows []int
	x, p buffer
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
	_, m := p.Dims()
	l.rows = l.rows[:0]
	for i := range n {
		if !allZero(p.RawRowView(i)[:m]) {
			l.rows = append(l.rows, i)
		}
	}
	if len(l.rows) > n-n/4 {
		mulTransAddSkip(dst, x, p)
		return
	}
	live := 0
	for i := range n {
		if live < len(l.rows) && l.rows[live] == i {
			live++
			continue
		}
		if !vec.AllFinite(x.RawRowView(i)[:k]) {
			mulTransAddSkip(dst, x, p)
			return
		}
	}
	if hasNegZero(dst) {
		mulTransAddSkip(dst, x, p)
		return
	}
	if len(l.rows) == 0 {
		return
	}
	xl, pl := l.x.get(len(l.rows), k), l.p.padded(len(l.rows), m)
	for r, i := range l.rows {
		copy(xl.RawRowView(r), x.RawRowView(i)[:k])
		copy(pl.RawRowView(r)[:m], p.RawRowView(i)[:m])
	}
	mulTransAddSkip(dst, xl, pl)
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
