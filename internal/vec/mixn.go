package vec

import "fmt"

// MixInPlace replaces every vector xs[i] by its row of the mixing w
// (k x k, k = len(xs)): with x_j the values of xs[j] before the call, for
// every i and every element e,
//
//	xs[i][e] = ((+0 + w[i][0]*x_0[e]) + w[i][1]*x_1[e]) + ... + w[i][k-1]*x_{k-1}[e],
//
// every product rounded before its sum: the bits of ScaledSum(dst, w[i],
// x), written over xs. tmp is scratch memory of at least k*len(xs[0])
// elements. At the AVX-512 and AVX2 levels it goes a block of 64 (32)
// elements at a time, every row of a block before the next block, so
// that each vector's block is read from memory once and then from the
// first-level cache; the portable code sums each row over the whole
// vectors into tmp and copies the rows back. It panics unless the
// vectors have one length, w has k rows of k coefficients and tmp is
// long enough.
func MixInPlace(xs [][]float64, w [][]float64, tmp []float64) {
	k := len(xs)
	if k == 0 {
		return
	}
	n := len(xs[0])
	checkMix(xs, w, tmp, n)
	if mixBlocks(xs, w, tmp, n) {
		return
	}
	mixRows(xs, w, tmp)
}

// mixRows is MixInPlace by rows: each row summed over the whole vectors
// into tmp (addScaledN), then the rows copied back.
func mixRows(xs, w [][]float64, tmp []float64) {
	k, n := len(xs), len(xs[0])
	for i := range xs {
		addScaledN(tmp[i*n:(i+1)*n], w[i][:k], xs, true)
	}
	for i, x := range xs {
		copy(x, tmp[i*n:(i+1)*n])
	}
}

func checkMix(xs, w [][]float64, tmp []float64, n int) {
	k := len(xs)
	for t, x := range xs {
		if len(x) != n {
			panic(fmt.Sprintf("vec: MixInPlace: vector %d has length %d, want %d", t, len(x), n))
		}
	}
	if len(w) != k {
		panic(fmt.Sprintf("vec: MixInPlace: %d rows of coefficients for %d vectors", len(w), k))
	}
	for i, r := range w {
		if len(r) < k {
			panic(fmt.Sprintf("vec: MixInPlace: row %d has %d coefficients for %d vectors", i, len(r), k))
		}
	}
	if len(tmp) < k*n {
		panic(fmt.Sprintf("vec: MixInPlace: scratch of %d elements, want %d", len(tmp), k*n))
	}
}
