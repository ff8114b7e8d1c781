//go:build amd64 && !purego

package vec

import "sync"

// panels holds the strips of ys that dotMNStride packs.
var panels = sync.Pool{New: func() any { return new([]float64) }}

// strideRows is the number of xs whose dot products dotMNStride computes
// with one strip after the other: 64 rows of 256 elements (128 KiB) stay
// in the second-level cache while a strip (16 columns of 256, 32 KiB)
// stays in the first.
const strideRows = 64

// keptShare is the share of non-zero entries of a pattern from which
// dotMNStride computes every entry (zeroing the others) rather than the
// kept ones alone, each a vec.DotN of the row with the kept ys: at AVX-512
// a strip computes an entry about four times as fast as DotN a kept one
// (m = 256), at AVX2 about 1.6 times (BenchmarkMulTransB). For m below
// keptMinLen DotN's cost per dot product dominates and every entry is
// computed.
var keptShare = [...]float64{AVX2: 0.6, AVX512: 0.25}

const keptMinLen = 64

func dotMNStride(dst []float64, stride int, xs, ys [][]float64, pattern []float64, patStride int, seq bool) {
	if !seq && pattern != nil && level >= AVX2 && len(xs[0]) >= keptMinLen && share(pattern, patStride, len(xs), len(ys)) < keptShare[level] {
		dotMNKept(dst, stride, xs, ys, pattern, patStride)
		return
	}
	w := 0 // columns of a strip
	switch level {
	case AVX512:
		w = 16
	case AVX2:
		w = 8
	}
	m, k := len(xs[0]), len(ys)
	j1 := 0
	if w > 0 && k >= w {
		j1 = k / w * w
		p := panels.Get().(*[]float64)
		defer panels.Put(p)
		if cap(*p) < m*j1 {
			*p = make([]float64, m*j1)
		}
		// Strip s holds ys[s*w : (s+1)*w] transposed, m rows of w: the
		// rows of a strip are together (at ys' length apart they would
		// fall in few sets of the first-level cache and evict each other).
		packed := (*p)[:m*j1]
		for j, y := range ys[:j1] {
			s, c := j/w, j%w
			strip := packed[s*m*w:]
			for t, v := range y {
				strip[t*w+c] = v
			}
		}
		var p0, p1 *float64
		for a0 := 0; a0 < len(xs); a0 += strideRows {
			a1 := min(a0+strideRows, len(xs))
			for j0 := 0; j0 < j1; j0 += w {
				strip := &packed[j0*m]
				if w == 8 {
					for a := a0; a < a1; a++ {
						if pattern != nil {
							p0 = &pattern[a*patStride+j0]
						}
						dotCols1x8AVX2(&dst[a*stride+j0], &xs[a][0], strip, p0, m, w)
					}
					continue
				}
				for a := a0; a < a1; a += 2 {
					b := min(a+1, a1-1) // an odd last row twice
					if pattern != nil {
						p0, p1 = &pattern[a*patStride+j0], &pattern[b*patStride+j0]
					}
					if seq {
						dotColsSeq2x16AVX512(&dst[a*stride+j0], &dst[b*stride+j0], &xs[a][0], &xs[b][0], strip, p0, p1, m, w)
						continue
					}
					dotCols2x16AVX512(&dst[a*stride+j0], &dst[b*stride+j0], &xs[a][0], &xs[b][0], strip, p0, p1, m, w)
				}
			}
		}
	}
	if j1 < k && seq {
		seqTail(dst, stride, xs, ys, pattern, patStride, j1)
		return
	}
	if j1 < k {
		dotMNStrideGo(dst, stride, xs, ys, pattern, patStride, j1, k, dot)
	}
}

// seqTail is SeqDotMNStride for the columns from j1 on (fewer than a
// strip): row sums of the tail of ys transposed, with the terms xs[a][t]
// (vec.RowSums' kernel, whose order and operand order are the strips').
func seqTail(dst []float64, stride int, xs, ys [][]float64, pattern []float64, patStride, j1 int) {
	m, r := len(xs[0]), len(ys)-j1
	p := panels.Get().(*[]float64)
	defer panels.Put(p)
	if cap(*p) < m*r {
		*p = make([]float64, m*r)
	}
	yt := (*p)[:m*r]
	for c, y := range ys[j1:] {
		for t, v := range y {
			yt[t*r+c] = v
		}
	}
	var short [16]Term // the terms of a row; mulTransB's have fewer than 16
	terms := short[:0]
	if m > len(short) {
		terms = make([]Term, m)
	}
	terms = terms[:m]
	n := []int{m}
	for a, x := range xs {
		for t, v := range x {
			terms[t] = Term{Off: t * r, A: v}
		}
		row := dst[a*stride+j1 : a*stride+j1+r]
		rowSums(row, r, r, yt, terms, n, true)
		if pattern != nil {
			for c, p := range pattern[a*patStride+j1 : a*patStride+j1+r] {
				if p == 0 {
					row[c] = 0
				}
			}
		}
	}
}

// share returns the share of non-zero entries of the rows x k pattern,
// judged on at most 32 rows spread over it.
func share[T float32 | float64](pattern []T, stride, rows, k int) float64 {
	step := max(1, rows/32)
	kept, all := 0, 0
	for i := 0; i < rows; i += step {
		for _, v := range pattern[i*stride : i*stride+k] {
			if v != 0 {
				kept++
			}
		}
		all += k
	}
	return float64(kept) / float64(all)
}

// keptBufs holds dotMNKept's buffers.
type keptBufs struct {
	ys   [][]float64
	kept []Term
	out  []float64
}

var kepts = sync.Pool{New: func() any { return new(keptBufs) }}

// dotMNKept is dotMNStride computing the kept entries alone, row by row:
// DotN of the row with the ys the pattern keeps.
func dotMNKept(dst []float64, stride int, xs, ys [][]float64, pattern []float64, patStride int) {
	k := len(ys)
	b := kepts.Get().(*keptBufs)
	defer kepts.Put(b)
	if cap(b.ys) < k {
		b.ys, b.kept, b.out = make([][]float64, k), make([]Term, k+NonzeroTermsSlack), make([]float64, k)
	}
	sel, kept, out := b.ys[:k], b.kept[:k+NonzeroTermsSlack], b.out[:k]
	for a, x := range xs {
		n := nonzeroTerms(kept, pattern[a*patStride:a*patStride+k], 1) // Off: the column
		for q, t := range kept[:n] {
			sel[q] = ys[t.Off]
		}
		dotN(out[:n], x, sel[:n])
		row := dst[a*stride : a*stride+k]
		clear(row)
		for q, t := range kept[:n] {
			row[t.Off] = out[q]
		}
	}
	clear(sel) // no references kept in the pool
}

// dotCols2x16AVX512 sets d0[j] = Dot(x0, y_j) and d1[j] = Dot(x1, y_j)
// for the 16 columns y_j of the m x k matrix at yt (m >= 1), or +0 where
// p0[j] (p1[j]) is zero unless p0 is nil; d0 may be d1 and x0 may be x1.
//
//go:noescape
func dotCols2x16AVX512(d0, d1, x0, x1, yt, p0, p1 *float64, m, k int)

// dotColsSeq2x16AVX512 is dotCols2x16AVX512 with every lane summed in
// sequence from +0.
//
//go:noescape
func dotColsSeq2x16AVX512(d0, d1, x0, x1, yt, p0, p1 *float64, m, k int)

// dotCols1x8AVX2 sets d0[j] = Dot(x0, y_j) for the 8 columns y_j of the
// m x k matrix at yt (m >= 1), or +0 where p0[j] is zero unless p0 is
// nil.
//
//go:noescape
func dotCols1x8AVX2(d0, x0, yt, p0 *float64, m, k int)

// panels32 holds the strips and padded rows that dotMNStride32 packs.
var panels32 = sync.Pool{New: func() any { return new([]float32) }}

// keptShare32 is keptShare for dotMNStride32 at AVX-512, where a strip
// takes one row at a time (its sixteen partial sums a column fill the
// registers) and DotN32 computes four kept entries at once:
// BenchmarkDotMNStride32 has them cross at about 0.4.
var keptShare32 = 0.4

func dotMNStride32(dst []float32, stride int, xs, ys [][]float32, pattern []float32, patStride int) {
	if level == AVX2 {
		// No strips at AVX2 (a lane's sixteen partial sums would take all
		// the registers for 8 columns): DotN32's four at a time, on the
		// kept entries alone.
		if pattern != nil {
			dotMNKept32(dst, stride, xs, ys, pattern, patStride)
			return
		}
		for a, x := range xs {
			dotN32(dst[a*stride:a*stride+len(ys)], x, ys)
		}
		return
	}
	if pattern != nil && level == AVX512 && len(xs[0]) >= keptMinLen && share(pattern, patStride, len(xs), len(ys)) < keptShare32 {
		dotMNKept32(dst, stride, xs, ys, pattern, patStride)
		return
	}
	const w = 16
	m, k := len(xs[0]), len(ys)
	j1 := 0
	if level == AVX512 && k >= w && m > 0 {
		j1 = k / w * w
		m16 := (m + w - 1) / w * w
		pad := m16 != m
		need := m16 * j1
		if pad {
			need += m16 // one padded row of xs at a time
		}
		p := panels32.Get().(*[]float32)
		defer panels32.Put(p)
		if cap(*p) < need {
			*p = make([]float32, need)
		}
		packed := (*p)[:m16*j1]
		// Strip s holds ys[s*16 : (s+1)*16] transposed, m16 rows of 16,
		// the rows past m zero.
		for j, y := range ys[:j1] {
			s, c := j/w, j%w
			strip := packed[s*m16*w:]
			for t, v := range y {
				strip[t*w+c] = v
			}
			for t := m; t < m16; t++ {
				strip[t*w+c] = 0
			}
		}
		var xp []float32
		if pad {
			xp = (*p)[m16*j1 : m16*j1+m16]
			clear(xp[m:])
		}
		var p0 *float32
		for a0 := 0; a0 < len(xs); a0 += strideRows {
			a1 := min(a0+strideRows, len(xs))
			for j0 := 0; j0 < j1; j0 += w {
				strip := &packed[j0*m16]
				for a := a0; a < a1; a++ {
					x := &xs[a][0]
					if pad {
						copy(xp, xs[a])
						x = &xp[0]
					}
					if pattern != nil {
						p0 = &pattern[a*patStride+j0]
					}
					dotCols1x16F32AVX512(&dst[a*stride+j0], x, strip, p0, m16)
				}
			}
		}
	}
	if j1 < k {
		dotMNStrideGo(dst, stride, xs, ys, pattern, patStride, j1, k, dot32)
	}
}

// keptBufs32 holds dotMNKept32's buffers.
type keptBufs32 struct {
	ys   [][]float32
	kept []Term32
	out  []float32
}

var kepts32 = sync.Pool{New: func() any { return new(keptBufs32) }}

// dotMNKept32 is dotMNKept in float32 (DotN32 a row).
func dotMNKept32(dst []float32, stride int, xs, ys [][]float32, pattern []float32, patStride int) {
	k := len(ys)
	b := kepts32.Get().(*keptBufs32)
	defer kepts32.Put(b)
	if cap(b.ys) < k {
		b.ys, b.kept, b.out = make([][]float32, k), make([]Term32, k+NonzeroTermsSlack), make([]float32, k)
	}
	sel, kept, out := b.ys[:k], b.kept[:k+NonzeroTermsSlack], b.out[:k]
	for a, x := range xs {
		n := nonzeroTerms32(kept, pattern[a*patStride:a*patStride+k], 1) // Off: the column
		for q, t := range kept[:n] {
			sel[q] = ys[t.Off]
		}
		dotN32(out[:n], x, sel[:n])
		row := dst[a*stride : a*stride+k]
		clear(row)
		for q, t := range kept[:n] {
			row[t.Off] = out[q]
		}
	}
	clear(sel) // no references kept in the pool
}

// dotCols1x16F32AVX512 sets d0[j] = Dot32(x0, y_j) for the 16 columns y_j
// of the m x 16 matrix at yt (m a positive multiple of 16, x0 padded
// with zeros to m), or +0 where p0[j] is zero unless p0 is nil.
//
//go:noescape
func dotCols1x16F32AVX512(d0, x0, yt, p0 *float32, m int)
