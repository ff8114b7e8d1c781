package sim

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// accuracy returns the percentage of nodes in idx whose arg-max logit is
// their label; 0 for an empty idx.
func accuracy(logits *mat.Dense, labels, idx []int) float64 {
	if len(idx) == 0 {
		return 0
	}
	hit := 0
	for _, i := range idx {
		row := logits.RawRowView(i)
		best := 0
		for c, v := range row {
			if v > row[best] {
				best = c
			}
		}
		if best == labels[i] {
			hit++
		}
	}
	return 100 * float64(hit) / float64(len(idx))
}

// MeanRows returns the mean of the rows of m (mean pooling: a client's
// Update.Embedding is the mean of its embeddings).
func MeanRows(m *mat.Dense) []float64 {
	if m == nil {
		return nil
	}
	r, c := m.Dims()
	out := make([]float64, c)
	for i := 0; i < r; i++ {
		for j, v := range m.RawRowView(i) {
			out[j] += v
		}
	}
	for j := range out {
		out[j] /= float64(r)
	}
	return out
}

// Summary is the result of a run as docs/method.md#rounds-and-evaluation reports it: the mean
// test accuracy at the round with the highest mean validation accuracy
// (the first such round on ties).
type Summary struct {
	Rounds        int     `json:"rounds"`
	BestRound     int     `json:"best_round"`
	BestVal       float64 `json:"best_val"`
	TestAtBestVal float64 `json:"test_at_best_val"`
	FinalTest     float64 `json:"final_test"`
}

// Summarize computes the summary of a sequence of round reports.
func Summarize(reports []*RoundReport) Summary {
	s := Summary{Rounds: len(reports), BestVal: math.Inf(-1)}
	for _, r := range reports {
		if r.MeanVal > s.BestVal {
			s.BestRound, s.BestVal, s.TestAtBestVal = r.Round, r.MeanVal, r.MeanTest
		}
		s.FinalTest = r.MeanTest
	}
	if len(reports) == 0 {
		s.BestVal = 0
	}
	return s
}
