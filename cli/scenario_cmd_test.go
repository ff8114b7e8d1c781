package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarioCheckRefusesWhatRunsRefuse: scenario check says ok only of
// a scenario a run takes: one whose clients lack test nodes, or whose
// metric its labels cannot give, fails it as it fails the run (it said
// ok).
func TestScenarioCheckRefusesWhatRunsRefuse(t *testing.T) {
	dir := t.TempDir()
	const sbm = "graph = \"sbm\"\nclients = 4\n[sbm]\nnodes = 200\ngroups = 2\nintra = [0.2, 0.6]\n"
	for _, c := range []struct{ name, text, want string }{
		{"ok", sbm, "ok: 4 clients"},
		{"notest", sbm + "[split]\ntest = 0.02\n", "has no test node"},
		{"roc", "metric = \"rocauc\"\n" + sbm + "classes = 3\n", "metric rocauc needs a binary task"},
	} {
		path := filepath.Join(dir, c.name+".toml")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := scenarioCmd([]string{"check", path}, &stdout, &stderr)
		if (err == nil) != (c.name == "ok") || !strings.Contains(stdout.String(), c.want) {
			t.Errorf("%s: %v, output %q, want %q", c.name, err, stdout.String(), c.want)
		}
	}
}
