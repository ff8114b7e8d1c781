//go:build amd64 && !purego

package vec

// The float32 kernels have AVX-512 versions, and all but Adam32 and
// MulPruned32 AVX2 ones (whole blocks in assembly, the rest in Go).
// Below those levels they run the portable Go versions.

func rowSums32(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool) {
	switch {
	case level == AVX2:
		rowSums32AVX2(dst, stride, cols, src, terms, n, zero)
	case level < AVX512:
		rowSums32Go(dst, stride, cols, src, terms, n, zero)
	case cols <= 16:
		rowSums16AVX512(dst, stride, cols, src, terms, n, zero)
	default:
		rowSums32AVX512(dst, stride, cols, src, terms, n, zero)
	}
}

func dot32(x, y []float32) float32 {
	switch level {
	case AVX512:
		return dot32AVX512(x, y)
	case AVX2:
		// 16 partial sums in two Y registers, the last elements in Go.
		var s [16]float32
		n := len(x) &^ 15
		if n > 0 {
			dot32PartialsAVX2(x[:n], y, &s)
		}
		y = y[:len(x)]
		for i := n; i < len(x); i++ {
			s[i-n] += float32(x[i] * y[i])
		}
		return reduce16(&s)
	}
	return dot32Go(x, y)
}

func dotN32(dst, x []float32, ys [][]float32) {
	t := 0
	switch level {
	case AVX512:
		for ; t+4 <= len(ys); t += 4 {
			dot4x32AVX512(dst[t:t+4], x, ys[t:t+4])
		}
	case AVX2:
		for ; t+4 <= len(ys); t += 4 {
			dot4x32AVX2(dst[t:t+4], x, ys[t:t+4])
		}
	}
	for ; t < len(ys); t++ {
		dst[t] = dot32(x, ys[t])
	}
}

func adam32(theta, grad, m, v []float32, p *adamParams32) {
	if level < AVX512 {
		adam32Go(theta, grad, m, v, p)
		return
	}
	adam32AVX512(theta, grad, m, v, p)
}

func mul32(dst, x, y []float32, add bool) {
	switch level {
	case AVX512:
		mul32AVX512(dst, x, y, add)
	case AVX2:
		n := len(dst) &^ 7
		if n > 0 {
			mul32AVX2(dst[:n], x, y, add)
		}
		mul32Go(dst[n:], x[n:], y[n:], add)
	default:
		mul32Go(dst, x, y, add)
	}
}

func mulPruned32(dst, x, m []float32, thr float32) {
	if level < AVX512 {
		mulPruned32Go(dst, x, m, thr)
		return
	}
	mulPruned32AVX512(dst, x, m, thr)
}

// rowSums32AVX512 is rowSums32Go for checked arguments, blocked as
// rowSumsAVX512 is: strips of 64 columns (four registers a row), four
// rows at a time.
//
//go:noescape
func rowSums32AVX512(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool)

// rowSums32AVX2 is rowSums32Go for checked arguments at AVX2: strips of
// 32 columns, three rows at a time; then strips of 16, four rows at a
// time, the last 1 to 15 columns under a mask.
//
//go:noescape
func rowSums32AVX2(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool)

// rowSums16AVX512 is rowSums32AVX512 with strips of 16 columns (one
// register a row), for at most 16 columns.
//
//go:noescape
func rowSums16AVX512(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool)

// dot32AVX512 is dot32Go; len(y) >= len(x).
//
//go:noescape
func dot32AVX512(x, y []float32) float32

// dot4x32AVX512 sets dst[t] = dot32Go(x, ys[t]) for t = 0 .. 3; every
// ys[t] is at least as long as x.
//
//go:noescape
func dot4x32AVX512(dst, x []float32, ys [][]float32)

// dot4x32AVX2 is dot4x32AVX512 on AVX2: dst[t] = dot32(x, ys[t]) for t
// = 0..3, every ys[t] at least as long as x.
//
//go:noescape
func dot4x32AVX2(dst, x []float32, ys [][]float32)

// adam32AVX512 is adam32Go with slices of equal length.
//
//go:noescape
func adam32AVX512(theta, grad, m, v []float32, p *adamParams32)

// mul32AVX512 is mul32Go with x and y at least as long as dst.
//
//go:noescape
func mul32AVX512(dst, x, y []float32, add bool)

// mulPruned32AVX512 is mulPruned32Go with x and m at least as long as
// dst.
//
//go:noescape
func mulPruned32AVX512(dst, x, m []float32, thr float32)

func biasReLU32(x, b []float32) {
	switch level {
	case AVX512:
		biasReLU32AVX512(x, b)
	case AVX2:
		n := len(x) &^ 7
		if n > 0 {
			biasReLU32AVX2(x[:n], b)
		}
		biasReLU32Go(x[n:], b[n:])
	default:
		biasReLU32Go(x, b)
	}
}

func reluBack32(dst, g, y, s []float32) {
	scale, sc := s != nil, s
	if !scale {
		sc = g // not read
	}
	switch level {
	case AVX512:
		reluBack32AVX512(dst, g, y, sc, scale)
	case AVX2:
		n := len(dst) &^ 7
		if n > 0 {
			reluBack32AVX2(dst[:n], g, y, sc, scale)
		}
		var st []float32
		if scale {
			st = s[n:]
		}
		reluBack32Go(dst[n:], g[n:], y[n:], st)
	default:
		reluBack32Go(dst, g, y, s)
	}
}

// biasReLU32AVX512 is biasReLU32Go with b at least as long as x.
//
//go:noescape
func biasReLU32AVX512(x, b []float32)

// reluBack32AVX512 is reluBack32Go, with s ignored unless scale is set;
// g, y and s are at least as long as dst.
//
//go:noescape
func reluBack32AVX512(dst, g, y, s []float32, scale bool)

// dot32PartialsAVX2 sets s[k] to the sum over i = k mod 16 of x[i]*y[i]
// (each product, then each sum rounded, in the order of i); len(x) is a
// multiple of 16 and y at least as long.
//
//go:noescape
func dot32PartialsAVX2(x, y []float32, s *[16]float32)

// mul32AVX2, biasReLU32AVX2 and reluBack32AVX2 are mul32AVX512,
// biasReLU32AVX512 and reluBack32AVX512 on AVX2 for a length that is a
// multiple of 8.
//
//go:noescape
func mul32AVX2(dst, x, y []float32, add bool)

//go:noescape
func biasReLU32AVX2(x, b []float32)

//go:noescape
func reluBack32AVX2(dst, g, y, s []float32, scale bool)
