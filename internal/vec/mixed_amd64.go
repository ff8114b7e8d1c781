//go:build amd64 && !purego

package vec

// mixedBlocks returns how many of n elements the assembly takes: whole
// blocks of 8 at the AVX-512 level, none below it.
func mixedBlocks(n int) int {
	if level < AVX512 {
		return 0
	}
	return n &^ 7
}

// The kernels below take len(dst) (or len(theta)) a multiple of 8, and
// the other slices at least as long.

//go:noescape
func to32AVX512(dst []float32, x []float64)

//go:noescape
func mulTo32AVX512(dst []float32, x, y []float64)

//go:noescape
func mulPrunedTo32AVX512(dst []float32, x, m []float64, thr float64)

//go:noescape
func maskGradFrom32AVX512(gw, gm []float64, d []float32, w, m []float64)

//go:noescape
func addFrom32AVX512(dst []float64, x []float32)

//go:noescape
func adamF32AVX512(theta, grad []float64, m, v []float32, p *adamParams32)
