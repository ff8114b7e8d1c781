package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderRefusesNothing: sweep, convergence and privacy -render refuse
// as table -render does: flags that match none of the directory's runs
// (they replaced the finished report with an empty one and exited 0), a
// directory that is not there (sweep -render made it) and a file; and
// they say which results lines were skipped.
func TestRenderRefusesNothing(t *testing.T) {
	for _, tt := range []struct {
		name, md string
		cmd      func([]string, io.Writer, io.Writer) error
		args     []string
		runs     int
	}{
		{"sweep", "sweep.md", sweepCmd, []string{"-preset", "sbm", "-set", "nodes=600", "-grid", "alpha=1,10", "-algos", "fedaux"}, 2},
		{"convergence", "convergence.md", convergenceCmd, []string{"-preset", "sbm", "-set", "nodes=600", "-algos", "fedaux"}, 1},
		{"privacy", "privacy.md", privacyCmd, []string{"-preset", "sbm", "-set", "nodes=600", "-algos", "fedavg"}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			flags := func(rounds, out string, more ...string) []string {
				return append(append([]string{"-hidden", "8", "-rounds", rounds, "-seeds", "1", "-workers", "1", "-out", out}, tt.args...), more...)
			}
			var stdout, stderr bytes.Buffer
			if err := tt.cmd(flags("2", dir), &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, &stderr)
			}
			md := filepath.Join(dir, tt.md)
			before, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.cmd(flags("2", dir, "-render"), &stdout, &stderr); err != nil {
				t.Errorf("-render with the runs' flags: %v", err)
			}
			err = tt.cmd(flags("3", dir, "-render"), &stdout, &stderr) // none stored
			if want := "holds none of the " + map[int]string{1: "1", 2: "2"}[tt.runs] + " runs"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("-render with other settings: %v, want an error with %q", err, want)
			}
			if after, _ := os.ReadFile(md); !bytes.Equal(after, before) {
				t.Errorf("the report changed:\n%s", after)
			}
			missing := filepath.Join(dir, "none")
			if err := tt.cmd(flags("2", missing, "-render"), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-out "+missing+": no such directory") {
				t.Errorf("-render into %s: %v", missing, err)
			}
			if _, err := os.Stat(missing); err == nil {
				t.Errorf("-render made %s", missing)
			}
			if err := tt.cmd(flags("2", md, "-render"), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-out "+md+": not a directory") {
				t.Errorf("-render into the file %s: %v", md, err)
			}
			f, err := os.OpenFile(filepath.Join(dir, "results.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"key":"x","scen`)
			f.Close()
			stderr.Reset()
			if err := tt.cmd(flags("2", dir, "-render"), &stdout, &stderr); err != nil {
				t.Errorf("-render with a torn line: %v", err)
			}
			if want := tt.name + ": results.jsonl: 1 line(s) did not parse"; !strings.Contains(stderr.String(), want) {
				t.Errorf("-render with a torn line said %q, want %q", stderr.String(), want)
			}
		})
	}
}
