package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
