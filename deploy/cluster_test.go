package deploy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// proc is a started process of the binary or a recipe.
type proc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
}

// start starts name with args and the scheduler variables env (none
// leaking in from the machine running the test).
func start(t *testing.T, env []string, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...)}
	p.cmd.Env = os.Environ()
	for _, v := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX", "FEDAUX_SHARD_COUNT"} {
		p.cmd.Env = append(p.cmd.Env, v+"=")
	}
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// wait returns the process's exit status.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// keys returns the distinct run keys in the results files of dir, and
// the number of lines, so that a run stored twice shows.
func keys(t *testing.T, dir string) (map[string]bool, int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "results*.jsonl"))
	seen, lines := map[string]bool{}, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l == "" {
				continue
			}
			var r struct{ Key string }
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%s: a line does not parse: %v", f, err)
			}
			seen[r.Key] = true
			lines++
		}
	}
	return seen, lines
}

// concurrently starts the shards of one study at the same moment into a
// fresh directory, trials times: every shard must exit 0, every run be
// stored once, and the report rendered last hold every run.
func concurrently(t *testing.T, bin string, env []string, shards, runs int, report, complete string, args func(dir string, i int) []string) {
	t.Helper()
	trials := 6
	if testing.Short() {
		trials = 2
	}
	for trial := range trials {
		dir := filepath.Join(t.TempDir(), "study")
		var wg sync.WaitGroup
		ps := make([]*proc, shards)
		gate := make(chan struct{})
		for i := range shards {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				ps[i] = start(t, env, bin, args(dir, i)...)
			}()
		}
		close(gate)
		wg.Wait()
		for i, p := range ps {
			if code := p.wait(t); code != 0 {
				t.Errorf("trial %d: shard %d/%d exit %d\n%s", trial, i, shards, code, p.stderr.String())
			}
		}
		got, lines := keys(t, dir)
		if len(got) != runs || lines != runs {
			t.Errorf("trial %d: %d runs stored in %d lines, want %d once each", trial, len(got), lines, runs)
		}
		b, err := os.ReadFile(filepath.Join(dir, report))
		if err != nil || !strings.Contains(string(b), complete) {
			t.Errorf("trial %d: %s lacks %q (%v):\n%s", trial, report, complete, err, b)
		}
		if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
			t.Errorf("trial %d: temporary files left: %v", trial, tmp)
		}
	}
}

// TestConcurrentTableShards is the race the fixed temporary name of the
// report lost: four shards of a four-run table started at once.
func TestConcurrentTableShards(t *testing.T) {
	data := dataDir(t)
	bin := build(t)
	concurrently(t, bin, []string{"FEDAUX_DATA=" + data}, 4, 4, "table1.md", "Runs finished: 4 of 4.", func(dir string, i int) []string {
		return []string{"table", "-datasets", "cora", "-clients", "5", "-algos", "local,fedavg", "-seeds", "2", "-rounds", "2", "-hidden", "8",
			"-workers", "1", "-out", dir, "-shard", strconv.Itoa(i) + "/4"}
	})
}

// TestConcurrentSweepShards: the same for a sweep, on a synthetic preset.
func TestConcurrentSweepShards(t *testing.T) {
	bin := build(t)
	concurrently(t, bin, nil, 3, 6, "sweep.md", "Runs finished: 6 of 6.", func(dir string, i int) []string {
		return []string{"sweep", "-preset", "sbm", "-grid", "alpha=1,10,100", "-algos", "fedaux", "-seeds", "2", "-rounds", "2", "-hidden", "8",
			"-workers", "1", "-out", dir, "-shard", strconv.Itoa(i) + "/3"}
	})
}

// slurmEnv is a task of a Slurm job array, as sbatch sets it.
func slurmEnv(id, count, min, step int) []string {
	return []string{"SLURM_ARRAY_TASK_ID=" + strconv.Itoa(id), "SLURM_ARRAY_TASK_COUNT=" + strconv.Itoa(count),
		"SLURM_ARRAY_TASK_MIN=" + strconv.Itoa(min), "SLURM_ARRAY_TASK_STEP=" + strconv.Itoa(step), "SLURM_CPUS_PER_TASK=1"}
}

// TestSlurmResubmitAndExitCodes plays what a cluster user does after the
// first array: resubmits one task alone, runs on a node without the
// data, and checkpoints before a time limit.
func TestSlurmResubmitAndExitCodes(t *testing.T) {
	data := dataDir(t)
	bin := build(t)
	out := t.TempDir()
	common := []string{"FEDAUX=" + bin, "FEDAUX_OUT=" + out, "FEDAUX_DATA=" + data}
	flags := []string{"-datasets", "cora", "-clients", "5", "-algos", "local,fedavg,fedaux", "-seeds", "1", "-rounds", "2", "-hidden", "8"}
	recipe := append([]string{"slurm-table.sh"}, flags...)

	// sbatch --array=0-4:2: tasks 0, 2 and 4 are shards 0, 1 and 2.
	for _, id := range []int{0, 2, 4} {
		p := start(t, append(common, slurmEnv(id, 3, 0, 2)...), "bash", recipe...)
		if code := p.wait(t); code != 0 {
			t.Fatalf("task %d: exit %d\n%s", id, code, p.stderr.String())
		}
	}
	shardFiles(t, out, 3)
	// A task resubmitted alone (sbatch --array=2) is shard 1 of 3 again:
	// it finds its run done and computes nothing, where it used to become
	// shard 0 of 1 and run the whole table.
	lost := filepath.Join(out, "results-shard-1-of-3.jsonl")
	if err := os.Remove(lost); err != nil {
		t.Fatal(err)
	}
	p := start(t, append(common, slurmEnv(2, 1, 2, 1)...), "bash", recipe...)
	if code := p.wait(t); code != 0 {
		t.Fatalf("resubmitted task: exit %d\n%s", code, p.stderr.String())
	}
	if _, lines := keys(t, out); lines != 3 {
		t.Errorf("after the resubmitted task %d results lines, want 3 (it ran another shard's runs)", lines)
	}
	if _, err := os.Stat(lost); err != nil {
		t.Errorf("the resubmitted task did not write its own shard's file: %v", err)
	}
	if !strings.Contains(p.stdout.String(), "in shard 1/3 (0 reused, 1 run now)") {
		t.Errorf("resubmitted task said:\n%s%s", p.stdout.String(), p.stderr.String())
	}

	// A shard with another count is refused, before it runs anything.
	p = start(t, []string{"FEDAUX_DATA=" + data}, bin, append([]string{"table", "-out", out, "-shard", "0/2"}, flags...)...)
	if code := p.wait(t); code == 0 || !strings.Contains(p.stderr.String(), "split into 3 shards, not 2") || !strings.Contains(p.stderr.String(), "-reshard") {
		t.Errorf("shard 0/2 in a directory of 3 shards: exit %d\n%s", code, p.stderr.String())
	}

	// No data on the node: the task fails and names the file.
	empty := t.TempDir()
	p = start(t, append([]string{"FEDAUX=" + bin, "FEDAUX_OUT=" + t.TempDir(), "FEDAUX_DATA=" + empty}, slurmEnv(0, 2, 0, 1)...), "bash", recipe...)
	if code := p.wait(t); code == 0 || !strings.Contains(p.stderr.String(), filepath.Join(empty, "cora.npz")) {
		t.Errorf("task without data: exit %d, stderr:\n%s", code, p.stderr.String())
	}
	skip := append(append([]string{}, recipe...), "-skip-missing")
	p = start(t, append([]string{"FEDAUX=" + bin, "FEDAUX_OUT=" + t.TempDir(), "FEDAUX_DATA=" + empty}, slurmEnv(0, 2, 0, 1)...), "bash", skip...)
	if code := p.wait(t); code != 0 || !strings.Contains(p.stdout.String(), "skipped: no data") {
		t.Errorf("task without data, -skip-missing: exit %d\n%s%s", code, p.stdout.String(), p.stderr.String())
	}

	// SIGTERM before the time limit (sbatch --signal=B:TERM@300): the
	// task checkpoints and exits 143, so afterok does not fire; run
	// again, it resumes.
	long := t.TempDir()
	longFlags := []string{"FEDAUX=" + bin, "FEDAUX_OUT=" + long, "FEDAUX_DATA=" + data}
	longArgs := []string{"slurm-table.sh", "-datasets", "cora", "-clients", "5", "-algos", "fedaux", "-seeds", "1", "-rounds", "400", "-hidden", "8"}
	p = start(t, append(longFlags, slurmEnv(0, 1, 0, 1)...), "bash", longArgs...)
	time.Sleep(1500 * time.Millisecond)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 143 || !strings.Contains(p.stderr.String(), "was checkpointed at round") {
		t.Fatalf("task sent SIGTERM: exit %d, want 143 and a checkpoint\n%s", code, p.stderr.String())
	}
	p = start(t, append(longFlags, slurmEnv(0, 1, 0, 1)...), "bash", longArgs...)
	if code := p.wait(t); code != 0 || !strings.Contains(p.stderr.String(), "resumed from its checkpoint at round") {
		t.Errorf("requeued task: exit %d\n%s", code, p.stderr.String())
	}
}

// TestKubernetesResubmitAndMissingData: an Indexed Job's index run again
// with another completion count is refused; a pod without the data fails.
func TestKubernetesResubmitAndMissingData(t *testing.T) {
	data := dataDir(t)
	bin := build(t)
	out := t.TempDir()
	args := append([]string{"table", "-shard", "auto", "-out", out, "-workers", "1"}, small...)
	for i := range 2 {
		p := start(t, []string{"FEDAUX_DATA=" + data, "JOB_COMPLETION_INDEX=" + strconv.Itoa(i), "FEDAUX_SHARD_COUNT=2"}, bin, args...)
		if code := p.wait(t); code != 0 {
			t.Fatalf("index %d: exit %d\n%s", i, code, p.stderr.String())
		}
	}
	// The Job created again for index 1 alone, with completions 1.
	p := start(t, []string{"FEDAUX_DATA=" + data, "JOB_COMPLETION_INDEX=0", "FEDAUX_SHARD_COUNT=1"}, bin, args...)
	if code := p.wait(t); code == 0 || !strings.Contains(p.stderr.String(), "-shard I/2") {
		t.Errorf("index with another count: exit %d\n%s", code, p.stderr.String())
	}
	// The Job's index itself, retried (backoffLimitPerIndex): nothing to do.
	p = start(t, []string{"FEDAUX_DATA=" + data, "JOB_COMPLETION_INDEX=1", "FEDAUX_SHARD_COUNT=2"}, bin, args...)
	if code := p.wait(t); code != 0 || !strings.Contains(p.stdout.String(), "0 run now") {
		t.Errorf("retried index: exit %d\n%s%s", code, p.stdout.String(), p.stderr.String())
	}
	empty := t.TempDir()
	p = start(t, []string{"FEDAUX_DATA=" + empty, "JOB_COMPLETION_INDEX=0", "FEDAUX_SHARD_COUNT=2"}, bin,
		append([]string{"table", "-shard", "auto", "-out", t.TempDir()}, small...)...)
	if code := p.wait(t); code == 0 || !strings.Contains(p.stderr.String(), filepath.Join(empty, "cora.npz")) {
		t.Errorf("pod without data: exit %d\n%s", code, p.stderr.String())
	}
}

// TestSlurmSweep shards a sweep through the same recipe (FEDAUX_CMD=sweep):
// the merged sweep.md equals an unsharded sweep's.
func TestSlurmSweep(t *testing.T) {
	bin := build(t)
	flags := []string{"-preset", "sbm", "-grid", "alpha=1,100", "-algos", "fedaux,fedavg_mask", "-seeds", "1", "-rounds", "2", "-hidden", "8"}
	whole := t.TempDir()
	p := start(t, nil, bin, append([]string{"sweep", "-out", whole, "-workers", "1"}, flags...)...)
	if code := p.wait(t); code != 0 {
		t.Fatalf("unsharded sweep: exit %d\n%s", code, p.stderr.String())
	}
	out := t.TempDir()
	for id := range 2 {
		p := start(t, append([]string{"FEDAUX=" + bin, "FEDAUX_OUT=" + out, "FEDAUX_CMD=sweep"}, slurmEnv(id, 2, 0, 1)...),
			"bash", append([]string{"slurm-table.sh"}, flags...)...)
		if code := p.wait(t); code != 0 {
			t.Fatalf("task %d: exit %d\n%s", id, code, p.stderr.String())
		}
	}
	shardFiles(t, out, 2)
	got, _ := os.ReadFile(filepath.Join(out, "sweep.md"))
	want, _ := os.ReadFile(filepath.Join(whole, "sweep.md"))
	if len(want) == 0 || string(got) != string(want) {
		t.Errorf("sweep.md of the array:\n%s\nwant the unsharded one:\n%s", got, want)
	}
	p = start(t, append([]string{"FEDAUX=" + bin, "FEDAUX_OUT=" + out, "FEDAUX_CMD=run"}, slurmEnv(0, 2, 0, 1)...), "bash", "slurm-table.sh")
	if code := p.wait(t); code != 2 || !strings.Contains(p.stderr.String(), "want table or sweep") {
		t.Errorf("FEDAUX_CMD=run: exit %d\n%s", code, p.stderr.String())
	}
}
