package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestSeedsBounded: -seeds takes 1..10000 seeds whose last is a seed, in
// every command that runs seeds, refused before any run. A hundred
// billion seeds ran run out of memory (a runtime stack trace) and left
// similarity making cells until killed; -seed 18446744073709551615
// -seeds 2 ran seed 0 as the second.
func TestSeedsBounded(t *testing.T) {
	dir := t.TempDir()
	cmds := map[string]func([]string, io.Writer, io.Writer) error{
		"run": runCmd, "similarity": similarityCmd, "sweep": sweepCmd, "table": tableCmd,
		"convergence": convergenceCmd, "privacy": privacyCmd,
	}
	extra := map[string][]string{
		"run": {"-preset", "sbm"}, "similarity": {"-preset", "sbm"}, "sweep": {"-preset", "sbm", "-grid", "alpha=1,2"},
		"table": {"-datasets", "cora", "-clients", "5"}, "convergence": {"-preset", "sbm"}, "privacy": {"-preset", "sbm"},
	}
	for name, cmd := range cmds {
		for _, tt := range []struct {
			flags []string
			want  string
		}{
			{[]string{"-seeds", "100000000000"}, "-seeds: 100000000000, want 1..10000"},
			{[]string{"-seeds", "0"}, "-seeds: 0, want 1..10000"},
			{[]string{"-seed", "18446744073709551615", "-seeds", "2"}, "-seeds: 2 from -seed 18446744073709551615 would pass the largest seed, 18446744073709551615; lower -seed"},
		} {
			args := append(append([]string{"-rounds", "1", "-out", dir}, extra[name]...), tt.flags...)
			if name == "run" {
				args = append([]string{"-rounds", "1"}, append(extra[name], tt.flags...)...)
			}
			var stdout, stderr bytes.Buffer
			err := cmd(args, &stdout, &stderr)
			if err == nil || err.Error() != tt.want {
				t.Errorf("%s %v: error %v, want %q", name, tt.flags, err, tt.want)
			}
			if strings.Contains(stderr.String(), "seed ") {
				t.Errorf("%s %v: a run started:\n%s", name, tt.flags, stderr.String())
			}
		}
	}
}
