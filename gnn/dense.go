package gnn

import (
	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The products below are hand-written row loops rather than mat.Mul: the
// inputs of the second GCN layer and of the classifier come out of ReLU
// and dropout, so 50 to 75 % of their entries are zero, and skipping
// them beats gonum's dense GEMM several times over at these shapes
// (N = 250, d = 256: 1.3 ms against 5.9 ms for X W on 2 cores). Their
// inner loops are the SIMD kernels of internal/vec: a row of the result
// is summed from up to batch scaled rows in one pass, which reads and
// writes it once, with the rounding and the order of one axpy after
// another, so the results are those of the plain loops to the last bit.

// shortLoop is the vector length below which a plain Go loop beats the
// call into the assembly kernels. dot sums in sequence below it and in
// the order of vec.Dot (gonum's DotUnitary) from it on.
const shortLoop = 16

// batch is the number of scaled rows (or dot products) one kernel call
// takes.
const batch = 64

// axpy adds a*x to dst.
func axpy(dst []float64, a float64, x []float64) {
	if len(x) >= shortLoop {
		vec.AddScaled(dst, a, x)
		return
	}
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] += a * v
	}
}

// dot returns the inner product of a and b.
func dot(a, b []float64) float64 {
	if len(a) >= shortLoop {
		return vec.Dot(a, b)
	}
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// rowSum gathers scaled rows to add to one destination row. It lives on
// the stack of the loop that uses it.
type rowSum struct {
	n    int
	a    [batch]float64
	rows [batch][]float64
}

// add queues a*row for dst, flushing the queue first when it is full;
// zero says whether dst is still to be cleared, and add returns whether
// it still is.
func (s *rowSum) add(dst []float64, zero bool, a float64, row []float64) bool {
	if s.n == batch {
		s.flush(dst, zero)
		zero = false
	}
	s.a[s.n], s.rows[s.n] = a, row
	s.n++
	return zero
}

// flush adds the queued scaled rows to dst in order, first setting dst to
// zero if zero is set (so that an empty queue with zero set clears dst).
func (s *rowSum) flush(dst []float64, zero bool) {
	if len(dst) < shortLoop {
		if zero {
			clear(dst)
		}
		for t, a := range s.a[:s.n] {
			axpy(dst, a, s.rows[t])
		}
		s.n = 0
		return
	}
	if zero {
		vec.ScaledSum(dst, s.a[:s.n], s.rows[:s.n])
	} else if s.n > 0 {
		vec.AddScaledN(dst, s.a[:s.n], s.rows[:s.n])
	}
	s.n = 0
}

// mulSkip sets dst = x * w (dst N x m, x N x k, w k x m), skipping the
// zero entries of x.
func mulSkip(dst, x, w *mat.Dense) { mulSkipRows(dst, x, w, true) }

// mulSkipRows is mulSkip if zero is set, and adds x * w to dst if not:
// row i of dst is (cleared and then) summed from the rows of w that the
// non-zero entries of row i of x select, in column order, each product
// and each sum rounded (vec.RowSums), termRows rows of dst at a time.
func mulSkipRows(dst, x, w *mat.Dense, zero bool) {
	d, xr, wr := dst.RawMatrix(), x.RawMatrix(), w.RawMatrix()
	m, k := d.Cols, xr.Cols
	b := getTerms()
	defer putTerms(b)
	for i0 := 0; i0 < d.Rows; i0 += termRows {
		i1 := min(i0+termRows, d.Rows)
		if noZeros(xr.Data[i0*xr.Stride:], i1-i0, k, xr.Stride) {
			// Every entry is a term: the rows share them.
			vec.DenseSums(d.Data[i0*d.Stride:], d.Stride, m, wr.Data, wr.Stride, xr.Data[i0*xr.Stride:], xr.Stride, 1, i1-i0, k, zero)
			continue
		}
		b.reset(i1-i0, k)
		for i := i0; i < i1; i++ {
			b.nonzero(i-i0, xr.Data[i*xr.Stride:i*xr.Stride+k], wr.Stride)
		}
		vec.RowSumsStride(d.Data[i0*d.Stride:], d.Stride, m, wr.Data, wr.Stride, b.t, b.n, zero)
	}
}

// noZeros reports whether the rows x cols block of x (stride) has no
// zero entry (NaN is not zero), so that a product skipping the zeros
// of x takes every entry of the block: vec.DenseSums instead of terms.
func noZeros(x []float64, rows, cols, stride int) bool {
	for i := range rows {
		if vec.HasZero(x[i*stride : i*stride+cols]) {
			return false
		}
	}
	return true
}

// convAddSkip adds to each row i of dst (N x m) the sum over the taps t
// = 0 .. width-1 of x_{i+t-p} W_t, p = (width-1)/2, where x is N x k,
// rows of x outside 0 .. N-1 are zero, and w stacks the k x m matrices
// W_t tap by tap (width*k x m). The zero entries of x are skipped. Row i
// receives its terms in the order of t and then of the column of x, as
// from mulSkipRows (adding) called for each tap in turn, but is read and
// written once.
func convAddSkip(dst, x, w *mat.Dense, width int) {
	d, xr, wr := dst.RawMatrix(), x.RawMatrix(), w.RawMatrix()
	n, k, m := xr.Rows, xr.Cols, d.Cols
	p := (width - 1) / 2
	var s rowSum
	for i := 0; i < n; i++ {
		row := d.Data[i*d.Stride : i*d.Stride+m]
		for t := max(0, p-i); t < min(width, n-i+p); t++ {
			r := i + t - p
			for j, v := range xr.Data[r*xr.Stride : r*xr.Stride+k] {
				if v != 0 {
					q := t*k + j
					s.add(row, false, v, wr.Data[q*wr.Stride:q*wr.Stride+m])
				}
			}
		}
		s.flush(row, false)
	}
}

// narrowTrans is the widest product that mulTransAddSkip sums by
// vec.TransSums (a classifier's weight gradient, C or 2C columns).
const narrowTrans = 32

// transBlock is the number of rows of x and p that mulTransAddSkip takes
// at a time; their strips of p stay in cache while it walks dst.
const transBlock = 256

// mulTransAddSkip adds x^T * p to dst (dst k x m, x N x k, p N x m),
// skipping the zero entries of x. Row j of dst receives x_ij p_i in the
// order of i, as from a loop over the rows of x, each product and each
// sum rounded (vec.RowSums); it is read and written once for every
// transBlock rows.
func mulTransAddSkip(dst, x, p *mat.Dense) {
	d, xr, pr := dst.RawMatrix(), x.RawMatrix(), p.RawMatrix()
	m, k := d.Cols, xr.Cols
	b := getTerms()
	defer putTerms(b)
	if m <= narrowTrans {
		// The narrow product sums the rows of x as they are, eight
		// columns of x to a register, into dst transposed: the same
		// sums, without gathering the terms of every column.
		dt := b.out(m * k)
		for j := range k {
			for c, v := range d.Data[j*d.Stride : j*d.Stride+m] {
				dt[c*k+j] = v
			}
		}
		if vec.TransSums(dt, k, xr.Data, xr.Stride, pr.Data, pr.Stride, xr.Rows, m) {
			for j := range k {
				row := d.Data[j*d.Stride : j*d.Stride+m]
				for c := range row {
					row[c] = dt[c*k+j]
				}
			}
			return
		}
	}
	for i0 := 0; i0 < xr.Rows; i0 += transBlock {
		i1 := min(i0+transBlock, xr.Rows)
		if noZeros(xr.Data[i0*xr.Stride:], i1-i0, k, xr.Stride) {
			// Row j of dst takes every row of the block, with the
			// coefficients of column j of x.
			vec.DenseSums(d.Data, d.Stride, m, pr.Data[i0*pr.Stride:], pr.Stride, xr.Data[i0*xr.Stride:], 1, xr.Stride, k, i1-i0, false)
			continue
		}
		b.byColumns(xr.Data[i0*xr.Stride:], i1-i0, k, xr.Stride, i0, pr.Stride)
		vec.RowSumsStride(d.Data, d.Stride, m, pr.Data, pr.Stride, b.t, b.n, false)
	}
}

// mulTransB sets dst = p * w^T (dst N x k, p N x m, w k x m). When
// pattern is not nil (N x k), only the entries where pattern is non-zero
// are kept and the others are set to zero.
func mulTransB(dst, p, w, pattern *mat.Dense) { mulTransBRows(dst, p, w, pattern, false) }

// mulTransBAdd adds p * w^T to dst (shapes as for mulTransB). When
// pattern is not nil, only the entries where it is non-zero gain their
// product; the others gain +0.
func mulTransBAdd(dst, p, w, pattern *mat.Dense) { mulTransBRows(dst, p, w, pattern, true) }

// transRows is the number of rows of p whose products mulTransBAdd
// computes at once, before adding them to dst.
const transRows = 64

// mulTransBRows is mulTransB, or mulTransBAdd if add is set. Every entry
// is one dot product (dot's order). For m >= shortLoop the product is
// vec.DotMNStride of the rows of p and w, which computes every entry
// (those the pattern zeroes too, and zeroes them), and mulTransBAdd's
// sum the same in blocks of transRows rows.
// A shorter m sums each entry in sequence (mulTransBShort's order):
// vec.SeqDotMNStride where the level has it, mulTransBShort otherwise and
// for mulTransBAdd.
func mulTransBRows(dst, p, w, pattern *mat.Dense, add bool) {
	d, pr, wr := dst.RawMatrix(), p.RawMatrix(), w.RawMatrix()
	m, k := pr.Cols, d.Cols
	var pat []float64
	patStride := 0
	if pattern != nil {
		raw := pattern.RawMatrix()
		pat, patStride = raw.Data, raw.Stride
	}
	b := getTerms()
	defer putTerms(b)
	xs, ys := b.factorRows(pr, wr)
	if m < shortLoop {
		if add || !vec.SeqDotMNStride(d.Data, d.Stride, xs, ys, pat, patStride) {
			mulTransBShort(b, d, pr, wr, pat, patStride, add)
		}
		return
	}
	if !add {
		vec.DotMNStride(d.Data, d.Stride, xs, ys, pat, patStride)
		return
	}
	// The sum goes through b's memory, transRows rows at a time.
	out := b.out(transRows * k)
	for i0 := 0; i0 < d.Rows; i0 += transRows {
		nx := min(transRows, d.Rows-i0)
		var patRows []float64
		if pat != nil {
			patRows = pat[i0*patStride:]
		}
		vec.DotMNStride(out, k, xs[i0:i0+nx], ys, patRows, patStride)
		for a := range nx {
			row := d.Data[(i0+a)*d.Stride : (i0+a)*d.Stride+k]
			for j, v := range out[a*k : (a+1)*k] {
				row[j] += v
			}
		}
	}
}

// factorRows returns the rows of p and of w (every row's Cols elements)
// in b's memory.
func (b *terms) factorRows(p, w blas64.General) (ps, ws [][]float64) {
	if n := p.Rows + w.Rows; cap(b.ys) < n {
		b.ys = make([][]float64, n)
	}
	ps, ws = b.ys[:p.Rows], b.ys[p.Rows:p.Rows+w.Rows]
	for i := range ps {
		ps[i] = p.Data[i*p.Stride : i*p.Stride+p.Cols]
	}
	for i := range ws {
		ws[i] = w.Data[i*w.Stride : i*w.Stride+w.Cols]
	}
	return ps, ws
}

// mulTransBShort is mulTransBRows for m < shortLoop, where each entry is
// the dot product summed in sequence from +0: row i of the result is the
// sum of p_it times row t of w^T for t = 0 .. m-1 in order, which
// vec.RowSums computes with the same roundings, several rows at a time.
func mulTransBShort(b *terms, d, pr, wr blas64.General, pat []float64, patStride int, add bool) {
	m, k := pr.Cols, d.Cols
	wt := b.transpose(wr) // m x k
	res := d.Data
	resStride := d.Stride
	if add {
		res = b.out(termRows * k)
		resStride = k
	}
	for i0 := 0; i0 < d.Rows; i0 += termRows {
		i1 := min(i0+termRows, d.Rows)
		b.reset(i1-i0, m)
		for i := i0; i < i1; i++ {
			src := pr.Data[i*pr.Stride : i*pr.Stride+m]
			for t, v := range src {
				b.t = append(b.t, vec.Term{Off: t * k, A: v})
			}
			b.n[i-i0] = m
		}
		out := res
		if !add {
			out = res[i0*resStride:]
		}
		vec.RowSums(out, resStride, k, wt, b.t, b.n, true)
		for i := i0; i < i1; i++ {
			row := d.Data[i*d.Stride : i*d.Stride+k]
			switch {
			case add:
				for j, v := range out[(i-i0)*k : (i-i0+1)*k] {
					if pat != nil && pat[i*patStride+j] == 0 {
						v = 0
					}
					row[j] += v
				}
			case pat != nil:
				for j, p := range pat[i*patStride : i*patStride+k] {
					if p == 0 {
						row[j] = 0
					}
				}
			}
		}
	}
}

// addRowVector adds the row vector b to every row of m.
func addRowVector(m *mat.Dense, b []float64) {
	raw := m.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		axpy(raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols], 1, b)
	}
}

// addTo adds x to m element by element, the sums of m.Add(m, x): each
// product 1*x[i] of axpy is x[i] exactly, added to m[i] in that order.
func addTo(m, x *mat.Dense) {
	rm, rx := m.RawMatrix(), x.RawMatrix()
	if rm.Rows != rx.Rows || rm.Cols != rx.Cols {
		panic(mat.ErrShape)
	}
	for i := 0; i < rm.Rows; i++ {
		axpy(rm.Data[i*rm.Stride:i*rm.Stride+rm.Cols], 1, rx.Data[i*rx.Stride:i*rx.Stride+rx.Cols])
	}
}

// addColumnSums adds the column sums of m to dst (len dst = columns of m).
func addColumnSums(dst []float64, m *mat.Dense) {
	raw := m.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		axpy(dst, 1, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols])
	}
}
