package privacy

import (
	"cmp"
	"math"
	"slices"
)

// AUC returns the area under the ROC curve of scores for the labels
// (true: positive), by the Mann–Whitney statistic
//
//	AUC = (R+ - n+ (n+ + 1) / 2) / (n+ n-),
//
// R+ the sum of the positives' ranks among all scores, tied scores
// sharing the mean of their ranks: a positive scored above a negative
// counts 1, a tie 1/2. It returns NaN when either class is empty.
func AUC(scores []float64, positive []bool) float64 {
	if len(scores) != len(positive) {
		panic("privacy: AUC: scores and labels differ in length")
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(scores[a], scores[b]) })
	var rankSum float64
	var pos, neg int
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && scores[idx[hi]] == scores[idx[lo]] {
			hi++
		}
		mid := float64(lo+1+hi) / 2 // ranks lo+1 .. hi, averaged
		for _, i := range idx[lo:hi] {
			if positive[i] {
				rankSum += mid
				pos++
			} else {
				neg++
			}
		}
		lo = hi
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	p, n := float64(pos), float64(neg)
	return (rankSum - p*(p+1)/2) / (p * n)
}
