//go:build !amd64 || purego

package vec

func detect() Level { return Portable }

func addScaledN(dst, a []float64, xs [][]float64, zero bool) { addScaledNGo(dst, a, xs, zero) }

func dot(x, y []float64) float64 { return dotGo(x, y) }

// mixBlocks leaves MixInPlace to mixRows: the level is Portable here.
func mixBlocks(xs, w [][]float64, tmp []float64, n int) bool { return false }

func dotN(dst, x []float64, ys [][]float64) { dotNGo(dst, x, ys) }

func adam(theta, grad, m, v []float64, b1, c1, b2, c2, wd, step, invBC2, eps float64) {
	adamGo(theta, grad, m, v, b1, c1, b2, c2, wd, step, invBC2, eps)
}

func mul(dst, x, y []float64, add bool) { mulGo(dst, x, y, add) }

func mulPruned(dst, x, m []float64, thr float64) { mulPrunedGo(dst, x, m, thr) }

func finite(x []float64) bool { return finiteGo(x) }

func dotMN(dst []float64, xs, ys [][]float64) { dotMNGo(dst, xs, ys) }

func rowSums(dst []float64, stride, cols int, src []float64, terms []Term, n []int, zero bool) {
	rowSumsGo(dst, stride, cols, src, terms, n, zero)
}

func rowSumsStride(dst []float64, stride, cols int, src []float64, _ int, terms []Term, n []int, zero bool) {
	rowSumsGo(dst, stride, cols, src, terms, n, zero)
}

func rowSumsAt(dst []float64, off []int, cols int, src []float64, terms []Term, n []int, zero bool) {
	rowSumsAtGo(dst, off, cols, src, terms, n, zero)
}

func denseSums(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool) {
	denseSumsGo(dst, stride, cols, src, srcStride, a, rs, ts, rows, terms, zero)
}

func termsInRange(terms []Term, last int) bool { return termsInRangeGo(terms, last) }

func terms32InRange(terms []Term32, last int) bool { return terms32InRangeGo(terms, last) }

func nonzeroTerms(dst []Term, x []float64, stride int) int { return nonzeroTermsGo(dst, x, stride, 0) }

func nonzeroTerms32(dst []Term32, x []float32, stride int) int {
	return nonzeroTerms32Go(dst, x, stride, 0)
}

func hasZero(x []float64) bool { return hasZeroGo(x) }

func relu(dst, x []float64) { reluGo(dst, x) }

func reluBack(dst, g, y []float64) { reluBackGo(dst, g, y) }

// dotMNStride never has seq set here: SeqDotMNStride refuses below
// AVX-512.
func dotMNStride(dst []float64, stride int, xs, ys [][]float64, pattern []float64, patStride int, seq bool) {
	dotMNStrideGo(dst, stride, xs, ys, pattern, patStride, 0, len(ys), dot)
}

func dotMNStride32(dst []float32, stride int, xs, ys [][]float32, pattern []float32, patStride int) {
	dotMNStrideGo(dst, stride, xs, ys, pattern, patStride, 0, len(ys), dot32)
}

func transSums(dt []float64, k int, x []float64, xStride int, p []float64, pStride, n, m int) bool {
	return false
}
