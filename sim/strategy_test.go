package sim

import (
	"math"
	"slices"
	"testing"
)

func TestSoftmaxRows(t *testing.T) {
	s := [][]float64{{1, 0.5, -1}, {0.5, 1, 0}, {-1, 0, 1}}
	for _, alpha := range []float64{0, 0.1, 1, 10, 1000} {
		w := softmaxRows(s, alpha)
		for i, row := range w {
			var sum float64
			for j, v := range row {
				if v < 0 || math.IsNaN(v) {
					t.Fatalf("alpha %v: w[%d][%d] = %v", alpha, i, j, v)
				}
				sum += v
				if alpha == 0 && math.Abs(v-1.0/3) > 1e-15 {
					t.Errorf("alpha 0: w[%d][%d] = %v, want uniform 1/3", i, j, v)
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("alpha %v: row %d sums to %v", alpha, i, sum)
			}
			if alpha > 0 && row[i] < row[(i+1)%3] {
				t.Errorf("alpha %v: row %d gives self (sim 1) less weight than another", alpha, i)
			}
		}
	}
	// Eq. 4 by hand for one entry.
	w := softmaxRows(s, 2)
	want := math.Exp(2*0.5) / (math.Exp(2) + math.Exp(1) + math.Exp(-2))
	if math.Abs(w[0][1]-want) > 1e-15 {
		t.Errorf("w[0][1] = %v, want %v", w[0][1], want)
	}
}

func TestCosineMatrix(t *testing.T) {
	m := cosineMatrix([][]float64{{1, 0}, {1, 1}, {0, 0}, {-2, 0}})
	want := [][]float64{
		{1, 1 / math.Sqrt2, 0, -1},
		{1 / math.Sqrt2, 1, 0, -1 / math.Sqrt2},
		{0, 0, 1, 0},
		{-1, -1 / math.Sqrt2, 0, 1},
	}
	for i := range want {
		for j := range want[i] {
			if math.Abs(m[i][j]-want[i][j]) > 1e-15 {
				t.Errorf("m[%d][%d] = %v, want %v", i, j, m[i][j], want[i][j])
			}
		}
	}
}

func TestMixMatchesEq6(t *testing.T) {
	const k, n = 3, 3*mixChunk + 17
	ups := make([]*Update, k)
	for i := range ups {
		ups[i] = &Update{ClientMetrics: ClientMetrics{ID: i}, Shared: make([]float64, n)}
		for j := range ups[i].Shared {
			ups[i].Shared[j] = math.Sin(float64(i*n + j))
		}
	}
	w := softmaxRows([][]float64{{1, 0.2, 0.3}, {0.2, 1, -0.5}, {0.3, -0.5, 1}}, 3)
	orig := make([][]float64, k)
	for i, u := range ups {
		orig[i] = slices.Clone(u.Shared)
	}
	for _, workers := range []int{1, 2, 7} {
		for i, u := range ups {
			copy(u.Shared, orig[i]) // mix overwrites the updates
		}
		msgs := mix(ups, w, workers)
		for i := 0; i < k; i++ {
			if &msgs[i].Shared[0] != &ups[i].Shared[0] {
				t.Fatalf("client %d's message is not its update's vector, mixed in place", i)
			}
			for j := 0; j < n; j++ {
				var want float64
				for l := 0; l < k; l++ {
					want += w[i][l] * orig[l][j]
				}
				if msgs[i].Shared[j] != want {
					t.Fatalf("workers %d: client %d entry %d = %v, want %v (bit-identical)", workers, i, j, msgs[i].Shared[j], want)
				}
			}
		}
	}
	if mix(ups, nil, 2) != nil {
		t.Error("nil weights (no communication) should give no messages")
	}
}

func TestSummarizeFirstBestOnTies(t *testing.T) {
	reps := []*RoundReport{
		{Round: 1, MeanVal: 50, MeanTest: 40},
		{Round: 2, MeanVal: 70, MeanTest: 61},
		{Round: 3, MeanVal: 70, MeanTest: 65},
		{Round: 4, MeanVal: 60, MeanTest: 66},
	}
	s := Summarize(reps)
	if s.BestRound != 2 || s.TestAtBestVal != 61 || s.BestVal != 70 || s.FinalTest != 66 || s.Rounds != 4 {
		t.Errorf("Summarize = %+v, want best round 2 (first of the tie), test 61, final 66", s)
	}
}

func TestValidateKnob(t *testing.T) {
	tests := []struct {
		name Knob
		v    float64
		ok   bool
	}{
		{"alpha", 0, true}, {"alpha", 10, true}, {"alpha", -0.1, false}, {"alpha", math.NaN(), false},
		{"sigma", 1, true}, {"sigma", 0, false}, {"sigma", -1, false}, {"sigma", math.Inf(1), false},
		{"beta", 1, false},
	}
	for _, tt := range tests {
		if err := ValidateKnob(tt.name, tt.v, 0); (err == nil) != tt.ok {
			t.Errorf("ValidateKnob(%s, %v) = %v, want ok=%v", tt.name, tt.v, err, tt.ok)
		}
	}
}

func TestStreamsIndependent(t *testing.T) {
	a, b := Stream(1, "dropout", 0).Uint64(), Stream(1, "dropout", 1).Uint64()
	c, d := Stream(1, "init", 0).Uint64(), Stream(1, "dropout", 0).Uint64()
	if a == b || a == c || a != d {
		t.Errorf("streams: %x %x %x %x; want distinct per purpose/index and repeatable", a, b, c, d)
	}
}
