package vec

import "fmt"

// DenseSums is RowSums for rows that all have the same source rows: the
// terms of every row are the rows t = 0 .. terms-1 of src (row t from
// src[t*srcStride]), and row r's coefficient of row t is a[r*rs+t*ts].
// For every row r = 0 .. rows-1 of dst (cols elements from dst[r*stride])
// and column c, with the rounding of RowSums:
//
//	row[c] = +0 if zero is set, row[c] if not
//	for t = 0 .. terms-1:
//	    row[c] = row[c] + a[r*rs+t*ts]*src[t*srcStride+c]
//
// Every coefficient is added, zeros too: it gives the bits of RowSums
// called with every term of every row, which a caller that skips zero
// coefficients may use for a block that has none. The rows of a product
// share each source row, so four rows are summed from one load of it.
//
// It panics if a row of dst or of src, or a coefficient, is out of
// range, or if rows of dst overlap.
func DenseSums(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool) {
	if rows <= 0 || cols <= 0 {
		if rows < 0 || cols < 0 {
			panic(fmt.Sprintf("vec: DenseSums: %d rows of %d columns", rows, cols))
		}
		return
	}
	switch {
	case terms < 0 || rs < 0 || ts < 0 || srcStride < 0:
		panic(fmt.Sprintf("vec: DenseSums: %d terms, strides rs %d, ts %d, src %d", terms, rs, ts, srcStride))
	case rows > 1 && stride < cols:
		panic(fmt.Sprintf("vec: DenseSums: stride %d below %d columns", stride, cols))
	case len(dst) < (rows-1)*stride+cols:
		panic(fmt.Sprintf("vec: DenseSums: dst has %d elements, %d rows need %d", len(dst), rows, (rows-1)*stride+cols))
	}
	if terms > 0 {
		if need := (terms-1)*srcStride + cols; len(src) < need {
			panic(fmt.Sprintf("vec: DenseSums: src has %d elements, %d rows need %d", len(src), terms, need))
		}
		if last := (rows-1)*rs + (terms-1)*ts; len(a) <= last {
			panic(fmt.Sprintf("vec: DenseSums: coefficient a[%d] of %d", last, len(a)))
		}
	}
	denseSums(dst, stride, cols, src, srcStride, a, rs, ts, rows, terms, zero)
}

// denseSumsGo is DenseSums (checked) through addScaledN, row by row, at
// most rowSumsBatch terms per call.
func denseSumsGo(dst []float64, stride, cols int, src []float64, srcStride int, a []float64, rs, ts, rows, terms int, zero bool) {
	var (
		as [rowSumsBatch]float64
		xs [rowSumsBatch][]float64
	)
	for r := range rows {
		row := dst[r*stride : r*stride+cols]
		z := zero
		if terms == 0 && z {
			clear(row)
		}
		for t0 := 0; t0 < terms; t0 += rowSumsBatch {
			b := min(terms-t0, rowSumsBatch)
			for q := range b {
				t := t0 + q
				as[q], xs[q] = a[r*rs+t*ts], src[t*srcStride:t*srcStride+cols]
			}
			addScaledN(row, as[:b], xs[:b], z)
			z = false
		}
	}
}
