package gnn

import (
	"iter"
	"math"
	"sync"
	"unsafe"

	"github.com/fedaux/fedaux/internal/share"
	"gonum.org/v1/gonum/mat"
)

// fastPlan is the plan made by Fast.Plan. All indices of points are in
// sorted order; perm maps them to rows of the matrices.
type fastPlan struct {
	n       int
	h       float64 // sigma
	workers int
	perm    []int     // sorted index -> row
	x       []float64 // sorted scores
	u       []float64 // (x - box centre)/sigma

	p, dmax  int
	boxes    []fgtBox
	bigIdx   []int    // per box, its index among the big boxes, or -1
	bigs     []int    // the big boxes
	segs     []fgtSeg // the sources of box k are segs[segStart[k]:segStart[k+1]]
	segStart []int
	nodes    []float64 // Chebyshev nodes, in units of sigma from the centre
	basis    []float64 // p interpolation weights per point of a big box
	dtab     []float64 // dtab[d+dmax]: centre offset of boxes d apart, / sigma
	m2l      []float64 // (2dmax+1) p x p translation matrices, or nil
}

// fgtSeg is one source of a target box: big box number box or, if box < 0,
// the sorted points lo..hi-1 of consecutive small boxes.
type fgtSeg struct{ box, lo, hi int }

// setup fills in the plan for the chosen grid.
func (q *fastPlan) setup(g fgtGrid) {
	q.p, q.dmax, q.boxes = g.p, g.dmax, g.boxes
	p, nb := g.p, len(g.boxes)
	q.u = make([]float64, q.n)
	q.bigIdx = make([]int, nb)
	q.segStart = make([]int, nb+1)
	for k, b := range g.boxes {
		for i := b.lo; i < b.hi; i++ {
			q.u[i] = (q.x[i] - b.centre) / q.h
		}
		q.bigIdx[k] = -1
		if b.hi-b.lo >= p {
			q.bigIdx[k] = len(q.bigs)
			q.bigs = append(q.bigs, k)
		}
	}
	lo, hi := 0, 0
	bigPairs := false
	for k, t := range g.boxes {
		for g.boxes[lo].key < t.key-g.dmax {
			lo++
		}
		for hi < nb && g.boxes[hi].key <= t.key+g.dmax {
			hi++
		}
		for s := lo; s < hi; s++ {
			if q.bigIdx[s] >= 0 {
				q.segs = append(q.segs, fgtSeg{box: s})
				bigPairs = bigPairs || q.bigIdx[k] >= 0
				continue
			}
			// Consecutive boxes hold consecutive points: merge small ones.
			b, last := g.boxes[s], len(q.segs)-1
			if last >= q.segStart[k] && q.segs[last].box < 0 && q.segs[last].hi == b.lo {
				q.segs[last].hi = b.hi
			} else {
				q.segs = append(q.segs, fgtSeg{box: -1, lo: b.lo, hi: b.hi})
			}
		}
		q.segStart[k+1] = len(q.segs)
	}
	if len(q.bigs) == 0 {
		return
	}

	tab := fgtTablesFor(g.width, q.h, p, g.dmax)
	q.nodes, q.dtab = tab.nodes, tab.dtab
	q.basis = make([]float64, q.n*p)
	for _, k := range q.bigs {
		for i := q.boxes[k].lo; i < q.boxes[k].hi; i++ {
			fgtLagrange(q.basis[i*p:(i+1)*p], q.u[i], q.nodes, tab.lam)
		}
	}
	if bigPairs {
		q.m2l = tab.translations()
	}
}

// fgtTables are the parts of a plan that depend only on its grid's box
// width, expansion order and reach and on sigma, not on the points: the
// Chebyshev nodes of the first kind on [-r, r] (r = width/sigma/2) and
// their barycentric weights (Berrut & Trefethen 2004), the centre offsets
// of boxes d apart, and the translation matrices. A run plans with the
// same few grids round after round, so fgtTablesFor keeps them; they are
// read-only once made.
type fgtTables struct {
	width, h float64
	p, dmax  int
	nodes    []float64
	lam      []float64
	dtab     []float64

	once sync.Once
	m2l  []float64 // (2dmax+1) p x p, made on first use
}

type fgtKey struct {
	width, h float64
	p, dmax  int
}

// fgtCacheMax bounds the grids kept; past it (a sweep of sigma) the
// cache starts over.
const fgtCacheMax = 64

var fgtCache struct {
	sync.Mutex
	m map[fgtKey]*fgtTables
}

// fgtTablesFor returns the tables of a grid of the given box width,
// order p and reach dmax for bandwidth h.
func fgtTablesFor(width, h float64, p, dmax int) *fgtTables {
	k := fgtKey{width, h, p, dmax}
	fgtCache.Lock()
	defer fgtCache.Unlock()
	if t, ok := fgtCache.m[k]; ok {
		return t
	}
	if fgtCache.m == nil || len(fgtCache.m) >= fgtCacheMax {
		fgtCache.m = make(map[fgtKey]*fgtTables)
	}
	t := &fgtTables{width: width, h: h, p: p, dmax: dmax,
		nodes: make([]float64, p), lam: make([]float64, p), dtab: make([]float64, 2*dmax+1)}
	r := width / h / 2
	for b := range p {
		theta := float64(2*b+1) * math.Pi / float64(2*p)
		t.nodes[b] = r * math.Cos(theta)
		t.lam[b] = math.Sin(theta)
		if b%2 == 1 {
			t.lam[b] = -t.lam[b]
		}
	}
	for d := -dmax; d <= dmax; d++ {
		t.dtab[d+dmax] = float64(d) * width / h
	}
	fgtCache.m[k] = t
	return t
}

// translations returns the box-to-box translation matrices: entry (a, b)
// of matrix d is exp(-(dtab[d] + nodes[a] - nodes[b])^2).
func (t *fgtTables) translations() []float64 {
	t.once.Do(func() {
		p, nd := t.p, len(t.dtab)
		t.m2l = make([]float64, nd*p*p)
		for d := range nd {
			for a := range p {
				for b := range p {
					z := t.dtab[d] + t.nodes[a] - t.nodes[b]
					t.m2l[(d*p+a)*p+b] = math.Exp(-z * z)
				}
			}
		}
	})
	return t.m2l
}

// fgtLagrange sets l to the values at t of the Lagrange basis polynomials
// of the given nodes, by the second barycentric formula.
func fgtLagrange(l []float64, t float64, nodes, lam []float64) {
	sum := 0.0
	for b, v := range nodes {
		d := t - v
		if d == 0 {
			clear(l)
			l[b] = 1
			return
		}
		l[b] = lam[b] / d
		sum += l[b]
	}
	for b := range l {
		l[b] /= sum
	}
}

// Apply sets dst to the transform of w. dst may be empty, in which case it
// is resized, and may alias w.
func (q *fastPlan) Apply(dst, w *mat.Dense) {
	rows, m := w.Dims()
	if rows != q.n {
		panic(mat.ErrShape)
	}
	if q.n == 0 {
		return
	}
	if dst.IsEmpty() {
		dst.ReuseAs(rows, m)
	} else if dr, dc := dst.Dims(); dr != rows || dc != m {
		panic(mat.ErrShape)
	}
	wr, dr := w.RawMatrix(), dst.RawMatrix()
	if fgtOverlap(wr.Data, dr.Data) {
		wr = mat.DenseCopyOf(w).RawMatrix()
	}
	a := &fgtApply{q: q, m: m, w: wr.Data, ws: wr.Stride, dst: dr.Data, ds: dr.Stride}
	nblk := (m + fgtColBlock - 1) / fgtColBlock
	p := q.p
	if len(q.bigs) > 0 {
		a.a = make([]float64, len(q.bigs)*p*m)
		share.Out(len(q.bigs)*nblk, q.workers, func(tasks iter.Seq[int]) {
			for t := range tasks {
				c0 := t % nblk * fgtColBlock
				a.anterpolate(q.bigs[t/nblk], c0, min(c0+fgtColBlock, m))
			}
		})
	}
	share.Out(len(q.boxes)*nblk, q.workers, func(tasks iter.Seq[int]) {
		var scratch []float64 // this goroutine's
		for t := range tasks {
			if scratch == nil {
				scratch = make([]float64, p*min(m, fgtColBlock)+p)
			}
			c0 := t % nblk * fgtColBlock
			a.target(t/nblk, c0, min(c0+fgtColBlock, m), scratch)
		}
	})
}

// fgtApply holds the operands of one Apply.
type fgtApply struct {
	q      *fastPlan
	m      int
	w, dst []float64
	ws, ds int
	a      []float64 // p x m expansion coefficients per big box
}

// wrow returns columns c0..c1-1 of row perm[i] of w.
func (a *fgtApply) wrow(i, c0, c1 int) []float64 {
	o := a.q.perm[i] * a.ws
	return a.w[o+c0 : o+c1]
}

// drow returns columns c0..c1-1 of row perm[i] of dst.
func (a *fgtApply) drow(i, c0, c1 int) []float64 {
	o := a.q.perm[i] * a.ds
	return a.dst[o+c0 : o+c1]
}

// coef returns columns c0..c1-1 of coefficient b of big box k.
func (a *fgtApply) coef(k, b, c0, c1 int) []float64 {
	o := (a.q.bigIdx[k]*a.q.p + b) * a.m
	return a.a[o+c0 : o+c1]
}

// anterpolate sets the coefficients of big box k, columns c0..c1-1: the
// weights at the Chebyshev nodes, A_b = sum_j L_b(u_j) w_j.
func (a *fgtApply) anterpolate(k, c0, c1 int) {
	q, p := a.q, a.q.p
	for b := range p {
		clear(a.coef(k, b, c0, c1))
	}
	lo, hi := q.boxes[k].lo, q.boxes[k].hi
	j := lo
	for ; j+4 <= hi; j += 4 {
		w0, w1, w2, w3 := a.wrow(j, c0, c1), a.wrow(j+1, c0, c1), a.wrow(j+2, c0, c1), a.wrow(j+3, c0, c1)
		l0, l1, l2, l3 := q.basis[j*p:(j+1)*p], q.basis[(j+1)*p:(j+2)*p], q.basis[(j+2)*p:(j+3)*p], q.basis[(j+3)*p:(j+4)*p]
		for b := range p {
			fgtAxpy4(a.coef(k, b, c0, c1), l0[b], l1[b], l2[b], l3[b], w0, w1, w2, w3)
		}
	}
	for ; j < hi; j++ {
		wj, lj := a.wrow(j, c0, c1), q.basis[j*p:(j+1)*p]
		for b := range p {
			fgtAxpy1(a.coef(k, b, c0, c1), lj[b], wj)
		}
	}
}

// target computes columns c0..c1-1 of the output rows of the points of box
// t, from every box within the cutoff. buf is scratch of p*(c1-c0)+p.
func (a *fgtApply) target(t, c0, c1 int, buf []float64) {
	q, p := a.q, a.q.p
	bt := q.boxes[t]
	if q.bigIdx[t] < 0 {
		for i := bt.lo; i < bt.hi; i++ {
			out := a.drow(i, c0, c1)
			clear(out)
			for _, sg := range q.segs[q.segStart[t]:q.segStart[t+1]] {
				if sg.box >= 0 {
					a.fromExpansion(out, i, t, sg.box, c0, c1, buf[:p])
				} else {
					a.direct(out, i, sg.lo, sg.hi, c0, c1)
				}
			}
		}
		return
	}
	nc := c1 - c0
	loc := buf[:p*nc]
	ex := buf[p*nc : p*nc+p]
	clear(loc)
	for _, sg := range q.segs[q.segStart[t]:q.segStart[t+1]] {
		if sg.box >= 0 {
			a.translate(loc, t, sg.box, c0, c1)
		} else {
			a.toExpansion(loc, t, sg.lo, sg.hi, c0, c1, ex)
		}
	}
	// Interpolate: out_i = sum_a L_a(u_i) loc_a.
	for i := bt.lo; i < bt.hi; i++ {
		out := a.drow(i, c0, c1)
		clear(out)
		li := q.basis[i*p : (i+1)*p]
		b := 0
		for ; b+4 <= p; b += 4 {
			fgtAxpy4(out, li[b], li[b+1], li[b+2], li[b+3], loc[b*nc:(b+1)*nc], loc[(b+1)*nc:(b+2)*nc], loc[(b+2)*nc:(b+3)*nc], loc[(b+3)*nc:(b+4)*nc])
		}
		for ; b < p; b++ {
			fgtAxpy1(out, li[b], loc[b*nc:(b+1)*nc])
		}
	}
}

// direct adds the exact contributions of the sorted points lo..hi-1 to
// out, the output row of point i.
func (a *fgtApply) direct(out []float64, i, lo, hi, c0, c1 int) {
	q := a.q
	xi := q.x[i]
	j := lo
	for ; j+4 <= hi; j += 4 {
		z0, z1, z2, z3 := (xi-q.x[j])/q.h, (xi-q.x[j+1])/q.h, (xi-q.x[j+2])/q.h, (xi-q.x[j+3])/q.h
		fgtAxpy4(out, math.Exp(-z0*z0), math.Exp(-z1*z1), math.Exp(-z2*z2), math.Exp(-z3*z3),
			a.wrow(j, c0, c1), a.wrow(j+1, c0, c1), a.wrow(j+2, c0, c1), a.wrow(j+3, c0, c1))
	}
	for ; j < hi; j++ {
		z := (xi - q.x[j]) / q.h
		fgtAxpy1(out, math.Exp(-z*z), a.wrow(j, c0, c1))
	}
}

// fromExpansion adds the expansion of big box s, evaluated at point i of
// box t, to out.
func (a *fgtApply) fromExpansion(out []float64, i, t, s, c0, c1 int, ex []float64) {
	q, p := a.q, a.q.p
	z0 := q.dtab[q.boxes[t].key-q.boxes[s].key+q.dmax] + q.u[i]
	for b := range p {
		z := z0 - q.nodes[b]
		ex[b] = math.Exp(-z * z)
	}
	b := 0
	for ; b+4 <= p; b += 4 {
		fgtAxpy4(out, ex[b], ex[b+1], ex[b+2], ex[b+3], a.coef(s, b, c0, c1), a.coef(s, b+1, c0, c1), a.coef(s, b+2, c0, c1), a.coef(s, b+3, c0, c1))
	}
	for ; b < p; b++ {
		fgtAxpy1(out, ex[b], a.coef(s, b, c0, c1))
	}
}

// toExpansion adds the sorted points lo..hi-1, which lie in small boxes,
// to loc, the weights at the Chebyshev nodes of big box t.
func (a *fgtApply) toExpansion(loc []float64, t, lo, hi, c0, c1 int, ex []float64) {
	q, p, nc := a.q, a.q.p, c1-c0
	c := q.boxes[t].centre
	j := lo
	for ; j+4 <= hi; j += 4 {
		w0, w1, w2, w3 := a.wrow(j, c0, c1), a.wrow(j+1, c0, c1), a.wrow(j+2, c0, c1), a.wrow(j+3, c0, c1)
		v0, v1, v2, v3 := (q.x[j]-c)/q.h, (q.x[j+1]-c)/q.h, (q.x[j+2]-c)/q.h, (q.x[j+3]-c)/q.h
		for b, nu := range q.nodes {
			e0, e1, e2, e3 := nu-v0, nu-v1, nu-v2, nu-v3
			fgtAxpy4(loc[b*nc:(b+1)*nc], math.Exp(-e0*e0), math.Exp(-e1*e1), math.Exp(-e2*e2), math.Exp(-e3*e3), w0, w1, w2, w3)
		}
	}
	for ; j < hi; j++ {
		wj, vj := a.wrow(j, c0, c1), (q.x[j]-c)/q.h
		for b, nu := range q.nodes {
			z := nu - vj
			ex[b] = math.Exp(-z * z)
		}
		for b := range p {
			fgtAxpy1(loc[b*nc:(b+1)*nc], ex[b], wj)
		}
	}
}

// translate adds the expansion of big box s to loc, the weights at the
// Chebyshev nodes of big box t: loc_a += sum_b K(node_a, node_b) A_b.
func (a *fgtApply) translate(loc []float64, t, s, c0, c1 int) {
	q, p, nc := a.q, a.q.p, c1-c0
	d := q.boxes[t].key - q.boxes[s].key + q.dmax
	mtx := q.m2l[d*p*p : (d+1)*p*p]
	for r := range p {
		row, dr := mtx[r*p:(r+1)*p], loc[r*nc:(r+1)*nc]
		b := 0
		for ; b+4 <= p; b += 4 {
			fgtAxpy4(dr, row[b], row[b+1], row[b+2], row[b+3], a.coef(s, b, c0, c1), a.coef(s, b+1, c0, c1), a.coef(s, b+2, c0, c1), a.coef(s, b+3, c0, c1))
		}
		for ; b < p; b++ {
			fgtAxpy1(dr, row[b], a.coef(s, b, c0, c1))
		}
	}
}

// fgtAxpy4 adds a0 x0 + a1 x1 + a2 x2 + a3 x3 to y.
func fgtAxpy4(y []float64, a0, a1, a2, a3 float64, x0, x1, x2, x3 []float64) {
	n := len(y)
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	for k := range y {
		y[k] += a0*x0[k] + a1*x1[k] + a2*x2[k] + a3*x3[k]
	}
}

// fgtAxpy1 adds a x to y.
func fgtAxpy1(y []float64, a float64, x []float64) {
	x = x[:len(y)]
	for k := range y {
		y[k] += a * x[k]
	}
}

// fgtOverlap reports whether two slices share memory.
func fgtOverlap(a, b []float64) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return a0 < b0+uintptr(len(b))*8 && b0 < a0+uintptr(len(a))*8
}
