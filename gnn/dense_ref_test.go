package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// The products as they were before vec.RowSums (row-by-row scaled sums
// through rowSum, and plain loops below shortLoop), kept to check that
// the blocked products give their bits.

// oldMulSkipRows is mulSkip if zero is set, and adds x * w to dst if not:
// row i of dst is (cleared and then) summed from the rows of w that the
// non-zero entries of row i of x select, in column order.
func oldMulSkipRows(dst, x, w *mat.Dense, zero bool) {
	d, xr, wr := dst.RawMatrix(), x.RawMatrix(), w.RawMatrix()
	m, k := d.Cols, xr.Cols
	if m < shortLoop {
		for i := 0; i < d.Rows; i++ {
			row := d.Data[i*d.Stride : i*d.Stride+m]
			if zero {
				clear(row)
			}
			for j, v := range xr.Data[i*xr.Stride : i*xr.Stride+k] {
				if v != 0 {
					axpy(row, v, wr.Data[j*wr.Stride:j*wr.Stride+m])
				}
			}
		}
		return
	}
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

// oldTransBlock is the number of rows of x and p that oldMulTransAddSkip takes
// at a time; their rows of p stay in cache while it walks dst.
const oldTransBlock = 16

// oldMulTransAddSkip adds x^T * p to dst (dst k x m, x N x k, p N x m),
// skipping the zero entries of x. Row j of dst receives x_ij p_i in the
// order of i, as from a loop over the rows of x; it is read and written
// once for every oldTransBlock rows.
func oldMulTransAddSkip(dst, x, p *mat.Dense) {
	d, xr, pr := dst.RawMatrix(), x.RawMatrix(), p.RawMatrix()
	m, k := d.Cols, xr.Cols
	if m < shortLoop {
		for i := 0; i < xr.Rows; i++ {
			src := pr.Data[i*pr.Stride : i*pr.Stride+m]
			for j, v := range xr.Data[i*xr.Stride : i*xr.Stride+k] {
				if v != 0 {
					axpy(d.Data[j*d.Stride:j*d.Stride+m], v, src)
				}
			}
		}
		return
	}
	var s rowSum
	for i0 := 0; i0 < xr.Rows; i0 += oldTransBlock {
		i1 := min(i0+oldTransBlock, xr.Rows)
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

// oldTransRows and oldTransCols are the numbers of rows of p and of w whose
// dot products oldMulTransBRows computes in one kernel call: every row of w
// is read once for oldTransRows rows of p.
const oldTransRows, oldTransCols = 16, 64

// oldMulTransBRows is mulTransB, or mulTransBAdd if add is set (pattern is
// then nil). Every entry is one dot product (dot's order); blocks of
// oldTransRows x oldTransCols of them are computed at once, including those
// the pattern then zeroes, which costs less than reading w once a row.
func oldMulTransBRows(dst, p, w, pattern *mat.Dense, add bool) {
	d, pr, wr := dst.RawMatrix(), p.RawMatrix(), w.RawMatrix()
	m, k := pr.Cols, d.Cols
	var pat []float64
	patStride := 0
	if pattern != nil {
		raw := pattern.RawMatrix()
		pat, patStride = raw.Data, raw.Stride
	}
	if m < shortLoop {
		for i := 0; i < d.Rows; i++ {
			row := d.Data[i*d.Stride : i*d.Stride+k]
			src := pr.Data[i*pr.Stride : i*pr.Stride+m]
			switch {
			case pat != nil:
				prow := pat[i*patStride : i*patStride+k]
				for j := range row {
					if prow[j] != 0 {
						row[j] = dot(src, wr.Data[j*wr.Stride:j*wr.Stride+m])
					} else {
						row[j] = 0
					}
				}
			case add:
				for j := range row {
					row[j] += dot(src, wr.Data[j*wr.Stride:j*wr.Stride+m])
				}
			default:
				for j := range row {
					row[j] = dot(src, wr.Data[j*wr.Stride:j*wr.Stride+m])
				}
			}
		}
		return
	}
	var xs [oldTransRows][]float64
	var ys [oldTransCols][]float64
	var out [oldTransRows * oldTransCols]float64
	for i0 := 0; i0 < d.Rows; i0 += oldTransRows {
		nx := min(oldTransRows, d.Rows-i0)
		for a := range nx {
			xs[a] = pr.Data[(i0+a)*pr.Stride : (i0+a)*pr.Stride+m]
		}
		for j0 := 0; j0 < k; j0 += oldTransCols {
			nj := min(oldTransCols, k-j0)
			for t := range nj {
				ys[t] = wr.Data[(j0+t)*wr.Stride : (j0+t)*wr.Stride+m]
			}
			vec.DotMN(out[:nx*nj], xs[:nx], ys[:nj])
			for a := range nx {
				i := i0 + a
				row := d.Data[i*d.Stride+j0 : i*d.Stride+j0+nj]
				res := out[a*nj : (a+1)*nj]
				switch {
				case add:
					for t, v := range res {
						row[t] += v
					}
				case pat != nil:
					prow := pat[i*patStride+j0 : i*patStride+j0+nj]
					for t, v := range res {
						if prow[t] == 0 {
							v = 0
						}
						row[t] = v
					}
				default:
					copy(row, res)
				}
			}
		}
	}
}

// oldCSRMulDense is CSR.mulDense as it was: it sets dst = c * b. dst is c.Rows x m and b is c.Cols x m; only
// the rows of b that c references are read.
func oldCSRMulDense(c *CSR, dst, b *mat.Dense) {
	d, br := dst.RawMatrix(), b.RawMatrix()
	m := d.Cols
	var s rowSum
	for i := 0; i < c.Rows; i++ {
		row := d.Data[i*d.Stride : i*d.Stride+m]
		zero := true
		for k := c.Indptr[i]; k < c.Indptr[i+1]; k++ {
			j := c.Indices[k]
			zero = s.add(row, zero, c.Values[k], br.Data[j*br.Stride:j*br.Stride+m])
		}
		s.flush(row, zero)
	}
}

// denseCase returns an r x c matrix (a view into a wider one a third of
// the time) whose entries are zero with
// probability zeros (half of them -0) and otherwise normal, with rare
// infinities and NaNs when special is set.
func denseCase(rng *rand.Rand, r, c int, zeros float64, special bool) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	if rng.IntN(3) == 0 { // a strided view, rows unaligned
		m = mat.NewDense(r+1, c+3, nil).Slice(1, r+1, 2, c+2).(*mat.Dense)
	}
	raw := m.RawMatrix()
	for i := range raw.Data {
		switch u := rng.Float64(); {
		case u < zeros/2:
		case u < zeros:
			raw.Data[i] = math.Copysign(0, -1)
		case special && u > 0.995:
			raw.Data[i] = math.Inf(1)
		case special && u > 0.99:
			raw.Data[i] = math.NaN()
		default:
			raw.Data[i] = rng.NormFloat64()
		}
	}
	return m
}

func sameMatBits(t *testing.T, what string, got, want *mat.Dense) {
	t.Helper()
	g, w := got.RawMatrix(), want.RawMatrix()
	for i := 0; i < g.Rows; i++ {
		for j := 0; j < g.Cols; j++ {
			a, b := g.Data[i*g.Stride+j], w.Data[i*w.Stride+j]
			if math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Fatalf("%s: entry (%d,%d) is %v (%#x), before %v (%#x)", what, i, j, a, math.Float64bits(a), b, math.Float64bits(b))
			}
		}
	}
}

// productShapes are the shapes tried: every small size around the strips
// of 8 and 32 columns, the groups of four rows and shortLoop, and those
// of a round.
func productShapes(rng *rand.Rand) [][3]int {
	var s [][3]int
	for range 150 {
		s = append(s, [3]int{1 + rng.IntN(70), 1 + rng.IntN(70), 1 + rng.IntN(70)})
	}
	return append(s, [3]int{250, 256, 256}, [3]int{300, 512, 7}, [3]int{257, 256, 14}, [3]int{5, 1433, 33})
}

// TestProductsBitIdentical compares the products with their previous
// implementations bit for bit (NaN payloads aside) at every kernel level,
// on random shapes and densities, with and without infinities and NaNs.
func TestProductsBitIdentical(t *testing.T) {
	for l := vec.Portable; l <= vec.Best(); l++ {
		t.Run(l.String(), func(t *testing.T) {
			prev := vec.Use(l)
			defer vec.Use(prev)
			rng := rand.New(rand.NewPCG(11, uint64(l)))
			for it, s := range productShapes(rng) {
				n, k, m := s[0], s[1], s[2]
				zeros := []float64{0, 0.25, 0.5, 0.75, 1}[rng.IntN(5)]
				special := rng.IntN(3) == 0
				name := fmt.Sprintf("case %d (%dx%dx%d, zeros %v, special %v)", it, n, k, m, zeros, special)

				x, w := denseCase(rng, n, k, zeros, special), denseCase(rng, k, m, 0.1, special)
				for _, zero := range []bool{true, false} {
					init := denseCase(rng, n, m, 0.2, special)
					got, want := mat.DenseCopyOf(init), mat.DenseCopyOf(init)
					mulSkipRows(got, x, w, zero)
					oldMulSkipRows(want, x, w, zero)
					sameMatBits(t, name+fmt.Sprintf(" mulSkipRows zero=%v", zero), got, want)
				}

				p := denseCase(rng, n, m, 0.1, special)
				init := denseCase(rng, k, m, 0.2, special)
				got, want := mat.DenseCopyOf(init), mat.DenseCopyOf(init)
				mulTransAddSkip(got, x, p)
				oldMulTransAddSkip(want, x, p)
				sameMatBits(t, name+" mulTransAddSkip", got, want)

				wt := denseCase(rng, k, m, 0.1, special) // p * wt^T is n x k
				for _, mode := range []string{"set", "pattern", "add"} {
					init := denseCase(rng, n, k, 0.2, special)
					got, want := mat.DenseCopyOf(init), mat.DenseCopyOf(init)
					switch mode {
					case "set":
						mulTransBRows(got, p, wt, nil, false)
						oldMulTransBRows(want, p, wt, nil, false)
					case "pattern":
						mulTransBRows(got, p, wt, x, false)
						oldMulTransBRows(want, p, wt, x, false)
					case "add":
						mulTransBRows(got, p, wt, nil, true)
						oldMulTransBRows(want, p, wt, nil, true)
					}
					sameMatBits(t, name+" mulTransB "+mode, got, want)
				}

				c := CSRFromDense(x)
				if rng.IntN(2) == 0 { // explicit zeros stay in the product
					for i := range c.Values {
						if rng.IntN(10) == 0 {
							c.Values[i] = 0
						}
					}
				}
				b := denseCase(rng, k, m, 0.1, special)
				got, want = denseCase(rng, n, m, 0, false), denseCase(rng, n, m, 0, false)
				c.mulDense(got, b)
				oldCSRMulDense(c, want, b)
				sameMatBits(t, name+" CSR.mulDense", got, want)
			}
		})
	}
}

// randCSR returns a rows x cols CSR with up to 8 entries a row in any
// column order, duplicates and explicit zeros included, and rare
// infinities and NaNs when special is set.
func randCSR(rng *rand.Rand, rows, cols int, special bool) *CSR {
	c := &CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1)}
	for i := range rows {
		for range rng.IntN(9) {
			v := rng.NormFloat64()
			switch u := rng.Float64(); {
			case u < 0.1:
				v = 0
			case special && u > 0.98:
				v = math.Inf(-1)
			case special && u > 0.96:
				v = math.NaN()
			}
			c.Indices = append(c.Indices, rng.IntN(cols))
			c.Values = append(c.Values, v)
		}
		c.Indptr[i+1] = len(c.Indices)
	}
	return c
}

// TestCSRProductsBitIdentical compares the sparse products of SAGE's
// feature layer (and the transposed one from its kept columns) with the
// loops they replaced (one axpy per entry of x, row after row), bit for
// bit, at every kernel level.
func TestCSRProductsBitIdentical(t *testing.T) {
	for l := vec.Portable; l <= vec.Best(); l++ {
		t.Run(l.String(), func(t *testing.T) {
			prev := vec.Use(l)
			defer vec.Use(prev)
			rng := rand.New(rand.NewPCG(31, uint64(l)))
			var kept sageSparse // one for all cases, as a layer's for its inputs
			for it := range 200 {
				rows, cols, m := 1+rng.IntN(40), 1+rng.IntN(60), 1+rng.IntN(70)
				special := rng.IntN(3) == 0
				name := fmt.Sprintf("case %d (%dx%d, m %d)", it, rows, cols, m)
				c := randCSR(rng, rows, cols, special)

				w := denseCase(rng, cols, m, 0.1, special)
				got, want := denseCase(rng, rows, m, 0, false), denseCase(rng, rows, m, 0, false)
				c.mulDense(got, w)
				wr := w.RawMatrix()
				for i := range rows {
					row := want.RawRowView(i)
					clear(row)
					for k := c.Indptr[i]; k < c.Indptr[i+1]; k++ {
						j := c.Indices[k]
						axpy(row, c.Values[k], wr.Data[j*wr.Stride:j*wr.Stride+m])
					}
				}
				sameMatBits(t, name+" mulDense", got, want)

				b := denseCase(rng, rows, m, 0.1, special)
				init := denseCase(rng, cols, m, 0.2, special)
				got, want = mat.DenseCopyOf(init), mat.DenseCopyOf(init)
				c.mulTransAdd(got, b)
				for i := range rows {
					for k := c.Indptr[i]; k < c.Indptr[i+1]; k++ {
						axpy(want.RawRowView(c.Indices[k]), c.Values[k], b.RawRowView(i))
					}
				}
				sameMatBits(t, name+" mulTransAdd", got, want)

				// A SAGE layer's kept columns: built for this matrix, then
				// kept for a source of another stride.
				got = mat.DenseCopyOf(init)
				kept.transAdd(got, c, b)
				sameMatBits(t, name+" kept columns", got, want)
				wide := mat.NewDense(rows, m+3, nil)
				bv := wide.Slice(0, rows, 0, m).(*mat.Dense)
				bv.Copy(b)
				got = mat.DenseCopyOf(init)
				kept.transAdd(got, c, bv)
				sameMatBits(t, name+" kept columns, source rows further apart", got, want)
			}
		})
	}
}
