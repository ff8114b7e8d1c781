package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/internal/datadir"
	"github.com/fedaux/fedaux/study"
)

// needData skips (or, under CI, fails) when the real datasets are absent.
func needData(t *testing.T) {
	t.Helper()
	// The tests' data directory (skipped without it, failed when CI is
	// set), made the commands' default for the test.
	t.Setenv("FEDAUX_DATA", filepath.Dir(datadir.File(t, "cora.npz")))
}

// stripVolatile removes the wall-clock fields and the worker count from
// JSON lines, which legitimately differ between otherwise identical runs.
func stripVolatile(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line does not parse: %v: %.80s", err, line)
		}
		for _, k := range []string{"seconds", "started", "workers", "median_round_seconds"} {
			delete(m, k)
		}
		out = append(out, m)
	}
	return out
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := runCmd(args, &stdout, &stderr); err != nil {
		t.Fatalf("fedaux run %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}

func lastLine(s string) []byte {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return []byte(lines[len(lines)-1])
}

func TestRunDeterministicAcrossWorkersAndRepeats(t *testing.T) {
	needData(t)
	dir := t.TempDir()
	var logs [][]map[string]any
	var sums [][]map[string]any
	for i, w := range []string{"1", "8", "8"} {
		log := filepath.Join(dir, "run"+string(rune('a'+i))+".jsonl")
		out := runOK(t, "-preset", "cora-10-ref", "-rounds", "4", "-workers", w, "-log", log, "-json")
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, stripVolatile(t, b))
		sums = append(sums, stripVolatile(t, lastLine(out)))
	}
	for i := 1; i < 3; i++ {
		a, _ := json.Marshal(logs[0])
		b, _ := json.Marshal(logs[i])
		if !bytes.Equal(a, b) {
			t.Errorf("log of run %d differs from run 0 (workers 1 vs 8)", i)
		}
		a, _ = json.Marshal(sums[0])
		b, _ = json.Marshal(sums[i])
		if !bytes.Equal(a, b) {
			t.Errorf("JSON summary of run %d differs: %s vs %s", i, a, b)
		}
	}
	if n := len(logs[0]); n != 6 {
		t.Errorf("log has %d lines, want run + 4 rounds + summary", n)
	}
	if logs[0][0]["type"] != "run" || logs[0][0]["data"] == nil {
		t.Errorf("first log line %v: want the run line with data checksums", logs[0][0])
	}
}

func TestRunErrorsNameTheFlag(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-preset", "nope"}, "-preset"},
		{[]string{"-preset", "sbm", "-algo", "fedsgd"}, "-algo"},
		{[]string{"-preset", "sbm", "-sigma", "0"}, "-sigma"},
		{[]string{"-preset", "sbm", "-alpha", "-1"}, "-alpha"},
		{[]string{"-preset", "sbm", "-score", "dot"}, "-score"},
		{[]string{"-preset", "sbm", "-seeds", "0"}, "-seeds"},
		{[]string{"-preset", "cora-10-ref", "-data", "/nonexistent"}, "cora.npz not found"},
		{[]string{}, "-scenario FILE is required"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := runCmd(tt.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run %v: error %v, want one mentioning %q", tt.args, err, tt.want)
		}
	}
}

func TestRunSBMReportsGroups(t *testing.T) {
	out := runOK(t, "-preset", "sbm", "-rounds", "2", "-hidden", "16", "-json")
	var s study.SeedSummary
	if err := json.Unmarshal(lastLine(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Groups) != 1 || len(s.Groups[0]) != 6 {
		t.Fatalf("groups report %v: want apv, apv-delta, pc1, readout, weights and ground truth for one seed", s.Groups)
	}
	if s.TestAtBestVal[0] <= 0 || s.BestRound[0] < 1 {
		t.Errorf("summary %+v", s)
	}
}
