package sim

import (
	"math"
	"testing"
)

func TestAdjustedRand(t *testing.T) {
	tests := []struct {
		a, b []int
		want float64
	}{
		{[]int{0, 0, 1, 1}, []int{5, 5, 7, 7}, 1},
		{[]int{0, 0, 1, 1, 2, 2}, []int{0, 0, 1, 1, 2, 2}, 1},
		// sklearn.metrics.adjusted_rand_score([0,0,1,1],[0,1,0,1]) = -0.5
		{[]int{0, 0, 1, 1}, []int{0, 1, 0, 1}, -0.5},
		// sklearn: adjusted_rand_score([0,0,0,1,1,1],[0,0,1,1,2,2]) = 0.24242424...
		{[]int{0, 0, 0, 1, 1, 1}, []int{0, 0, 1, 1, 2, 2}, 0.24242424242424243},
	}
	for _, tt := range tests {
		if got := AdjustedRand(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("AdjustedRand(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	for _, ab := range [][2][]int{{{0, 1}, {0}}, {{0}, {0, 1}}} {
		if got := AdjustedRand(ab[0], ab[1]); !math.IsNaN(got) {
			t.Errorf("AdjustedRand(%v, %v) = %v, want NaN for labelings of different lengths", ab[0], ab[1], got)
		}
	}
}

func TestClusterSimilarityRecoversBlocks(t *testing.T) {
	groups := []int{0, 0, 1, 1, 1, 2, 2, 0}
	s := make([][]float64, len(groups))
	for i := range s {
		s[i] = make([]float64, len(groups))
		for j := range s[i] {
			s[i][j] = 0.1 + 0.01*float64((i*7+j*3)%5)
			if groups[i] == groups[j] {
				s[i][j] = 0.9
			}
		}
	}
	got := ClusterSimilarity(s, 3)
	if ari := AdjustedRand(got, groups); ari != 1 {
		t.Errorf("clusters %v for groups %v (ARI %v)", got, groups, ari)
	}
	w, a := GroupSeparation(s, groups)
	if math.Abs(w-0.9) > 1e-12 || a > 0.2 {
		t.Errorf("GroupSeparation = %v, %v", w, a)
	}
}
