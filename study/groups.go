package study

import (
	"encoding/json"
	"math"

	"github.com/fedaux/fedaux/sim"
	"gonum.org/v1/gonum/stat"
)

// GroupScore says how well a similarity matrix separates a scenario's
// true client groups.
type GroupScore struct {
	Source string  `json:"source"`
	Within float64 `json:"within"` // mean similarity within groups (off-diagonal)
	Across float64 `json:"across"` // mean similarity across groups
	// ARI is the adjusted Rand index of average-linkage clustering of the
	// matrix into as many clusters as there are groups.
	ARI float64 `json:"ari"`
	Min float64 `json:"min_offdiag"`
	Max float64 `json:"max_offdiag"`
	// WithinPairs and AcrossPairs count the ordered pairs of clients
	// that Within and Across average: 0 when every group has one client,
	// or there is one group, and then the mean (0) and the ARI mean
	// nothing.
	WithinPairs int `json:"within_pairs"`
	AcrossPairs int `json:"across_pairs"`
}

// ScoreGroups scores matrix s, named source, against the true groups.
func ScoreGroups(source string, s [][]float64, groups []int) GroupScore {
	r := GroupScore{Source: source, Min: math.Inf(1), Max: math.Inf(-1)}
	r.Within, r.Across = sim.GroupSeparation(s, groups)
	for i := range groups {
		for j := range groups {
			switch {
			case i == j:
			case groups[i] == groups[j]:
				r.WithinPairs++
			default:
				r.AcrossPairs++
			}
		}
	}
	k := 0
	for _, g := range groups {
		k = max(k, g+1)
	}
	r.ARI = sim.AdjustedRand(sim.ClusterSimilarity(s, k), groups)
	for i := range s {
		for j := range s[i] {
			if i != j {
				r.Min, r.Max = math.Min(r.Min, s[i][j]), math.Max(r.Max, s[i][j])
			}
		}
	}
	return r
}

// LastRoundGroups scores the last round's matrices against the true
// groups; nil when the scenario has none.
func LastRoundGroups(e *sim.Engine) []GroupScore {
	groups := e.Data().Groups
	reps := e.Reports()
	if groups == nil || len(reps) == 0 {
		return nil
	}
	var out []GroupScore
	for _, m := range reps[len(reps)-1].Matrices() {
		out = append(out, ScoreGroups(m.Name, m.M, groups))
	}
	return out
}

// PearsonOffDiag returns the Pearson correlation of the off-diagonal
// entries of a and b, and false when either has no variance there.
func PearsonOffDiag(a, b [][]float64) (float64, bool) {
	var xs, ys []float64
	for i := range a {
		for j := range a[i] {
			if i != j {
				xs, ys = append(xs, a[i][j]), append(ys, b[i][j])
			}
		}
	}
	if len(xs) < 2 || stat.Variance(xs, nil) == 0 || stat.Variance(ys, nil) == 0 {
		return 0, false
	}
	return stat.Correlation(xs, ys, nil), true
}

// MeanStd returns the mean and the population standard deviation of xs
// (numpy's default, ddof 0, as the papers' tables use); 0, 0 for none.
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	return stat.PopMeanStdDev(xs, nil)
}

// SetExtra stores v as the record's Extra.
func SetExtra(r *Record, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	r.Extra = b
	return nil
}

// Extra decodes the record's Extra into v; it leaves v alone when there is none.
func Extra(r *Record, v any) error {
	if len(r.Extra) == 0 {
		return nil
	}
	return json.Unmarshal(r.Extra, v)
}
