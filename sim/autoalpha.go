package sim

import "math"

// effectivePartners returns exp of the entropy of a row of mixing weights:
// K for uniform weights, 1 when all weight sits on one client.
func effectivePartners(w []float64) float64 {
	var h float64
	for _, v := range w {
		if v > 0 {
			h -= v * math.Log(v)
		}
	}
	return math.Exp(h)
}

// Bounds of the auto-alpha search. Similarities can differ by 1e-6 or
// less, so alpha may need to be very large to separate them.
const (
	minAutoAlpha = 1e-6
	maxAutoAlpha = 1e15
)

// alphaForPartners returns the alpha >= 0 for which the row
// softmax(alpha * s) has the target effective number of partners. The
// entropy of softmax(alpha s) falls monotonically as alpha grows
// (dH/dalpha = -alpha Var(s)), so bisection on log alpha finds it. It
// returns 0 when the target is at least len(s), and maxAutoAlpha when the
// target lies below what any alpha reaches (ties at the maximum).
func alphaForPartners(s []float64, target float64) float64 {
	if target >= float64(len(s)) {
		return 0
	}
	row := [][]float64{s}
	partners := func(alpha float64) float64 { return effectivePartners(softmaxRows(row, alpha)[0]) }
	if partners(maxAutoAlpha) > target {
		return maxAutoAlpha
	}
	if partners(minAutoAlpha) <= target {
		return minAutoAlpha
	}
	lo, hi := math.Log(minAutoAlpha), math.Log(maxAutoAlpha)
	for i := 0; i < 200 && hi-lo > 1e-12; i++ {
		mid := (lo + hi) / 2
		if partners(math.Exp(mid)) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}
