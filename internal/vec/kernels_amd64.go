//go:build amd64 && !purego

package vec

import "golang.org/x/sys/cpu"

// detect returns the best level of this CPU. cpu.X86 reports AVX2 and
// AVX-512 only when the operating system saves their registers.
func detect() Level {
	switch {
	case cpu.X86.HasAVX512F:
		return AVX512
	case cpu.X86.HasAVX2:
		return AVX2
	}
	return Portable
}

func addScaledN(dst, a []float64, xs [][]float64, zero bool) {
	switch level {
	case AVX512:
		addScaledNAVX512(dst, a, xs, zero)
	case AVX2:
		addScaledNAVX2(dst, a, xs, zero)
	default:
		addScaledNGo(dst, a, xs, zero)
	}
}

// dot and dotN use AVX2 at the AVX-512 level too: the order of
// DotUnitary fixes four partial sums, which fill a 256-bit register.
func dot(x, y []float64) float64 {
	if level >= AVX2 {
		return dotAVX2(x, y)
	}
	return dotGo(x, y)
}

func dotN(dst, x []float64, ys [][]float64) {
	if level < AVX2 {
		dotNGo(dst, x, ys)
		return
	}
	n := len(ys) &^ 3
	dotNAVX2(dst[:n], x, ys[:n])
	for t := n; t < len(ys); t++ {
		dst[t] = dotAVX2(x, ys[t])
	}
}

func adam(theta, grad, m, v []float64, b1, c1, b2, c2, wd, step, invBC2, eps float64) {
	switch level {
	case AVX512:
		adamAVX512(theta, grad, m, v, b1, c1, b2, c2, wd, step, invBC2, eps)
	case AVX2:
		adamAVX2(theta, grad, m, v, b1, c1, b2, c2, wd, step, invBC2, eps)
	default:
		adamGo(theta, grad, m, v, b1, c1, b2, c2, wd, step, invBC2, eps)
	}
}

// addScaledNAVX512 is addScaledNGo with len(xs) >= 1 and every xs[t]
// at least as long as dst.
//
//go:noescape
func addScaledNAVX512(dst, a []float64, xs [][]float64, zero bool)

// mixBlocks is MixInPlace (checked arguments) at AVX-512, blocks of 64
// elements, and AVX2, blocks of 32, the last elements by mixRows. It
// does nothing and reports false at the portable level.
func mixBlocks(xs, w [][]float64, tmp []float64, n int) bool {
	var m int
	switch level {
	case AVX512:
		if m = n &^ 63; m > 0 {
			mixInPlaceAVX512(xs, w, tmp, m)
		}
	case AVX2:
		if m = n &^ 31; m > 0 {
			mixInPlaceAVX2(xs, w, tmp, m)
		}
	default:
		return false
	}
	if m < n {
		tails := make([][]float64, len(xs))
		for j, x := range xs {
			tails[j] = x[m:]
		}
		mixRows(tails, w, tmp)
	}
	return true
}

// mixInPlaceAVX512 is MixInPlace's kernel for the first n elements of
// every xs[j], n a multiple of 64, with len(xs) >= 1.
//
//go:noescape
func mixInPlaceAVX512(xs, w [][]float64, tmp []float64, n int)

// mixInPlaceAVX2 is mixInPlaceAVX512 at AVX2, n a multiple of 32.
//
//go:noescape
func mixInPlaceAVX2(xs, w [][]float64, tmp []float64, n int)

// addScaledNAVX2 is addScaledNAVX512 on AVX2.
//
//go:noescape
func addScaledNAVX2(dst, a []float64, xs [][]float64, zero bool)

// dotAVX2 is dotGo; len(y) >= len(x).
//
//go:noescape
func dotAVX2(x, y []float64) (sum float64)

// dotNAVX2 is dotNGo for len(ys) a multiple of 4.
//
//go:noescape
func dotNAVX2(dst, x []float64, ys [][]float64)

// adamAVX512 is adamGo with slices of equal length.
//
//go:noescape
func adamAVX512(theta, grad, m, v []float64, b1, c1, b2, c2, wd, step, invBC2, eps float64)

// adamAVX2 is adamAVX512 on AVX2.
//
//go:noescape
func adamAVX2(theta, grad, m, v []float64, b1, c1, b2, c2, wd, step, invBC2, eps float64)

func mul(dst, x, y []float64, add bool) {
	switch level {
	case AVX512:
		mulAVX512(dst, x, y, add)
	case AVX2:
		mulAVX2(dst, x, y, add)
	default:
		mulGo(dst, x, y, add)
	}
}

func mulPruned(dst, x, m []float64, thr float64) {
	switch level {
	case AVX512:
		mulPrunedAVX512(dst, x, m, thr)
	case AVX2:
		mulPrunedAVX2(dst, x, m, thr)
	default:
		mulPrunedGo(dst, x, m, thr)
	}
}

func finite(x []float64) bool {
	switch level {
	case AVX512:
		return finiteAVX512(x)
	case AVX2:
		return finiteAVX2(x)
	}
	return finiteGo(x)
}

// mulAVX512 is mulGo with x and y at least as long as dst.
//
//go:noescape
func mulAVX512(dst, x, y []float64, add bool)

// mulAVX2 is mulAVX512 on AVX2.
//
//go:noescape
func mulAVX2(dst, x, y []float64, add bool)

// mulPrunedAVX512 is mulPrunedGo with x and m at least as long as dst.
//
//go:noescape
func mulPrunedAVX512(dst, x, m []float64, thr float64)

// mulPrunedAVX2 is mulPrunedAVX512 on AVX2.
//
//go:noescape
func mulPrunedAVX2(dst, x, m []float64, thr float64)

// finiteAVX512 is finiteGo.
//
//go:noescape
func finiteAVX512(x []float64) bool

// finiteAVX2 is finiteGo.
//
//go:noescape
func finiteAVX2(x []float64) bool

// dotMN computes the dot products of four xs at a time with up to 16 ys
// at a time, so that every ys[t] is read once for four xs; see DotMN.
func dotMN(dst []float64, xs, ys [][]float64) {
	n := len(xs[0])
	if level < AVX2 || n < 4 {
		dotMNGo(dst, xs, ys)
		return
	}
	n4 := n &^ 3
	var part [16 * 16]float64
	ny := len(ys)
	for t0 := 0; t0 < ny; t0 += 16 {
		yc := ys[t0:min(t0+16, ny)]
		a := 0
		for ; a+4 <= len(xs); a += 4 {
			dotBlockAVX2(part[:], xs[a:a+4], yc, n4)
			for t, y := range yc {
				for b, x := range xs[a : a+4] {
					p := part[16*t+4*b : 16*t+4*b+4]
					s0 := p[0]
					for i := n4; i < n; i++ {
						s0 += float64(x[i] * y[i])
					}
					dst[(a+b)*ny+t0+t] = (s0 + p[2]) + (p[1] + p[3])
				}
			}
		}
		for ; a < len(xs); a++ {
			dotN(dst[a*ny+t0:a*ny+t0+len(yc)], xs[a], yc)
		}
	}
}

// dotBlockAVX2 sets part[16t+4a : 16t+4a+4] to the partial sums of Dot's
// main loop over the first n elements (a multiple of 4) of xs[a] and
// ys[t], for the four xs and every ys[t] (at most 16).
//
//go:noescape
func dotBlockAVX2(part []float64, xs, ys [][]float64, n int)

func rowSums(dst []float64, stride, cols int, src []float64, terms []Term, n []int, zero bool) {
	switch {
	case level == AVX2 && cols <= avx2StripCols:
		rowSumsAVX2(dst, stride, cols, src, terms, n, zero)
	case level < AVX512:
		rowSumsGo(dst, stride, cols, src, terms, n, zero)
	case cols <= 8:
		rowSums8AVX512(dst, stride, cols, src, terms, n, zero)
	default:
		rowSumsAVX512(dst, stride, cols, src, terms, n, zero)
	}
}

// rowSumsAVX512 is rowSumsGo for checked arguments: it walks the columns
// in strips of 32 and, in each strip, the rows four at a time, with the
// four rows' sums (four registers each) in registers while their terms
// interleave, so that the strip of the source (32 columns of every row it
// reads) stays in cache across all rows and every term is read once per
// strip for 32 columns.
//
//go:noescape
func rowSumsAVX512(dst []float64, stride, cols int, src []float64, terms []Term, n []int, zero bool)

// avx2StripCols is the widest float64 product rowSumsAVX2 takes when the
// distance between the source rows is not known (RowSums); wider ones go
// row by row (rowSumsGo). Its strips read 128 bytes of every source row
// the terms name: with rows of 2048 columns, 16 KiB apart, those pieces
// fall in a few sets of the caches and evict each other (a product into
// 2048 columns, as FedSage+'s generator's, ran 30-37 % slower in strips
// than row by row).
const avx2StripCols = 256

// rowSumsStride is rowSums, with the strips at AVX2 for products of any
// width whose source rows are not a multiple of 1 KiB (128 float64s)
// apart.
func rowSumsStride(dst []float64, stride, cols int, src []float64, srcStride int, terms []Term, n []int, zero bool) {
	if level == AVX2 && cols > avx2StripCols && srcStride%128 != 0 {
		rowSumsAVX2(dst, stride, cols, src, terms, n, zero)
		return
	}
	rowSums(dst, stride, cols, src, terms, n, zero)
}

// rowSumsAVX2 is rowSumsGo for checked arguments at AVX2: strips of 16
// columns, three rows at a time; then strips of 8, four rows at a time,
// the last 1 to 7 columns under a mask.
//
//go:noescape
func rowSumsAVX2(dst []float64, stride, cols int, src []float64, terms []Term, n []int, zero bool)

// rowSums8AVX512 is rowSumsAVX512 with strips of 8 columns (one register
// a row), for at most 8 columns.
//
//go:noescape
func rowSums8AVX512(dst []float64, stride, cols int, src []float64, terms []Term, n []int, zero bool)

func rowSumsAt(dst []float64, off []int, cols int, src []float64, terms []Term, n []int, zero bool) {
	switch {
	case level == AVX2 && cols <= avx2StripCols:
		rowSumsAtRuns(dst, off, cols, src, terms, n, zero)
	case level < AVX512:
		rowSumsAtGo(dst, off, cols, src, terms, n, zero)
	default:
		rowSumsAtAVX512(dst, off, cols, src, terms, n, zero)
	}
}

// rowSumsAtRuns is rowSumsAt at AVX2: each run of rows whose offsets
// step by one distance of at least cols (the columns of a graph's
// adjacency that have entries, mostly consecutive) goes to rowSumsAVX2
// as rows of that stride, and every other row alone.
func rowSumsAtRuns(dst []float64, off []int, cols int, src []float64, terms []Term, n []int, zero bool) {
	for r0 := 0; r0 < len(off); {
		r1, stride := r0+1, cols
		if r1 < len(off) && off[r1]-off[r0] >= cols {
			stride = off[r1] - off[r0]
			for r1 < len(off) && off[r1]-off[r1-1] == stride {
				r1++
			}
		}
		m := 0
		for _, k := range n[r0:r1] {
			m += k
		}
		rowSumsAVX2(dst[off[r0]:], stride, cols, src, terms[:m], n[r0:r1], zero)
		terms = terms[m:]
		r0 = r1
	}
}

// rowSumsAtAVX512 is rowSumsAVX512 with the rows of dst at the offsets
// off.
//
//go:noescape
func rowSumsAtAVX512(dst []float64, off []int, cols int, src []float64, terms []Term, n []int, zero bool)

// termsInRange reports whether every term's uint(Off) <= uint(last).
func termsInRange(terms []Term, last int) bool {
	if level == AVX512 && len(terms) > 0 {
		return offsInRangeAVX512(&terms[0], len(terms), last)
	}
	if level == AVX2 && len(terms) > 0 {
		return offsInRangeAVX2(&terms[0], len(terms), last)
	}
	return termsInRangeGo(terms, last)
}

// terms32InRange is termsInRange for Term32: whether every Off is at
// least 0 and at most last.
func terms32InRange(terms []Term32, last int) bool {
	if level == AVX512 && len(terms) > 0 && last >= 0 {
		return offs32InRangeAVX512(&terms[0], len(terms), min(last, MaxOff32))
	}
	if level == AVX2 && len(terms) > 0 && last >= 0 {
		return offs32InRangeAVX2(&terms[0], len(terms), min(last, MaxOff32))
	}
	return terms32InRangeGo(terms, last)
}

// offsInRangeAVX512 reports whether the n Terms at p all have
// uint(Off) <= uint(last).
//
//go:noescape
func offsInRangeAVX512(p *Term, n, last int) bool

// offs32InRangeAVX512 reports whether the n Term32s at p all have
// uint32(Off) <= last, for last in 0 .. MaxOff32.
//
//go:noescape
func offs32InRangeAVX512(p *Term32, n, last int) bool

// offsInRangeAVX2 is offsInRangeAVX512 at AVX2.
//
//go:noescape
func offsInRangeAVX2(p *Term, n, last int) bool

// offs32InRangeAVX2 is offs32InRangeAVX512 at AVX2.
//
//go:noescape
func offs32InRangeAVX2(p *Term32, n, last int) bool

func nonzeroTerms(dst []Term, x []float64, stride int) int {
	if level == AVX512 && len(x) > 0 && len(dst) >= len(x)+NonzeroTermsSlack {
		offs := laneOffs(stride)
		return nonzeroTermsAVX512(&dst[0], x, &offs, 8*stride)
	}
	if level == AVX2 && len(x) >= 4 {
		m := len(x) &^ 3
		offs := laneOffs(stride)
		k := nonzeroTermsAVX2(&dst[0], x[:m], (*[4]int)(offs[:4]), 4*stride)
		return k + nonzeroTermsGo(dst[k:], x[m:], stride, m)
	}
	return nonzeroTermsGo(dst, x, stride, 0)
}

// laneOffs returns the Offs of the first eight entries, i*stride.
func laneOffs(stride int) [8]int {
	var offs [8]int
	for i := range offs {
		offs[i] = i * stride
	}
	return offs
}

// laneOffs32 is laneOffs for Term32's 32-bit Offs.
func laneOffs32(stride int) [8]int32 {
	var offs [8]int32
	for i := range offs {
		offs[i] = int32(i * stride)
	}
	return offs
}

// nonzeroTermsAVX512 is nonzeroTermsGo for dst with NonzeroTermsSlack terms
// of room past len(x); offs holds the Offs of the first eight entries,
// step the Off of entry 8.
//
//go:noescape
func nonzeroTermsAVX512(dst *Term, x []float64, offs *[8]int, step int) int

// nonzeroTerms32 needs the last entry's Off, (len(x)-1)*stride, to fit
// a Term32 (NonzeroTerms32 checks it): the kernel adds 8*stride to every
// lane's Off after each eight entries, in 32 bits, so the Offs it
// computes past the end may wrap, but it writes none of them.
func nonzeroTerms32(dst []Term32, x []float32, stride int) int {
	if level == AVX512 && len(x) > 0 && len(dst) >= len(x)+NonzeroTermsSlack {
		offs := laneOffs32(stride)
		return nonzeroTerms32AVX512(&dst[0], x, &offs, 8*stride)
	}
	if level == AVX2 && len(x) >= 8 {
		m := len(x) &^ 7
		offs := laneOffs32(stride)
		k := nonzeroTerms32AVX2(&dst[0], x[:m], &offs, 8*stride)
		return k + nonzeroTerms32Go(dst[k:], x[m:], stride, m)
	}
	return nonzeroTerms32Go(dst, x, stride, 0)
}

// nonzeroTerms32AVX512 is nonzeroTermsAVX512 for float32 entries and
// Term32s; offs holds the 32-bit Offs of the first eight entries, step
// the Off of entry 8.
//
//go:noescape
func nonzeroTerms32AVX512(dst *Term32, x []float32, offs *[8]int32, step int) int

// nonzeroTermsAVX2 is nonzeroTermsGo at AVX2 for len(x) a multiple of 4;
// offs holds the Offs of the first four entries, step the Off of entry
// 4. It writes nothing past dst[len(x)-1].
//
//go:noescape
func nonzeroTermsAVX2(dst *Term, x []float64, offs *[4]int, step int) int

// nonzeroTerms32AVX2 is nonzeroTerms32Go at AVX2 for len(x) a multiple
// of 8; offs holds the Offs of the first eight entries, step the Off of
// entry 8. It writes nothing past dst[len(x)-1].
//
//go:noescape
func nonzeroTerms32AVX2(dst *Term32, x []float32, offs *[8]int32, step int) int

func hasZero(x []float64) bool {
	switch level {
	case AVX512:
		return hasZeroAVX512(x)
	case AVX2:
		n := len(x) &^ 3
		return n > 0 && hasZeroAVX2(x[:n]) || hasZeroGo(x[n:])
	}
	return hasZeroGo(x)
}

// hasZeroAVX2 is hasZeroGo for len(x) a multiple of 4.
//
//go:noescape
func hasZeroAVX2(x []float64) bool

// hasZeroAVX512 is hasZeroGo.
//
//go:noescape
func hasZeroAVX512(x []float64) bool

func relu(dst, x []float64) {
	switch level {
	case AVX512:
		reluAVX512(dst, x)
	case AVX2:
		n := len(dst) &^ 3
		if n > 0 {
			reluAVX2(dst[:n], x)
		}
		reluGo(dst[n:], x[n:])
	default:
		reluGo(dst, x)
	}
}

func reluBack(dst, g, y []float64) {
	switch level {
	case AVX512:
		reluBackAVX512(dst, g, y)
	case AVX2:
		n := len(dst) &^ 3
		if n > 0 {
			reluBackAVX2(dst[:n], g, y)
		}
		reluBackGo(dst[n:], g[n:], y[n:])
	default:
		reluBackGo(dst, g, y)
	}
}

// reluAVX512 and reluBackAVX512 are reluGo and reluBackGo, with x, g and
// y at least as long as dst; reluAVX2 and reluBackAVX2 are the same on
// AVX2 for a length that is a multiple of 4.
//
//go:noescape
func reluAVX512(dst, x []float64)

//go:noescape
func reluBackAVX512(dst, g, y []float64)

//go:noescape
func reluAVX2(dst, x []float64)

//go:noescape
func reluBackAVX2(dst, g, y []float64)
