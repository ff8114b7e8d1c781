package study

import (
	"strings"
	"testing"
)

// TestLinesPlanTorn: the plan names every results file with lines that
// did not parse, whatever the number of cells, and no other.
func TestLinesPlanTorn(t *testing.T) {
	for _, cells := range []int{1, 4} {
		var b strings.Builder
		l := &Lines{W: &b, Prefix: "table: "}
		l.Plan(Plan{Cells: cells, Mine: cells, Torn: map[string]int{"results.jsonl": 2, "results-shard-1-of-2.jsonl": 0}})
		out := b.String()
		if !strings.Contains(out, "table: results.jsonl: 2 line(s) did not parse") || strings.Contains(out, "shard-1") {
			t.Errorf("%d cells: %q", cells, out)
		}
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
