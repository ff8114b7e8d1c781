//go:build amd64 && !purego

package vec

import "sync"

// denseSums is DenseSums (checked) at the level's kernels: at AVX2
// denseSums2 (at most avx2StripCols columns), at AVX-512 denseSumsAVX512
// for groups of four rows; the rest is denseSumsGo (densesums.go).
func denseSums(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool) {
	if level == AVX2 && terms > 0 && cols <= avx2StripCols {
		denseSums2(dst, stride, cols, src, srcStride, a, rs, ts, rows, terms, zero)
		return
	}
	if level < AVX512 || cols <= 8 {
		denseSumsGo(dst, stride, cols, src, srcStride, a, rs, ts, rows, terms, zero)
		return
	}
	if g := rows &^ 3; g > 0 {
		denseSumsAVX512(dst, stride, cols, src, srcStride, a, rs, ts, g, terms, zero)
	}
	if g := rows &^ 3; g < rows {
		denseSumsGo(dst[g*stride:], stride, cols, src, srcStride, a[g*rs:], rs, ts, rows-g, terms, zero)
	}
}

// denseSums2 is DenseSums (checked, terms > 0, cols at most
// avx2StripCols) at AVX2, in tiles of at most denseTileRows rows and
// denseTileTerms terms (denseTile), the terms' tiles in order, so that a
// tile of the coefficients and the tile of the source its strips read
// stay in the second-level cache (FED-PUB's proxy graph: 500 rows of
// 3703 coefficients, summed from the first to the last term in each
// strip, read all the coefficients again for every strip). Each element
// gets its terms in the same order, a tile after the first adding to
// what the one before stored. A source whose rows are a multiple of 512
// bytes apart is read from a copy with rows a line further apart (rows
// 2 KiB apart put a strip's lines in two of the 64 sets of the
// first-level cache), when four groups of rows or more read it.
func denseSums2(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool) {
	if srcStride%64 == 0 && rows >= 16 && cols >= 8 {
		buf := denseBufs.Get().(*denseBuf)
		defer denseBufs.Put(buf)
		ps := cols + 8
		if cap(buf.src) < terms*ps {
			buf.src = make([]float64, terms*ps)
		}
		buf.src = buf.src[:terms*ps]
		for t := range terms {
			copy(buf.src[t*ps:t*ps+cols], src[t*srcStride:t*srcStride+cols])
		}
		src, srcStride = buf.src, ps
	}
	for k0 := 0; k0 < terms; k0 += denseTileTerms {
		k := min(denseTileTerms, terms-k0)
		for r0 := 0; r0 < rows; r0 += denseTileRows {
			r := min(denseTileRows, rows-r0)
			denseTile(dst[r0*stride:], stride, cols, src[k0*srcStride:], srcStride, a[r0*rs+k0*ts:], rs, ts, r, k, zero && k0 == 0)
		}
	}
}

// The tiles of denseSums2. On FED-PUB's proxy graph (500 x 3703
// coefficients, a 3703 x 256 source) tiles of 128 x 128 summed 9.6-11 G
// multiply-adds a second against 3.7-4.3 untiled; 64 to 128 rows and 128
// to 1024 terms were all within 9.4-11.
const (
	denseTileRows  = 128 // a multiple of four
	denseTileTerms = 128
)

// denseTile is denseSums2 for one tile: groups of four rows and strips
// of eight columns by denseSumsAVX2, the last rows and columns by
// denseSumsByTerms.
func denseTile(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool) {
	g, c := rows&^3, cols&^7
	if g == 0 || c == 0 {
		denseSumsByTerms(dst, stride, cols, src, srcStride, a, rs, ts, rows, terms, zero)
		return
	}
	denseSumsAVX2(dst, stride, c, src, srcStride, a, rs, ts, g, terms, zero)
	if c < cols { // the last 1 to 7 columns of those rows
		denseSumsByTerms(dst[c:], stride, cols-c, src[c:], srcStride, a, rs, ts, g, terms, zero)
	}
	if g < rows {
		denseSumsByTerms(dst[g*stride:], stride, cols, src, srcStride, a[g*rs:], rs, ts, rows-g, terms, zero)
	}
}

// denseSumsByTerms is DenseSums (checked, terms > 0, cols at most
// avx2StripCols) at AVX2 through rowSumsAVX2: the terms of a chunk of
// rows written out, every coefficient with its source row (zeros too,
// which gives DenseSums' bits), at most denseChunkTerms of them a call.
func denseSumsByTerms(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool) {
	chunk := max(1, min(rows, denseChunkTerms/terms))
	buf := denseBufs.Get().(*denseBuf)
	defer denseBufs.Put(buf)
	if cap(buf.t) < chunk*terms {
		buf.t = make([]Term, chunk*terms)
	}
	if cap(buf.n) < chunk {
		buf.n = make([]int, chunk)
	}
	for r0 := 0; r0 < rows; r0 += chunk {
		m := min(chunk, rows-r0)
		t, n := buf.t[:m*terms], buf.n[:m]
		for r := range m {
			ar := a[(r0+r)*rs:]
			row := t[r*terms : (r+1)*terms]
			for q := range row {
				row[q] = Term{Off: q * srcStride, A: ar[q*ts]}
			}
			n[r] = terms
		}
		rowSumsAVX2(dst[r0*stride:], stride, cols, src, t, n, zero)
	}
}

// denseChunkTerms is the most terms denseSumsByTerms writes out for one
// call of the kernel.
const denseChunkTerms = 1 << 13

// denseBuf is denseSumsByTerms' scratch, kept in denseBufs.
type denseBuf struct {
	t   []Term
	n   []int
	src []float64 // denseSums' padded copy of the source
}

var denseBufs = sync.Pool{New: func() any { return new(denseBuf) }}

// denseSumsAVX512 is denseSumsGo for checked arguments and rows a
// multiple of four: it walks the columns in strips of 32 and, in each
// strip, the rows four at a time, their sums in sixteen registers, each
// source row's strip loaded once for the four.
//
//go:noescape
func denseSumsAVX512(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool)

// denseSumsAVX2 is denseSumsGo for checked arguments, rows a multiple
// of four and cols of eight, terms > 0: it walks the columns in strips of
// 8 and, in each strip, the rows four at a time, their sums in eight
// registers, each source row's strip loaded once for the four.
//
//go:noescape
func denseSumsAVX2(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool)
