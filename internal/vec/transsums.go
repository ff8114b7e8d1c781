package vec

import "fmt"

// TransSums adds x^T p to the m x k matrix dt, the transpose of the k x m
// product, skipping the zero entries of x (either sign): for every j < k
// and c < m, in the order of i < n,
//
//	dt[c*k+j] = dt[c*k+j] + x[i*xStride+j] * p[i*pStride+c]   if x[i*xStride+j] != 0
//
// with the roundings of RowSums (each product, then each sum): the bits
// RowSums gives row j of the k x m product from the terms x_ij, p_i. It
// computes eight j at a time, one to a lane, reading the rows of x as
// they are (RowSums needs the terms of each column of x gathered), which
// pays for a narrow product: a classifier's weight gradient, H^T times
// the gradients of C classes. It returns false, leaving dt as it was, at
// a level without its kernel (below AVX-512); it panics if a matrix is
// shorter than its shape.
func TransSums(dt []float64, k int, x []float64, xStride int, p []float64, pStride, n, m int) bool {
	if k < 0 || m < 0 || n < 0 || len(dt) < m*k {
		panic(fmt.Sprintf("vec: TransSums: %d x %d result in %d elements", m, k, len(dt)))
	}
	if n > 0 && (xStride < k || len(x) < (n-1)*xStride+k) {
		panic(fmt.Sprintf("vec: TransSums: x of %d with stride %d for %d x %d", len(x), xStride, n, k))
	}
	if n > 0 && (pStride < m || len(p) < (n-1)*pStride+m) {
		panic(fmt.Sprintf("vec: TransSums: p of %d with stride %d for %d x %d", len(p), pStride, n, m))
	}
	return transSums(dt, k, x, xStride, p, pStride, n, m)
}
