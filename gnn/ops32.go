package gnn

import (
	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// The float32 products of the backbone (backbone32.go). Matrices are
// row-major []float32 with as many columns as their stride. Every
// product is a sum of scaled rows (vec.RowSums32) or a dot product
// (vec.Dot32), so that, as in float64, a result depends only on its
// inputs, never on how rows are split among goroutines.

// terms32 is a product's list of terms, one count per row of the result.
type terms32 struct {
	t []vec.Term32
	n []int
}

func (b *terms32) reset(rows int) {
	b.t = b.t[:0]
	if cap(b.n) < rows {
		b.n = make([]int, rows)
	}
	b.n = b.n[:rows]
	clear(b.n)
}

// off32 returns o as a Term32's offset; it panics if o does not fit one
// (vec.CheckOff32).
func off32(o int) int32 {
	vec.CheckOff32(o)
	return int32(o)
}

// csrTerms sets b to the rows of c as terms on a matrix of stride
// columns: row i sums c_ij times row j, in the order of the entries.
func (b *terms32) csrTerms(c *CSR, stride int) {
	b.reset(c.Rows)
	for i := 0; i < c.Rows; i++ {
		for k := c.Indptr[i]; k < c.Indptr[i+1]; k++ {
			b.t = append(b.t, vec.Term32{Off: off32(c.Indices[k] * stride), A: float32(c.Values[k])})
		}
		b.n[i] = c.Indptr[i+1] - c.Indptr[i]
	}
}

// denseTerms sets b to the non-zero entries of x (rows x cols) by rows,
// as terms on a matrix of stride columns (vec.NonzeroTerms32, row by
// row).
func (b *terms32) denseTerms(x []float32, rows, cols, stride int) {
	b.reset(rows)
	k := 0
	for i := 0; i < rows; i++ {
		if cap(b.t) < k+cols+vec.NonzeroTermsSlack {
			b.t = append(b.t[:k], make([]vec.Term32, cols+vec.NonzeroTermsSlack)...)[:k]
		}
		n := vec.NonzeroTerms32(b.t[k:cap(b.t)], x[i*cols:(i+1)*cols], stride)
		b.n[i] = n
		k += n
	}
	b.t = b.t[:k]
}

// denseColumnTerms sets b to the non-zero entries of x (rows x cols) by
// columns, in the order of the rows, as terms on a matrix of stride
// columns, without a branch on the data. It walks x column by column,
// so that column j's terms follow column j-1's in one sequential run
// (as terms.byColumns).
func (b *terms32) denseColumnTerms(x []float32, rows, cols, stride int) {
	b.reset(cols)
	if rows == 0 {
		return
	}
	if cap(b.t) < rows*cols+1 {
		b.t = make([]vec.Term32, rows*cols+1)
	}
	t := b.t[:rows*cols+1] // room for every entry, and one spill
	_ = x[rows*cols-1]
	vec.CheckOff32((rows - 1) * stride)
	s := int32(stride)
	k := 0
	for j := 0; j < cols; j++ {
		k0 := k
		o := int32(0)
		for q := j; q < rows*cols; q += cols {
			v := x[q]
			t[k] = vec.Term32{Off: o, A: v}
			k += b2i(v != 0)
			o += s
		}
		b.n[j] = k - k0
	}
	b.t = t[:k]
}

// sum sets dst (one row of cols per count of b) to the sums of b's terms
// on src.
func (b *terms32) sum(dst []float32, cols int, src []float32) {
	b.sumStride(dst, cols, cols, src)
}

// sumStride is sum with dst's rows stride entries apart.
func (b *terms32) sumStride(dst []float32, stride, cols int, src []float32) {
	vec.RowSums32(dst, stride, cols, src, b.t, b.n, true)
}

// pad32 returns the row stride, in float32s, at which the backbone keeps
// the sources of its products (the effective weights, X W and the
// gradients A_hat reads): c, or c + 16 (one cache line more) when c is a
// multiple of 64, as padStride does for float64. Rows 1 KiB apart put a
// strip of the first layer's 128-row blocks into 8 of the 64 sets of a
// 32 KiB, 8-way first-level cache, which then holds a quarter of the
// block.
func pad32(c int) int {
	if c%64 == 0 {
		return c + 16
	}
	return c
}

// transB32 holds mulTransB32's buffers.
type transB32 struct {
	rows [][]float32
}

// mulTransB32 sets dst (n x k) to p w^T (p n x m, w k x m, both with
// rows stride entries apart), keeping only the entries where pattern
// (n x k) is non-zero when it is not nil and setting the others to +0.
// Each entry is vec.Dot32 of a row of p and a row of w
// (vec.DotMNStride32).
func (b *transB32) mulTransB32(dst, p, w []float32, n, m, k, stride int, pattern []float32) {
	if cap(b.rows) < n+k {
		b.rows = make([][]float32, n+k)
	}
	ps, ws := b.rows[:n], b.rows[n:n+k]
	for i := range ps {
		ps[i] = p[i*stride : i*stride+m]
	}
	for j := range ws {
		ws[j] = w[j*stride : j*stride+m]
	}
	vec.DotMNStride32(dst, k, ps, ws, pattern, k)
}

// denseToF32 returns the rows of m, rounded to float32, in dst.
func denseToF32(dst []float32, m *mat.Dense) []float32 {
	r, c := m.Dims()
	dst = grow(dst, r*c)
	raw := m.RawMatrix()
	for i := 0; i < r; i++ {
		vec.To32(dst[i*c:(i+1)*c], raw.Data[i*raw.Stride:i*raw.Stride+c])
	}
	return dst
}

// denseFromF32 sets m (r x c) to the r rows of c entries of x that
// start stride entries apart.
func denseFromF32(m *mat.Dense, x []float32, stride int) {
	r, c := m.Dims()
	raw := m.RawMatrix()
	for i := 0; i < r; i++ {
		vec.From32(raw.Data[i*raw.Stride:i*raw.Stride+c], x[i*stride:i*stride+c])
	}
}

// blocked32 is a product's terms kept in blocks of the source rows, as
// terms.sumCompressed sums them: block g's terms of every row (in each
// row's order), then block g+1's, so that a block's strip of the source
// stays in the first-level cache while every row reads it. The float32
// layers keep their sparse input's terms so for the whole run.
type blocked32 struct {
	t     []vec.Term32
	n     [][]int // per block, the count of every row
	count []int   // per row, its terms in all blocks
}

// build sets b to the compressed rows (ptr, idx, val) of rows rows as
// terms on a matrix of stride columns with srcRows rows: row r sums
// val[k] times row idx[k] for its entries k in order. When idx does not
// increase within every row, or rows have few terms, it keeps one block.
func (b *blocked32) build(rows, srcRows int, ptr, idx []int, val []float64, stride int) {
	total := ptr[rows] - ptr[0]
	b.count = make([]int, rows)
	all := make([]int, rows)
	for r := range rows {
		b.count[r] = ptr[r+1] - ptr[r]
		all[r] = r
	}
	nb, shift := 1, 62
	if rows > 0 && increasing(ptr, idx, rows) {
		shift = blockShiftFor(total, rows, srcRows)
		nb = (srcRows + 1<<shift - 1) >> shift
	}
	ends := make([]int, nb*rows)
	blockEnds(ends, all, ptr, idx, shift, nb)
	b.n = make([][]int, nb)
	b.t = make([]vec.Term32, 0, total)
	for g := range nb {
		b.n[g] = make([]int, rows)
		for r := range rows {
			lo := ptr[r]
			if g > 0 {
				lo = ends[(g-1)*rows+r]
			}
			for k := lo; k < ends[g*rows+r]; k++ {
				b.t = append(b.t, vec.Term32{Off: off32(idx[k] * stride), A: float32(val[k])})
			}
			b.n[g][r] = ends[g*rows+r] - lo
		}
	}
}

// sum sets dst (one row of cols per row of b, rows stride entries
// apart) to the sums of b's terms on src, block after block.
func (b *blocked32) sum(dst []float32, stride, cols int, src []float32) {
	t := b.t
	for g, n := range b.n {
		m := 0
		for _, c := range n {
			m += c
		}
		vec.RowSums32(dst, stride, cols, src, t[:m], n, g == 0)
		t = t[m:]
	}
}
