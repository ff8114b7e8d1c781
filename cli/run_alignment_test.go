package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/study"
)

// TestRunAlignmentFlag checks that run -alignment writes every client's
// alignment, in [0, 1], in the log's round lines, and that without it the
// field is absent.
func TestRunAlignmentFlag(t *testing.T) {
	for _, on := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "log.jsonl")
		args := []string{"-preset", "sbm", "-rounds", "2", "-hidden", "8", "-workers", "2", "-log", path}
		if on {
			args = append(args, "-alignment")
		}
		var stdout, stderr bytes.Buffer
		if err := runCmd(args, &stdout, &stderr); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rounds := 0
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct {
				Type    string
				Clients []map[string]any
			}
			if !strings.HasPrefix(line, `{"type":"round"`) {
				continue
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			rounds++
			for _, c := range r.Clients {
				a, ok := c["alignment"].(float64)
				if ok != on || on && (a < 0 || a > 1) {
					t.Errorf("-alignment %v: client %v alignment %v (present %v)", on, c["id"], c["alignment"], ok)
				}
			}
		}
		if rounds != 2 {
			t.Errorf("%d round lines, want 2", rounds)
		}
	}
}

// TestPrintGroupsNoPairs: a score over no pair of clients is n/a, not 0
// (within, when every group has one client; across, with one group), and
// so are the difference and the clustering's ARI then.
func TestPrintGroupsNoPairs(t *testing.T) {
	for _, c := range []struct {
		groups    []int
		want, ari string
	}{
		{[]int{0, 0, 1, 1}, "within-group 0.500000  across 0.250000  diff 0.25", "ARI 1.000"},
		{[]int{0, 1, 2, 3}, "within-group n/a  across 0.250000  diff n/a", "ARI n/a"},
		{[]int{0, 0, 0, 0}, "within-group 0.500000  across n/a  diff n/a", "ARI n/a"},
	} {
		s := [][]float64{{1, 0.5, 0.25, 0.25}, {0.5, 1, 0.25, 0.25}, {0.25, 0.25, 1, 0.5}, {0.25, 0.25, 0.5, 1}}
		g := study.ScoreGroups("apv", s, c.groups)
		g.Within, g.Across, g.ARI = 0.5, 0.25, 1 // the line's format, whatever the groups
		var b strings.Builder
		printGroups(&b, 3, []study.GroupScore{g})
		out := b.String()
		if !strings.Contains(out, c.want) || !strings.Contains(out, c.ari) {
			t.Errorf("groups %v: %q, want %q", c.groups, out, c.want)
		}
	}
}
