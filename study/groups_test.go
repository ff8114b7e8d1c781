package study

import (
	"math"
	"testing"
)

func TestPearsonOffDiag(t *testing.T) {
	a := [][]float64{{1, 0.2, 0.4}, {0.2, 1, 0.6}, {0.4, 0.6, 1}}
	b := [][]float64{{9, 1, 2}, {1, 9, 3}, {2, 3, 9}} // an affine image off the diagonal
	if r, ok := PearsonOffDiag(a, b); !ok || math.Abs(r-1) > 1e-12 {
		t.Errorf("r = %v, %v; want 1", r, ok)
	}
	neg := [][]float64{{0, -1, -2}, {-1, 0, -3}, {-2, -3, 0}}
	if r, ok := PearsonOffDiag(a, neg); !ok || math.Abs(r+1) > 1e-12 {
		t.Errorf("r = %v, %v; want -1", r, ok)
	}
	flat := [][]float64{{1, 0.5, 0.5}, {0.5, 1, 0.5}, {0.5, 0.5, 1}}
	if _, ok := PearsonOffDiag(a, flat); ok {
		t.Error("a constant matrix has a correlation")
	}
}

func TestMeanStd(t *testing.T) {
	m, s := MeanStd([]float64{80, 82, 84})
	if m != 82 || math.Abs(s-math.Sqrt(8.0/3)) > 1e-12 {
		t.Errorf("MeanStd = %v, %v; want 82, %v (population std)", m, s, math.Sqrt(8.0/3))
	}
}

// TestScoreGroupsPairs: the scores count the pairs they average, so that
// a reader tells a mean over no pair (0) from a mean of 0.
func TestScoreGroupsPairs(t *testing.T) {
	s := [][]float64{{1, 0.5, 0.2}, {0.5, 1, 0.2}, {0.2, 0.2, 1}}
	for _, c := range []struct {
		groups         []int
		within, across int
	}{{[]int{0, 0, 1}, 2, 4}, {[]int{0, 1, 2}, 0, 6}, {[]int{0, 0, 0}, 6, 0}} {
		if g := ScoreGroups("apv", s, c.groups); g.WithinPairs != c.within || g.AcrossPairs != c.across {
			t.Errorf("groups %v: %d within and %d across pairs, want %d and %d", c.groups, g.WithinPairs, g.AcrossPairs, c.within, c.across)
		}
	}
}
