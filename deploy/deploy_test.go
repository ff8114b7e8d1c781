// Package deploy_test plays the cluster schedulers of deploy/ locally:
// every task of the Slurm array and every index of the Kubernetes Indexed
// Job runs the real binary with the scheduler's variables set, and the
// merged table must equal the table of one unsharded run.
package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// small keeps the played table quick: Cora with 5 and 10 clients, three
// algorithms, 2 rounds of a narrow model.
var small = []string{"-datasets", "cora", "-clients", "5,10", "-algos", "local,fedavg,fedaux", "-seeds", "1", "-rounds", "2", "-hidden", "8"}

func dataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("FEDAUX_DATA")
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("..", "..", "shared", "data"))
	}
	if _, err := os.Stat(filepath.Join(dir, "cora.npz")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but the data is missing in %s: %v", dir, err)
		}
		t.Skipf("no data in %s", dir)
	}
	return dir
}

func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fedaux")
	out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func run(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = os.Environ()
	// No scheduler variables leak in from the machine running the test.
	for _, v := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "JOB_COMPLETION_INDEX", "FEDAUX_SHARD_COUNT"} {
		cmd.Env = append(cmd.Env, v+"=")
	}
	cmd.Env = append(cmd.Env, env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// reference renders the table of one unsharded run.
func reference(t *testing.T, bin, data string) string {
	t.Helper()
	out := t.TempDir()
	run(t, []string{"FEDAUX_DATA=" + data}, bin, append([]string{"table", "-out", out}, small...)...)
	return readTable(t, out)
}

func readTable(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "table1.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Runs finished: 6 of 6.") {
		t.Errorf("table incomplete:\n%s", b)
	}
	// The compute time line is the one line that differs between tables
	// of the same runs computed at other times.
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "Compute time:") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func shardFiles(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		if _, err := os.Stat(filepath.Join(dir, "results-shard-"+strconv.Itoa(i)+"-of-"+strconv.Itoa(n)+".jsonl")); err != nil {
			t.Errorf("shard %d of %d wrote no results file: %v", i, n, err)
		}
	}
}

func TestSlurmArray(t *testing.T) {
	data := dataDir(t)
	bin := build(t)
	want := reference(t, bin, data)
	out := t.TempDir()
	const tasks = 3
	for id := 1; id <= tasks; id++ { // --array=1-3
		run(t, []string{"FEDAUX=" + bin, "FEDAUX_OUT=" + out, "FEDAUX_DATA=" + data,
			"SLURM_ARRAY_TASK_ID=" + strconv.Itoa(id), "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=" + strconv.Itoa(tasks), "SLURM_CPUS_PER_TASK=1"},
			"bash", append([]string{"slurm-table.sh"}, small...)...)
	}
	shardFiles(t, out, tasks)
	if got := readTable(t, out); got != want {
		t.Errorf("merged table of the array:\n%s\nwant the unsharded one:\n%s", got, want)
	}
}

// job is the part of the Indexed Job manifest the test plays.
type job struct {
	Kind string
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int
		Template       struct {
			Spec struct {
				Containers []struct {
					Command []string
					Args    []string
					Env     []struct{ Name, Value string }
				}
			}
		}
	}
}

func TestKubernetesIndexedJob(t *testing.T) {
	data := dataDir(t)
	b, err := os.ReadFile("k8s-table-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var j job
	if err := yaml.Unmarshal(b, &j); err != nil {
		t.Fatalf("k8s-table-job.yaml: %v", err)
	}
	if j.Kind != "Job" || j.Spec.CompletionMode != "Indexed" || j.Spec.Completions < 2 || len(j.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("not an Indexed Job of one container with several completions: %+v", j)
	}
	c := j.Spec.Template.Spec.Containers[0]
	bin := build(t)
	want := reference(t, bin, data)
	out := t.TempDir()
	var env []string
	count := ""
	for _, e := range c.Env {
		v := strings.ReplaceAll(e.Value, "/data", data)
		env = append(env, e.Name+"="+v)
		if e.Name == "FEDAUX_SHARD_COUNT" {
			count = e.Value
		}
	}
	if count != strconv.Itoa(j.Spec.Completions) {
		t.Fatalf("FEDAUX_SHARD_COUNT = %q, want the Job's completions %d", count, j.Spec.Completions)
	}
	if len(c.Command) != 1 || !strings.HasSuffix(c.Command[0], "/fedaux") {
		t.Fatalf("command %v, want the fedaux binary", c.Command)
	}
	var args []string
	for _, a := range c.Args {
		args = append(args, strings.Replace(a, "/results", out, 1))
	}
	args = append(args, small...) // later flags override the manifest's grid
	for i := range j.Spec.Completions {
		run(t, append(env, "JOB_COMPLETION_INDEX="+strconv.Itoa(i)), bin, args...)
	}
	shardFiles(t, filepath.Join(out, "table"), j.Spec.Completions)
	if got := readTable(t, filepath.Join(out, "table")); got != want {
		t.Errorf("merged table of the Job:\n%s\nwant the unsharded one:\n%s", got, want)
	}
}
