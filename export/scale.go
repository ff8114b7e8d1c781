package export

import (
	"math"
	"strconv"

	"github.com/fedaux/fedaux/sim"
)

// Kind says what the entries of a client matrix are, which fixes the
// matrix's raw colour scale.
type Kind = sim.MatrixKind

// The kinds, as sim names them.
const (
	Cosine    = sim.KindCosine    // cosine similarities, in [-1, 1]
	AbsCosine = sim.KindAbsCosine // absolute cosines (the pc1 signature), in [0, 1]
	Weights   = sim.KindWeights   // mixing weights, in [0, 1]
)

// Scale is the range of values that a heat map's colours span; values
// outside it take the colour of the nearer end.
type Scale struct {
	Lo, Hi float64
	// Stretched is true for a scale over the matrix's off-diagonal range,
	// false for the fixed range of the matrix's kind.
	Stretched bool
}

// RawScale returns the fixed scale of kind k: [-1, 1] for cosines,
// [0, 1] for absolute cosines and weights. On it, 0.99993 and 1 look the
// same, as they nearly are.
func RawScale(k Kind) Scale {
	if k == Cosine {
		return Scale{Lo: -1, Hi: 1}
	}
	return Scale{Lo: 0, Hi: 1}
}

// StretchedScale returns the scale over m's off-diagonal range, which
// makes tiny differences between clients visible; for a matrix without
// off-diagonal entries, over its whole range.
func StretchedScale(m [][]float64) Scale {
	lo, hi, ok := OffDiagRange(m)
	if !ok {
		lo, hi = Range(m)
	}
	return Scale{Lo: lo, Hi: hi, Stretched: true}
}

// Name is "raw" or "stretched".
func (s Scale) Name() string {
	if s.Stretched {
		return "stretched"
	}
	return "raw"
}

// Labels formats the scale's ends: as plain numbers for a raw scale, and
// with RangeLabels for a stretched one.
func (s Scale) Labels() (lo, hi string) {
	if s.Stretched {
		return RangeLabels(s.Lo, s.Hi)
	}
	return strconv.FormatFloat(s.Lo, 'g', -1, 64), strconv.FormatFloat(s.Hi, 'g', -1, 64)
}

// Range returns the smallest and largest finite entries of m (0, 0 when
// there are none).
func Range(m [][]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range m {
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		return 0, 0
	}
	return lo, hi
}

// OffDiagRange returns the smallest and largest finite entries of m off
// its diagonal; ok is false when there are none (fewer than two clients).
func OffDiagRange(m [][]float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, row := range m {
		for j, v := range row {
			if i == j || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		return 0, 0, false
	}
	return lo, hi, true
}

// WeightSpread returns the largest off-diagonal mixing weight divided by
// the smallest (1 for uniform weights, +Inf when some pair gets none);
// ok is false when w has no off-diagonal entries.
func WeightSpread(w [][]float64) (ratio float64, ok bool) {
	lo, hi, ok := OffDiagRange(w)
	switch {
	case !ok:
		return 0, false
	case lo <= 0:
		return math.Inf(1), true
	}
	return hi / lo, true
}

// RangeLabels formats the ends of a range with as few significant digits
// (at least 3) as keep each within 5 % of the range's width of its value.
func RangeLabels(lo, hi float64) (string, string) {
	tol := 0.05 * (hi - lo)
	var a, b string
	for p := 3; p <= 12; p++ {
		a, b = strconv.FormatFloat(lo, 'g', p, 64), strconv.FormatFloat(hi, 'g', p, 64)
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		if math.Abs(x-lo) <= tol && math.Abs(y-hi) <= tol {
			break
		}
	}
	return a, b
}
