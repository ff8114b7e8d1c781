package gnn

import (
	"github.com/fedaux/fedaux/internal/vec"
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
// non-zero entries of row i of x select, in column order.
func mulSkipRows(dst, x, w *mat.Dense, zero bool) {
	d, xr, wr := dst.RawMatrix(), x.RawMatrix(), w.RawMatrix()
	m, k := d.Cols, xr.Cols
	var s rowSum
	for i := 0; i < d.Rows; i++ {
		row := d.Data[i*d.Stride : i*d.Stride+m]
		zero := zero
		for j, v := range xr.Data[i*xr.Stride : i*xr.Stride+k] {
			if v != 0 {
				zero = s.add(row, zero, v, wr.Data[j*wr.Stride:j*wr.Stride+m])
			}
		}
		s.flush(row, zero)
	}
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

// transBlock is the number of rows of x and p that mulTransAddSkip takes
// at a time; their rows of p stay in cache while it walks dst.
const transBlock = 16

// mulTransAddSkip adds x^T * p to dst (dst k x m, x N x k, p N x m),
// skipping the zero entries of x. Row j of dst receives x_ij p_i in the
// order of i, as from a loop over the rows of x; it is read and written
// once for every transBlock rows.
func mulTransAddSkip(dst, x, p *mat.Dense) {
	d, xr, pr := dst.RawMatrix(), x.RawMatrix(), p.RawMatrix()
	m, k := d.Cols, xr.Cols
	var s rowSum
	for i0 := 0; i0 < xr.Rows; i0 += transBlock {
		i1 := min(i0+transBlock, xr.Rows)
		for j := 0; j < k; j++ {
			row := d.Data[j*d.Stride : j*d.Stride+m]
			for i := i0; i < i1; i++ {
				if v := xr.Data[i*xr.Stride+j]; v != 0 {
					s.add(row, false, v, pr.Data[i*pr.Stride:i*pr.Stride+m])
				}
			}
			s.flush(row, false)
		}
	}
}

// dotSet computes several dot products of one vector in one kernel call.
// It lives on the stack of the loop that uses it.
type dotSet struct {
	n    int
	idx  [batch]int
	out  [batch]float64
	rows [batch][]float64
}

// add queues the dot product of the vector with row for dst[j], flushing
// the queue first when it is full.
func (s *dotSet) add(dst, x []float64, j int, row []float64) {
	if s.n == batch {
		s.flush(dst, x)
	}
	s.idx[s.n], s.rows[s.n] = j, row
	s.n++
}

// flush sets dst[j] for every queued j to the dot product of x with its row.
func (s *dotSet) flush(dst, x []float64) {
	if s.n == 0 {
		return
	}
	vec.DotN(s.out[:s.n], x, s.rows[:s.n])
	for t, j := range s.idx[:s.n] {
		dst[j] = s.out[t]
	}
	s.n = 0
}

// mulTransB sets dst = p * w^T (dst N x k, p N x m, w k x m). When
// pattern is not nil (N x k), only the entries where pattern is non-zero
// are computed and the others are set to zero.
func mulTransB(dst, p, w, pattern *mat.Dense) {
	d, pr, wr := dst.RawMatrix(), p.RawMatrix(), w.RawMatrix()
	m, k := pr.Cols, d.Cols
	var pat []float64
	patStride := 0
	if pattern != nil {
		raw := pattern.RawMatrix()
		pat, patStride = raw.Data, raw.Stride
	}
	var s dotSet
	for i := 0; i < d.Rows; i++ {
		row := d.Data[i*d.Stride : i*d.Stride+k]
		src := pr.Data[i*pr.Stride : i*pr.Stride+m]
		var prow []float64
		if pat != nil {
			prow = pat[i*patStride : i*patStride+k]
		}
		for j := range row {
			switch {
			case prow != nil && prow[j] == 0:
				row[j] = 0
			case m < shortLoop:
				row[j] = dot(src, wr.Data[j*wr.Stride:j*wr.Stride+m])
			default:
				s.add(row, src, j, wr.Data[j*wr.Stride:j*wr.Stride+m])
			}
		}
		s.flush(row, src)
	}
}

// addDots adds to d[j] the dot product of g with row j of the len(d) x
// len(g) matrix stored row after row in w (d[j] += dot(g, w_j)).
func addDots(d, g, w []float64) {
	m := len(g)
	if m < shortLoop {
		for j := range d {
			d[j] += dot(g, w[j*m:(j+1)*m])
		}
		return
	}
	var s dotSet
	for j0 := 0; j0 < len(d); j0 += batch {
		s.n = min(batch, len(d)-j0)
		for t := range s.n {
			j := j0 + t
			s.rows[t] = w[j*m : (j+1)*m]
		}
		vec.DotN(s.out[:s.n], g, s.rows[:s.n])
		for t, v := range s.out[:s.n] {
			d[j0+t] += v
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

// addColumnSums adds the column sums of m to dst (len dst = columns of m).
func addColumnSums(dst []float64, m *mat.Dense) {
	raw := m.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		axpy(dst, 1, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols])
	}
}
