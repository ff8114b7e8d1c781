package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSweepCmd(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-preset", "sbm-gauss", "-rounds", "2", "-hidden", "8", "-grid", "alpha=0,10", "-algos", "fedaux,fedavg_mask", "-out", dir}
	if err := sweepCmd(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "4 runs (0 reused, 3 run now, 1 shares a run)") {
		t.Errorf("stdout %q: want 4 runs, fedavg_mask's two alphas one run", stdout.String())
	}
	for _, f := range []string{"sweep.md", "sbm-gauss-alpha.png", "results.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-grid", "alpha=1"}, "-preset or -scenario is required"},
		{[]string{"-preset", "sbm"}, "-grid is required"},
		{[]string{"-preset", "sbm", "-grid", "algo=fedavg"}, `"algo" cannot be swept`},
		{[]string{"-preset", "sbm", "-grid", "sigma=0,1", "-out", dir}, "-grid sigma: 0, want > 0"},
		{[]string{"-preset", "sbm", "-grid", "alpha=1", "-algos", "fedx"}, "-algos: fedx"},
		{[]string{"-preset", "sbm", "-grid", "alpha=1", "-shard", "2/2"}, "-shard: 2/2"},
		{[]string{"-preset", "sbm", "-grid", "alpha=1", "-log", "x"}, "not defined: -log"},
	} {
		err := sweepCmd(tt.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("sweep %v: %v, want an error with %q", tt.args, err, tt.want)
		}
	}
}
