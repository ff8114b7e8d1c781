package vec

import "math"

// The portable float32 kernels. As in portable.go, every product is
// converted explicitly so that no compiler fuses it with an addition.

func rowSums32Go(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool) {
	for r, k := range n {
		row := dst[r*stride : r*stride+cols]
		if zero {
			clear(row)
		}
		for _, t := range terms[:k] {
			x := src[int(t.Off) : int(t.Off)+cols]
			a := t.A
			for c, xc := range x {
				row[c] += float32(a * xc)
			}
		}
		terms = terms[k:]
	}
}

func dot32Go(x, y []float32) float32 {
	y = y[:len(x)]
	var s [16]float32
	i := 0
	for ; i+16 <= len(x); i += 16 {
		xs, ys := x[i:i+16], y[i:i+16]
		for k := range s {
			s[k] += float32(xs[k] * ys[k])
		}
	}
	for k := 0; i < len(x); i, k = i+1, k+1 {
		s[k] += float32(x[i] * y[i])
	}
	return reduce16(&s)
}

// reduce16 adds 16 partial sums as Dot32 documents.
func reduce16(s *[16]float32) float32 {
	for h := 8; h >= 2; h /= 2 {
		for k := 0; k < h; k++ {
			s[k] += s[k+h]
		}
	}
	return s[0] + s[1]
}

func adam32Go(theta, grad, m, v []float32, p *adamParams32) {
	b1, c1, b2, c2, wd, step, invBC2, eps := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]
	grad, m, v = grad[:len(theta)], m[:len(theta)], v[:len(theta)]
	for i, x := range theta {
		g := grad[i] + float32(wd*x)
		mi := float32(b1*m[i]) + float32(c1*g)
		vi := float32(b2*v[i]) + float32(float32(c2*g)*g)
		m[i], v[i] = mi, vi
		// The square root of a float32 in float64, rounded to float32,
		// is the correctly rounded float32 square root.
		sq := float32(math.Sqrt(float64(vi)))
		theta[i] = x - float32(step*mi)/(float32(sq*invBC2)+eps)
	}
}

func mul32Go(dst, x, y []float32, add bool) {
	x, y = x[:len(dst)], y[:len(dst)]
	if add {
		for i := range dst {
			dst[i] += float32(x[i] * y[i])
		}
		return
	}
	for i := range dst {
		dst[i] = x[i] * y[i]
	}
}

func mulPruned32Go(dst, x, m []float32, thr float32) {
	x, m = x[:len(dst)], m[:len(dst)]
	for i, mi := range m {
		if math.Abs(float64(mi)) < float64(thr) {
			mi = 0
		}
		dst[i] = x[i] * mi
	}
}

func biasReLU32Go(x, b []float32) {
	b = b[:len(x)]
	for i, v := range x {
		x[i] = max(v+b[i], 0)
	}
}

func reluBack32Go(dst, g, y, s []float32) {
	g, y = g[:len(dst)], y[:len(dst)]
	for i := range dst {
		v := g[i]
		if s != nil {
			v *= s[i]
		}
		if !(y[i] > 0) {
			v = 0
		}
		dst[i] = v
	}
}
