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
		l.Plan(Plan{Cells: cells, Mine: cells, SkippedLines: map[string]SkippedLines{"results.jsonl": {Torn: 2}, "results-shard-1-of-2.jsonl": {}}})
		out := b.String()
		if !strings.Contains(out, "table: results.jsonl: 2 line(s) did not parse") || strings.Contains(out, "shard-1") {
			t.Errorf("%d cells: %q", cells, out)
		}
	}
}
