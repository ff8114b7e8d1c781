package sim

import (
	"math"
	"testing"
)

func TestAlphaForPartners(t *testing.T) {
	rows := [][]float64{
		{1, 0.9, 0.5, 0.1, -0.2, 0.3},
		{1, 0.999999, 0.999998, 0.999990, 0.999995, 0.999997}, // nearly equal, as APV cosines are
	}
	for _, s := range rows {
		for _, target := range []float64{1.5, 2, 3, 4.5} {
			a := alphaForPartners(s, target)
			got := effectivePartners(softmaxRows([][]float64{s}, a)[0])
			if math.Abs(got-target) > 1e-6 {
				t.Errorf("s %v target %v: alpha %v gives %v partners", s[:3], target, a, got)
			}
		}
		if a := alphaForPartners(s, 6); a != 0 {
			t.Errorf("target K: alpha %v, want 0 (uniform)", a)
		}
	}
	// All similarities equal: no alpha reaches fewer than K partners.
	if a := alphaForPartners([]float64{1, 1, 1}, 2); a != maxAutoAlpha {
		t.Errorf("constant row: alpha %v, want the cap", a)
	}
	if p := effectivePartners([]float64{0.25, 0.25, 0.25, 0.25}); math.Abs(p-4) > 1e-12 {
		t.Errorf("uniform 4: %v partners", p)
	}
}
