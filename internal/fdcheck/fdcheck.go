package fdcheck

import "math"

// Grad returns the gradient of f at x by the five-point central difference
//
//	f'(x) ~ (f(x-2h) - 8 f(x-h) + 8 f(x+h) - f(x+2h)) / (12 h),
//
// perturbing x in place, one entry at a time, and restoring it. Its
// truncation error is O(h^4): a step of 1e-4 keeps both truncation and
// rounding near 1e-12.
func Grad(f func() float64, x []float64, h float64) []float64 {
	g := make([]float64, len(x))
	for i := range x {
		g[i] = partial(f, x, i, h)
	}
	return g
}

// GradAt is Grad at the entries idx of x only: element k of the result
// is the partial derivative in x[idx[k]].
func GradAt(f func() float64, x []float64, h float64, idx []int) []float64 {
	g := make([]float64, len(idx))
	for k, i := range idx {
		g[k] = partial(f, x, i, h)
	}
	return g
}

// partial is Grad's difference in x[i].
func partial(f func() float64, x []float64, i int, h float64) float64 {
	old := x[i]
	at := func(k float64) float64 {
		x[i] = old + k*h
		return f()
	}
	d := (at(-2) - 8*at(-1) + 8*at(1) - at(2)) / (12 * h)
	x[i] = old
	return d
}

// RelErr returns ||a - b|| / (||a|| + ||b||), 0 when both vanish.
func RelErr(a, b []float64) float64 {
	var d, na, nb float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 && nb == 0 {
		return 0
	}
	return math.Sqrt(d) / (math.Sqrt(na) + math.Sqrt(nb))
}
