package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvergenceCmd runs a short convergence study on sbm, then renders
// it again without running, and refuses bad flags.
func TestConvergenceCmd(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-preset", "sbm", "-hidden", "8", "-rounds", "3", "-seeds", "1", "-algos", "fedaux,fedavg", "-workers", "2", "-out", dir}
	if err := convergenceCmd(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "2 runs (0 reused, 2 run now)") {
		t.Errorf("stdout %q", stdout.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "convergence.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| sbm | fedaux | 42 |", "| sbm | fedavg | 42 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "convergence-sbm.png")); err != nil {
		t.Error(err)
	}
	if err := convergenceCmd(append(args, "-render"), &stdout, &stderr); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{{"-algos", "fedaux"}, {"-preset", "sbm", "-within", "0"}, {"-preset", "sbm", "-within", "NaN"}, {"-preset", "sbm", "-within", "Inf"}, {"-preset", "sbm", "-algos", "nope"}, {"-preset", "sbm", "-reuse", filepath.Join(dir, "none"), "-out", t.TempDir()}} {
		if err := convergenceCmd(bad, &stdout, &stderr); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
