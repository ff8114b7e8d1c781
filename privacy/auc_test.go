package privacy

import (
	"math"
	"testing"
)

// TestAUC checks AUC against values worked by hand: perfect and reversed
// rankings, ties between classes (each tied pair counts 1/2), ties
// within a class (no effect), all scores tied, and empty classes.
func TestAUC(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scores []float64
		pos    []bool
		want   float64
	}{
		{"perfect", []float64{0.9, 0.8, 0.2, 0.1}, []bool{true, true, false, false}, 1},
		{"reversed", []float64{0.1, 0.2, 0.8, 0.9}, []bool{true, true, false, false}, 0},
		// Pairs (p, n): (3,1) 1, (3,2) 1, (1,1) 1/2, (1,2) 0 -> 2.5/4.
		{"tie across classes", []float64{3, 1, 1, 2}, []bool{true, true, false, false}, 0.625},
		// Positives 0.5, 0.7, 0.7; negatives 0.6, 0.7, 0.1, 0.7: pairs won
		// 0.5: 1 (0.1); 0.7: 2 wins (0.6, 0.1) + 2 ties each -> 3 -> 1+3+3 = 7 of 12.
		{"ties in both", []float64{0.5, 0.7, 0.7, 0.6, 0.7, 0.1, 0.7}, []bool{true, true, true, false, false, false, false}, 7.0 / 12},
		{"ties within a class", []float64{2, 2, 1, 1}, []bool{true, true, false, false}, 1},
		{"all tied", []float64{5, 5, 5, 5, 5}, []bool{true, false, true, false, false}, 0.5},
		{"one pair", []float64{-1, 4}, []bool{false, true}, 1},
	} {
		if got := AUC(tc.scores, tc.pos); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: AUC = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := AUC([]float64{1, 2}, []bool{true, true}); !math.IsNaN(got) {
		t.Errorf("no negatives: AUC = %v, want NaN", got)
	}
	if got := AUC(nil, nil); !math.IsNaN(got) {
		t.Errorf("no scores: AUC = %v, want NaN", got)
	}
}

// TestAUCMatchesPairCount checks AUC against the direct count of pairs
// (a positive above a negative 1, a tie 1/2) on scores with many ties.
func TestAUCMatchesPairCount(t *testing.T) {
	scores := make([]float64, 60)
	pos := make([]bool, 60)
	for i := range scores {
		scores[i] = float64((i * 7) % 5)
		pos[i] = (i*11)%3 == 0
	}
	var won, pairs float64
	for i := range scores {
		for j := range scores {
			if pos[i] && !pos[j] {
				pairs++
				switch {
				case scores[i] > scores[j]:
					won++
				case scores[i] == scores[j]:
					won += 0.5
				}
			}
		}
	}
	if got, want := AUC(scores, pos), won/pairs; math.Abs(got-want) > 1e-12 {
		t.Errorf("AUC = %v, pair count %v", got, want)
	}
}
