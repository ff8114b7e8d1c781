//go:build !amd64 || purego

package vec

func rowSums32(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool) {
	rowSums32Go(dst, stride, cols, src, terms, n, zero)
}

func dot32(x, y []float32) float32 { return dot32Go(x, y) }

func dotN32(dst, x []float32, ys [][]float32) {
	for t, y := range ys {
		dst[t] = dot32Go(x, y)
	}
}

func adam32(theta, grad, m, v []float32, p *adamParams32) { adam32Go(theta, grad, m, v, p) }

func mul32(dst, x, y []float32, add bool) { mul32Go(dst, x, y, add) }

func mulPruned32(dst, x, m []float32, thr float32) { mulPruned32Go(dst, x, m, thr) }

func biasReLU32(x, b []float32) { biasReLU32Go(x, b) }

func reluBack32(dst, g, y, s []float32) { reluBack32Go(dst, g, y, s) }
