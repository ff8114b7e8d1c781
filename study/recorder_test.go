package study

import (
	"strings"
	"testing"

	"github.com/fedaux/fedaux/sim"
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

// TestNilWriterRecorders: Lines with no W and Progress(nil) record
// nothing instead of panicking once the work has run.
func TestNilWriterRecorders(t *testing.T) {
	c := &Cell{}
	for _, r := range []Recorder{&Lines{}, Progress(nil, "x: ")} {
		r.Plan(Plan{Cells: 2, ToRun: 2})
		r.Start(1, 2, c, 0)
		r.Round(c, &sim.RoundReport{Round: 1}, sim.Summary{})
		r.Finish(1, 2, c, &Record{})
		r.End()
	}
}
