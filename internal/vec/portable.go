package vec

import "math"

// The portable kernels. Each product is converted to float64 explicitly
// so that no compiler fuses it with the following addition (the Go
// specification allows fusing x*y + z unless the product is converted).

func addScaledNGo(dst, a []float64, xs [][]float64, zero bool) {
	if zero {
		clear(dst)
	}
	for t, x := range xs {
		at := a[t]
		x = x[:len(dst)]
		for i, xi := range x {
			dst[i] += float64(at * xi)
		}
	}
}

func dotGo(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	n := len(x) &^ 3
	for i := 0; i < n; i += 4 {
		s0 += float64(x[i] * y[i])
		s1 += float64(x[i+1] * y[i+1])
		s2 += float64(x[i+2] * y[i+2])
		s3 += float64(x[i+3] * y[i+3])
	}
	for i := n; i < len(x); i++ {
		s0 += float64(x[i] * y[i])
	}
	return (s0 + s2) + (s1 + s3)
}

func dotNGo(dst, x []float64, ys [][]float64) {
	for t, y := range ys {
		dst[t] = dotGo(x, y)
	}
}

func adamGo(theta, grad, m, v []float64, b1, c1, b2, c2, wd, step, invBC2, eps float64) {
	grad, m, v = grad[:len(theta)], m[:len(theta)], v[:len(theta)]
	for i, x := range theta {
		g := grad[i] + float64(wd*x)
		mi := float64(b1*m[i]) + float64(c1*g)
		vi := float64(b2*v[i]) + float64(float64(c2*g)*g)
		m[i], v[i] = mi, vi
		theta[i] = x - float64(step*mi)/(float64(math.Sqrt(vi)*invBC2)+eps)
	}
}

func mulGo(dst, x, y []float64, add bool) {
	x, y = x[:len(dst)], y[:len(dst)]
	if add {
		for i := range dst {
			dst[i] += float64(x[i] * y[i])
		}
		return
	}
	for i := range dst {
		dst[i] = x[i] * y[i]
	}
}

func mulPrunedGo(dst, x, m []float64, thr float64) {
	x, m = x[:len(dst)], m[:len(dst)]
	for i, mi := range m {
		if math.Abs(mi) < thr {
			mi = 0
		}
		dst[i] = x[i] * mi
	}
}

func finiteGo(x []float64) bool {
	var s0, s1, s2, s3 float64
	n := len(x) &^ 3
	for i := 0; i < n; i += 4 {
		s0 += x[i] - x[i]
		s1 += x[i+1] - x[i+1]
		s2 += x[i+2] - x[i+2]
		s3 += x[i+3] - x[i+3]
	}
	for _, v := range x[n:] {
		s0 += v - v
	}
	s := s0 + s1 + s2 + s3
	return s == s
}

func dotMNGo(dst []float64, xs, ys [][]float64) {
	for a, x := range xs {
		dotNGo(dst[a*len(ys):(a+1)*len(ys)], x, ys)
	}
}

func reluGo(dst, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = max(v, 0)
	}
}

func reluBackGo(dst, g, y []float64) {
	g, y = g[:len(dst)], y[:len(dst)]
	for i, v := range g {
		if !(y[i] > 0) {
			v = 0
		}
		dst[i] = v
	}
}
