package gnn

import (
	"slices"
	"sync"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/blas/blas64"
)

// termRows is the number of rows of a product whose terms are gathered
// before one call of vec.RowSums; it bounds the terms' memory (termRows
// times the inner dimension) while each strip of the right-hand factor
// is still read once for many rows.
const termRows = 128

// terms holds the scaled rows (vec.Term) that a block of rows of a
// product sums, row after row: row r has n[r] terms.
type terms struct {
	t    []vec.Term
	n    []int
	pos  []int       // scratch indices: kept columns, column counts, block ends and cursors
	wt   []float64   // a transposed factor (transpose)
	res  []float64   // results (out)
	ys   [][]float64 // rows of the factors (factorRows)
	off  []int       // offsets of destination rows (offsets)
	ys2  [][]float64 // kept rows of a factor (kept)
	idx  []int       // their indices (kept)
	cols []int       // the non-empty columns (csrColumns)
	rows []int       // a range of rows (rowRange)
}

// rowRange returns the rows i0 .. i1-1 in b's memory.
func (b *terms) rowRange(i0, i1 int) []int {
	if cap(b.rows) < i1-i0 {
		b.rows = make([]int, i1-i0)
	}
	r := b.rows[:i1-i0]
	for q := range r {
		r[q] = i0 + q
	}
	return r
}

// csrColumns sets the terms of the rows of c^T that have any: b.cols
// lists the non-empty columns j of c in order, and the row for b.cols[q]
// has the entries of column j, in the order of their rows and, within a
// row, of the entries (a stable counting sort), naming the source row at
// i*stride.
func (b *terms) csrColumns(c *CSR, stride int) {
	if cap(b.pos) < c.Cols+1 {
		b.pos = make([]int, c.Cols+1)
	}
	pos := b.pos[:c.Cols+1]
	clear(pos)
	for _, j := range c.Indices {
		pos[j+1]++
	}
	b.cols = b.cols[:0]
	for j := 0; j < c.Cols; j++ {
		if pos[j+1] > 0 {
			b.cols = append(b.cols, j)
		}
		pos[j+1] += pos[j]
	}
	b.reset(len(b.cols), 0)
	b.n = b.n[:len(b.cols)]
	for q, j := range b.cols {
		b.n[q] = pos[j+1] - pos[j]
	}
	if cap(b.t) < len(c.Indices) {
		b.t = make([]vec.Term, len(c.Indices))
	}
	t := b.t[:len(c.Indices)]
	for i := 0; i < c.Rows; i++ {
		for k := c.Indptr[i]; k < c.Indptr[i+1]; k++ {
			j := c.Indices[k]
			t[pos[j]] = vec.Term{Off: i * stride, A: c.Values[k]}
			pos[j]++
		}
	}
	b.t = t
}

// offsets returns n ints of b's memory for the offsets of rows.
func (b *terms) offsets(n int) []int {
	if cap(b.off) < n {
		b.off = make([]int, n)
	}
	return b.off[:n]
}

// kept returns n slices, n ints and n floats of b's memory, for the
// rows of a factor a product keeps, their indices and their results.
func (b *terms) kept(n int) (ys [][]float64, idx []int, res []float64) {
	if cap(b.ys2) < n {
		b.ys2 = make([][]float64, n)
	}
	if cap(b.idx) < n {
		b.idx = make([]int, n)
	}
	return b.ys2[:n], b.idx[:n], b.out(n)
}

// slotColumns sets the terms of the rows a = 0 .. a1-a0-1 of a transposed
// product: row a gets h_{i,a0+a} for the rows i of x listed in rows, in
// their order, where that entry is non-zero, naming the source row at
// i*stride+off.
func (b *terms) slotColumns(x blas64.General, rows []int, a0, a1, stride, off int) {
	k := a1 - a0
	b.reset(k, len(rows))
	for _, i := range rows {
		for a, v := range x.Data[i*x.Stride+a0 : i*x.Stride+a1] {
			b.n[a] += b2i(v != 0)
		}
	}
	if cap(b.pos) < k {
		b.pos = make([]int, k)
	}
	pos := b.pos[:k]
	total := 0
	for a, c := range b.n {
		pos[a] = total
		total += c
	}
	t := b.t[:total+1]
	for _, i := range rows {
		o := i*stride + off
		for a, v := range x.Data[i*x.Stride+a0 : i*x.Stride+a1] {
			q := total // a zero entry is written here and dropped
			if v != 0 {
				q = pos[a]
			}
			t[q] = vec.Term{Off: o, A: v}
			pos[a] += b2i(v != 0)
		}
	}
	b.t = t[:total]
}

// transpose returns w^T (w.Cols x w.Rows, stride w.Rows) in b's memory.
func (b *terms) transpose(w blas64.General) []float64 {
	b.wt = grow(b.wt, w.Rows*w.Cols)
	for i := 0; i < w.Rows; i++ {
		for j, v := range w.Data[i*w.Stride : i*w.Stride+w.Cols] {
			b.wt[j*w.Rows+i] = v
		}
	}
	return b.wt
}

// out returns n elements of b's memory for results.
func (b *terms) out(n int) []float64 {
	b.res = grow(b.res, n)
	return b.res
}

// termFree holds the terms buffers not in use. Unlike a sync.Pool it
// keeps them across garbage collections, so that a step allocates none:
// it holds as many as products ran at once (about two per worker), each
// as large as the largest product it served needed (a few MiB at most).
var termFree struct {
	sync.Mutex
	list []*terms
}

// getTerms returns a terms buffer for one product; putTerms gives it back.
func getTerms() *terms {
	termFree.Lock()
	defer termFree.Unlock()
	if n := len(termFree.list); n > 0 {
		b := termFree.list[n-1]
		termFree.list = termFree.list[:n-1]
		return b
	}
	return new(terms)
}

func putTerms(b *terms) {
	clear(b.ys[:cap(b.ys)]) // drop the references to other arrays
	clear(b.ys2[:cap(b.ys2)])
	termFree.Lock()
	termFree.list = append(termFree.list, b)
	termFree.Unlock()
}

// reset empties b for rows rows, with room for at most per terms each.
func (b *terms) reset(rows, per int) {
	if cap(b.n) < rows {
		b.n = make([]int, rows)
	}
	b.n = b.n[:rows]
	clear(b.n)
	// +1: byColumns' spill; the slack lets nonzero write whole registers.
	if need := rows*per + 1 + vec.NonzeroTermsSlack; cap(b.t) < need {
		b.t = make([]vec.Term, need)
	}
	b.t = b.t[:0]
}

// nonzero appends the non-zero entries of x (NaN included) as the terms
// of row r, in column order, entry j naming the source row at j*stride
// (vec.NonzeroTerms, which needs the slack that reset leaves).
func (b *terms) nonzero(r int, x []float64, stride int) {
	k := vec.NonzeroTerms(b.t[len(b.t):cap(b.t)], x, stride)
	b.t = b.t[:len(b.t)+k]
	b.n[r] = k
}

// byColumns sets the terms of the rows of the transposed block x^T: x is
// rows x cols (stride xStride), its column j gives destination row j the
// terms x_ij for the non-zero x_ij in the order of i, entry i naming the
// source row at (off+i)*stride.
func (b *terms) byColumns(x []float64, rows, cols, xStride, off, stride int) {
	b.reset(cols, rows)
	if rows == 0 {
		return
	}
	// Column by column: the terms of destination row j are written in
	// one sequential run after those of row j-1, so one pass needs no
	// counts first. Reading x by columns touches one cache line a row,
	// and the next seven columns find those lines in the first-level
	// cache (a block of transBlock rows is at most 256 lines).
	t := b.t[:rows*cols+1] // room for every entry, and one spill
	_ = x[(rows-1)*xStride+cols-1]
	k := 0
	for j := 0; j < cols; j++ {
		k0 := k
		o := off * stride
		for q := j; q < rows*xStride; q += xStride {
			v := x[q]
			t[k] = vec.Term{Off: o, A: v}
			k += b2i(v != 0)
			o += stride
		}
		b.n[j] = k - k0
	}
	b.t = t[:k]
}

// b2i returns 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Source blocking. A product whose rows have many terms reads a long
// strip of the other factor for every row: the first layer's X (W . M)
// on the Amazon sets sums about 270 of W's 767 rows per node, a strip of
// 767 x 32 columns (196 KiB) that does not fit the first-level cache. So
// sumCompressed splits the rows of the other factor into blocks and sums
// each block's terms for all rows before the next block's: the strip of
// a block (128 rows x 32 columns, 32 KiB) stays in the first-level
// cache. Every element still gets its terms in their order, the sum
// carried from block to block in dst (stored and loaded, which does not
// round), so the result has the same bits.
const (
	// blockShift sets the number of rows of the other factor in a
	// block: 1 << blockShift = 128 at least.
	blockShift = 7
	// minBlockTerms is the fewest terms a row should have per block on
	// average: below it, storing and loading the sums between blocks
	// costs more than the cache saves (Cora's features have about 18 of
	// 1433 per node, and are not blocked).
	minBlockTerms = 32
)

// blockShiftFor returns the shift of sumCompressed's blocks for total
// terms over rows rows and srcRows source rows: blocks of 1 << shift rows,
// 128 at least, as small as leaves minBlockTerms terms a row per block.
func blockShiftFor(total, rows, srcRows int) int {
	shift := blockShift
	for total < rows*minBlockTerms*((srcRows+1<<shift-1)>>shift) && 1<<shift < srcRows {
		shift++
	}
	return shift
}

// increasing reports whether idx increases within each of the rows
// (entries ptr[r] .. ptr[r+1]-1 of row r).
func increasing(ptr, idx []int, rows int) bool {
	for r := range rows {
		for k := ptr[r] + 1; k < ptr[r+1]; k++ {
			if idx[k] <= idx[k-1] {
				return false
			}
		}
	}
	return true
}

// blockEnds splits the entries of the rows (entries ptr[r] .. ptr[r+1]-1
// of row r, idx increasing within a row) into nb blocks of 1 << shift
// source rows: ends[g*len(rows)+q] is where the entries of rows[q] in
// blocks 0 .. g end, so block g's are those from the previous block's end
// (ptr[rows[q]] for block 0).
func blockEnds(ends, rows, ptr, idx []int, shift, nb int) {
	nr := len(rows)
	for q, r := range rows {
		k, end := ptr[r], ptr[r+1]
		for g := range nb {
			j, _ := slices.BinarySearch(idx[k:end], (g+1)<<shift)
			k += j
			ends[g*nr+q] = k
		}
	}
}

// A blockPlan is how sumCompressed splits the terms of one call into
// blocks of the source's rows (blockShiftFor): nb blocks; n[g*nr+q]
// (nr rows) is the count of row q's entries in block g, and block g's
// terms start at start[g] of all the rows' (start[nb] is their total).
// It depends only on the rows' entries' pattern (ptr, idx) and srcRows,
// so a caller that sums the same pattern again keeps it (GCN.plans).
type blockPlan struct {
	nb       int
	n, start []int
}

// make sets p for the rows (entries ptr[r] .. ptr[r+1]-1 of r = rows[q],
// idx increasing within a row) on a source of srcRows rows; ends is
// scratch memory (blockEnds).
func (p *blockPlan) make(ptr, idx, rows []int, srcRows int, ends *[]int) {
	nr := len(rows)
	total := 0
	for _, r := range rows {
		total += ptr[r+1] - ptr[r]
	}
	shift := blockShiftFor(total, nr, srcRows)
	p.nb = (srcRows + 1<<shift - 1) >> shift
	e := grow(*ends, p.nb*nr)
	*ends = e
	blockEnds(e, rows, ptr, idx, shift, p.nb)
	p.n = grow(p.n, p.nb*nr)
	p.start = grow(p.start, p.nb+1)
	p.start[0] = 0
	for g := range p.nb {
		m := 0
		for q, r := range rows {
			lo := ptr[r]
			if g > 0 {
				lo = e[(g-1)*nr+q]
			}
			p.n[g*nr+q] = e[g*nr+q] - lo
			m += e[g*nr+q] - lo
		}
		p.start[g+1] = p.start[g] + m
	}
}

// sumCompressed sets row q of dst (cols elements from dst[q*dstStride]),
// for q = 0 .. len(rows)-1, to the sum from +0 of val[k] times row idx[k]
// of src (from src[idx[k]*srcStride]) over the entries k = ptr[r] ..
// ptr[r+1]-1 of r = rows[q], in that order, as vec.RowSums sums them.
// Within a row, idx must increase; srcRows bounds it. plan is the
// blocks' plan for these rows (blockPlan.make).
//
// It gathers the terms of every block in one pass over the rows'
// entries, each row's in order, into the blocks' places (a stream read
// and nb streams written, where gathering a block at a time read a short
// run of every row's entries), then sums block after block.
func (b *terms) sumCompressed(dst []float64, dstStride, cols int, src []float64, srcStride, srcRows int, ptr, idx []int, val []float64, rows []int, plan *blockPlan) {
	b.sumBlocks(dst, dstStride, cols, src, srcStride, ptr, idx, val, rows, plan, false)
}

// addCompressed is sumCompressed adding the sums to row q of dst instead
// of setting it: each element's terms are added to it in order, as
// vec.RowSums adds them (zero unset), so the bits are those of the same
// terms summed onto dst row by row.
func (b *terms) addCompressed(dst []float64, dstStride, cols int, src []float64, srcStride int, ptr, idx []int, val []float64, rows []int, plan *blockPlan) {
	b.sumBlocks(dst, dstStride, cols, src, srcStride, ptr, idx, val, rows, plan, true)
}

// sumBlocks is sumCompressed (add unset) and addCompressed (add set).
func (b *terms) sumBlocks(dst []float64, dstStride, cols int, src []float64, srcStride int, ptr, idx []int, val []float64, rows []int, plan *blockPlan, add bool) {
	nr, nb := len(rows), plan.nb
	total := plan.start[nb]
	if cap(b.t) < total {
		b.t = make([]vec.Term, total)
	}
	t := b.t[:total]
	at := grow(b.pos, nb)
	b.pos = at
	copy(at, plan.start)
	for q, r := range rows {
		k := ptr[r]
		for g, p := range at {
			c := plan.n[g*nr+q]
			gatherTerms(t[p:p+c], idx[k:k+c], val[k:k+c], srcStride)
			at[g] = p + c
			k += c
		}
	}
	for g := range nb {
		vec.RowSums(dst, dstStride, cols, src, t[plan.start[g]:plan.start[g+1]], plan.n[g*nr:(g+1)*nr], g == 0 && !add)
	}
}

// gatherTerms sets t[k] to the term val[k] times the source row idx[k]
// (at idx[k]*stride).
func gatherTerms(t []vec.Term, idx []int, val []float64, stride int) {
	val = val[:len(idx)]
	t = t[:len(idx)]
	for k, j := range idx {
		t[k] = vec.Term{Off: j * stride, A: val[k]}
	}
}
