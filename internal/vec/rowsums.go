package vec

//go:generate go run gen_rowsums.go

import "fmt"

// A Term is one scaled source row of RowSums: the row that starts at
// src[Off], times A.
type Term struct {
	Off int
	A   float64
}

// RowSums sums scaled rows of src into the rows of dst. Row r of dst is
// the cols elements from dst[r*stride], for r = 0 .. len(n)-1, and its
// terms are the next n[r] elements of terms (those of row 0 first). For
// every row and column c, with the rounding of AddScaledN (each product,
// then each sum, never a fused multiply-add):
//
//	row[c] = +0 if zero is set, row[c] if not
//	for each term t of the row, in order:
//	    row[c] = row[c] + t.A*src[t.Off+c]
//
// so every element gets the bits that AddScaledN (or ScaledSum, if zero
// is set) gives it when called with the row's terms. It computes several
// rows at a time on a strip of columns at a time, so that the strips of
// the source rows stay in cache while all rows read them.
//
// It panics if a term's row or a row of dst is out of range, if n has a
// negative count or more terms than terms holds, or if rows of dst
// overlap (stride < cols with more than one row).
func RowSums(dst []float64, stride, cols int, src []float64, terms []Term, n []int, zero bool) {
	if total, ok := checkRowSums("RowSums", dst, stride, cols, src, terms, n); ok {
		rowSums(dst, stride, cols, src, terms[:total], n, zero)
	}
}

// RowSumsStride is RowSums for terms whose source rows lie srcStride
// elements apart (their offsets differ by multiples of it), which lets
// it pick the faster walk of a wide product. Below AVX-512, RowSums sums
// products wider than 256 columns row by row: its strips read 128 bytes
// of every source row a term names, and with rows a multiple of 1 KiB
// apart those pieces fall in a few cache sets and evict each other.
// RowSumsStride takes the strips for them too when the rows are not a
// multiple of 1 KiB apart (as padded rows are: a 2048-column product
// from rows 2056 apart ran 1.6 times as fast in strips). The sums are
// RowSums' to the bit, whatever the walk. It panics as RowSums does.
func RowSumsStride(dst []float64, stride, cols int, src []float64, srcStride int, terms []Term, n []int, zero bool) {
	if total, ok := checkRowSums("RowSumsStride", dst, stride, cols, src, terms, n); ok {
		rowSumsStride(dst, stride, cols, src, srcStride, terms[:total], n, zero)
	}
}

// checkRowSums panics, in the name of fn, unless RowSums' arguments are
// valid, and returns the number of terms the rows take and whether there
// is anything to sum.
func checkRowSums(fn string, dst []float64, stride, cols int, src []float64, terms []Term, n []int) (int, bool) {
	rows := len(n)
	if rows == 0 || cols <= 0 {
		if cols < 0 {
			panic(fmt.Sprintf("vec: %s: %d columns", fn, cols))
		}
		return 0, false
	}
	if rows > 1 && stride < cols {
		panic(fmt.Sprintf("vec: %s: stride %d below %d columns", fn, stride, cols))
	}
	if need := (rows-1)*stride + cols; len(dst) < need {
		panic(fmt.Sprintf("vec: %s: dst has %d elements, %d rows need %d", fn, len(dst), rows, need))
	}
	return checkTerms(fn, cols, src, terms, n), true
}

// RowSumsAt is RowSums with the rows of dst anywhere in it: row r is the
// cols elements from dst[off[r]], for r = 0 .. len(off)-1, and n has one
// count per row. The rows must not overlap, which RowSumsAt checks when
// they come in increasing order and assumes otherwise (overlapping rows
// would be summed from their old values and written in an unspecified
// order).
//
// It panics if a row of dst or a term's row is out of range, if n does
// not have len(off) counts, or on a bad count as RowSums does.
func RowSumsAt(dst []float64, off []int, cols int, src []float64, terms []Term, n []int, zero bool) {
	if len(n) != len(off) {
		panic(fmt.Sprintf("vec: RowSumsAt: %d counts for %d rows", len(n), len(off)))
	}
	if len(off) == 0 || cols <= 0 {
		if cols < 0 {
			panic(fmt.Sprintf("vec: RowSumsAt: %d columns", cols))
		}
		return
	}
	last := len(dst) - cols
	for r, o := range off {
		if uint(o) > uint(last) || last < 0 {
			panic(fmt.Sprintf("vec: RowSumsAt: row %d is dst[%d:%d] of %d", r, o, o+cols, len(dst)))
		}
		if r > 0 && o > off[r-1] && o < off[r-1]+cols {
			panic(fmt.Sprintf("vec: RowSumsAt: rows %d and %d overlap", r-1, r))
		}
	}
	total := checkTerms("RowSumsAt", cols, src, terms, n)
	rowSumsAt(dst, off, cols, src, terms[:total], n, zero)
}

// checkTerms panics unless the counts n are >= 0, terms holds them all
// and every term's row of cols elements lies in src; it returns the
// number of terms.
func checkTerms(name string, cols int, src []float64, terms []Term, n []int) int {
	total := 0
	for r, k := range n {
		if k < 0 {
			panic(fmt.Sprintf("vec: %s: row %d has %d terms", name, r, k))
		}
		total += k
	}
	if total > len(terms) {
		panic(fmt.Sprintf("vec: %s: rows have %d terms, %d given", name, total, len(terms)))
	}
	last := len(src) - cols
	if total > 0 && (last < 0 || !termsInRange(terms[:total], last)) {
		for i, t := range terms[:total] {
			if uint(t.Off) > uint(last) || last < 0 {
				panic(fmt.Sprintf("vec: %s: term %d reads src[%d:%d] of %d", name, i, t.Off, t.Off+cols, len(src)))
			}
		}
	}
	return total
}

// termsInRangeGo is termsInRange: whether every uint(Off) <= uint(last).
func termsInRangeGo(terms []Term, last int) bool {
	for _, t := range terms {
		if uint(t.Off) > uint(last) {
			return false
		}
	}
	return true
}

// terms32InRangeGo is termsInRangeGo for Term32: whether every Off is
// at least 0 and at most last.
func terms32InRangeGo(terms []Term32, last int) bool {
	for _, t := range terms {
		if t.Off < 0 || int(t.Off) > last {
			return false
		}
	}
	return true
}

// rowSumsAtGo is RowSumsAt (checked) through rowSumsGo, one row at a
// time.
func rowSumsAtGo(dst []float64, off []int, cols int, src []float64, terms []Term, n []int, zero bool) {
	for r, o := range off {
		rowSumsGo(dst[o:o+cols], cols, cols, src, terms[:n[r]], n[r:r+1], zero)
		terms = terms[n[r]:]
	}
}

// rowSumsGo is RowSums (checked) through addScaledN, at most
// rowSumsBatch terms per call.
func rowSumsGo(dst []float64, stride, cols int, src []float64, terms []Term, n []int, zero bool) {
	var (
		a  [rowSumsBatch]float64
		xs [rowSumsBatch][]float64
	)
	for r, k := range n {
		row := dst[r*stride : r*stride+cols]
		z := zero
		if k == 0 && z {
			clear(row)
		}
		for k > 0 {
			b := min(k, rowSumsBatch)
			for t, term := range terms[:b] {
				a[t], xs[t] = term.A, src[term.Off:term.Off+cols]
			}
			addScaledN(row, a[:b], xs[:b], z)
			z = false
			terms, k = terms[b:], k-b
		}
	}
}

// rowSumsBatch is the number of terms rowSumsGo passes to one call of
// addScaledN.
const rowSumsBatch = 64

// NonzeroTermsSlack is the room past len(x) that lets NonzeroTerms write
// whole registers: with less it takes a slower loop.
const NonzeroTermsSlack = 8

// NonzeroTerms sets the first k terms of dst to the non-zero entries of x
// (NaN included, both zeros left out) in order, entry j as Term{Off:
// j*stride, A: x[j]}, and returns k. It may write any of dst[:len(x)+
// NonzeroTermsSlack] that dst has. It panics if dst is shorter than x.
func NonzeroTerms(dst []Term, x []float64, stride int) int {
	if len(dst) < len(x) {
		panic(fmt.Sprintf("vec: NonzeroTerms: %d terms of room for %d entries", len(dst), len(x)))
	}
	return nonzeroTerms(dst, x, stride)
}

// nonzeroTermsGo is NonzeroTerms: it writes every entry and advances
// past the non-zero ones only, without a branch on the data, x being
// entries first, first+1, ... of the whole.
func nonzeroTermsGo(dst []Term, x []float64, stride, first int) int {
	dst = dst[:len(x)]
	k := 0
	for j, v := range x {
		dst[k] = Term{Off: (first + j) * stride, A: v}
		k += nonzero01(v)
	}
	return k
}

// nonzero01 returns 1 if v != 0 (NaN included), 0 if not.
func nonzero01(v float64) int {
	if v != 0 {
		return 1
	}
	return 0
}
