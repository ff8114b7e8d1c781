//go:build amd64 && !purego

package vec

// transBlock is the number of rows of x and p that transSums takes at a
// time: 128 rows of 256 (256 KiB) stay in the second-level cache while
// every strip of eight columns and group of four passes over them.
const transBlock = 128

func transSums(dt []float64, k int, x []float64, xStride int, p []float64, pStride, n, m int) bool {
	if level < AVX512 {
		return false
	}
	if n == 0 || k == 0 || m == 0 {
		return true
	}
	for i0 := 0; i0 < n; i0 += transBlock {
		rows := min(transBlock, n-i0)
		xb, pb := x[i0*xStride:], p[i0*pStride:]
		for j0 := 0; j0 < k; j0 += 8 {
			lanes := uint64(1)<<min(8, k-j0) - 1
			c := 0
			for ; c+4 <= m; c += 4 {
				transSums4AVX512(&dt[c*k+j0], k, &xb[j0], xStride, &pb[c], pStride, rows, lanes)
			}
			for ; c < m; c++ {
				transSums1AVX512(&dt[c*k+j0], k, &xb[j0], xStride, &pb[c], pStride, rows, lanes)
			}
		}
	}
	return true
}

// transSums4AVX512 adds the n rows of x (8 lanes from x, under lanes) times
// four columns of p to four rows of dt, k elements apart.
//
//go:noescape
func transSums4AVX512(dt *float64, k int, x *float64, xStride int, p *float64, pStride int, n int, lanes uint64)

// transSums1AVX512 is transSums4AVX512 for one column of p.
//
//go:noescape
func transSums1AVX512(dt *float64, k int, x *float64, xStride int, p *float64, pStride int, n int, lanes uint64)
