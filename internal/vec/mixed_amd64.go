//go:build amd64 && !purego

package vec

// mixedBlocks returns how many of n elements the assembly takes: whole
// blocks of 8 at the AVX-512 level, of 4 at the AVX2 level, none below.
func mixedBlocks(n int) int {
	switch level {
	case AVX512:
		return n &^ 7
	case AVX2:
		return n &^ 3
	}
	return 0
}

// The wrappers below run the kernel of the current level.

func to32Asm(dst []float32, x []float64) {
	if level == AVX512 {
		to32AVX512(dst, x)
		return
	}
	to32AVX2(dst, x)
}

func mulTo32Asm(dst []float32, x, y []float64) {
	if level == AVX512 {
		mulTo32AVX512(dst, x, y)
		return
	}
	mulTo32AVX2(dst, x, y)
}

func mulPrunedTo32Asm(dst []float32, x, m []float64, thr float64) {
	if level == AVX512 {
		mulPrunedTo32AVX512(dst, x, m, thr)
		return
	}
	mulPrunedTo32AVX2(dst, x, m, thr)
}

func maskGradFrom32Asm(gw, gm []float64, d []float32, w, m []float64) {
	if level == AVX512 {
		maskGradFrom32AVX512(gw, gm, d, w, m)
		return
	}
	maskGradFrom32AVX2(gw, gm, d, w, m)
}

func addFrom32Asm(dst []float64, x []float32) {
	if level == AVX512 {
		addFrom32AVX512(dst, x)
		return
	}
	addFrom32AVX2(dst, x)
}

func adamF32Asm(theta, grad []float64, m, v []float32, p *adamParams32) {
	if level == AVX512 {
		adamF32AVX512(theta, grad, m, v, p)
		return
	}
	adamF32AVX2(theta, grad, m, v, p)
}

// The kernels below take len(dst) (or len(theta)) a multiple of 8 (4 for
// the AVX2 ones), and the other slices at least as long.

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

//go:noescape
func to32AVX2(dst []float32, x []float64)

//go:noescape
func mulTo32AVX2(dst []float32, x, y []float64)

//go:noescape
func mulPrunedTo32AVX2(dst []float32, x, m []float64, thr float64)

//go:noescape
func maskGradFrom32AVX2(gw, gm []float64, d []float32, w, m []float64)

//go:noescape
func addFrom32AVX2(dst []float64, x []float32)

//go:noescape
func adamF32AVX2(theta, grad []float64, m, v []float32, p *adamParams32)

func from32Asm(dst []float64, x []float32) {
	if level == AVX512 {
		from32AVX512(dst, x)
		return
	}
	from32AVX2(dst, x)
}

//go:noescape
func from32AVX512(dst []float64, x []float32)

//go:noescape
func from32AVX2(dst []float64, x []float32)
