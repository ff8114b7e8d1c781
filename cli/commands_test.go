package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/datasets"
	"github.com/fedaux/fedaux/internal/vec"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// TestUsageListsEveryCommand checks that the usage text has one line per
// command and that `fedaux help NAME` gives each command's usage, as
// its -h does.
func TestUsageListsEveryCommand(t *testing.T) {
	u := usage()
	for _, c := range commands {
		n := 0
		for _, line := range strings.Split(u, "\n") {
			if strings.HasPrefix(line, "  "+c.name+" ") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("usage has %d lines for %s, want 1:\n%s", n, c.name, u)
		}
		var stdout, stderr bytes.Buffer
		err := helpCmd([]string{c.name}, &stdout, &stderr)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("help %s: %v", c.name, err)
		}
		if c.name == "scenario" || c.name == "data" { // their own usage: subcommands
			if !strings.Contains(stderr.String(), "fedaux "+c.name+" ") {
				t.Errorf("help %s:\n%s", c.name, stderr.String())
			}
			continue
		}
		if want := "usage: fedaux " + c.name; !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("help %s begins %.60q, want %q", c.name, stderr.String(), want)
		}
		if c.run != nil {
			var h bytes.Buffer
			if err := c.run([]string{"-h"}, &stdout, &h); !errors.Is(err, flag.ErrHelp) {
				t.Errorf("%s -h: %v, want flag.ErrHelp", c.name, err)
			}
			if h.String() != stderr.String() {
				t.Errorf("%s -h and help %s differ", c.name, c.name)
			}
		}
	}
	if err := helpCmd([]string{"nope"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "tui, run") {
		t.Errorf("help nope: %v, want an error listing the commands", err)
	}
}

// TestMainExitStatus checks Main's exit statuses and where it writes,
// with the process's standard output and error sent to files.
func TestMainExitStatus(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string // what each must contain
	}{
		{[]string{"version"}, 0, "fedaux ", ""},
		{[]string{"version"}, 0, "\nkernels " + vec.Current().String() + ", go", ""},
		{[]string{"help"}, 0, "", "Commands:"},
		{[]string{"-h"}, 0, "", "Commands:"},
		{[]string{"help", "sweep"}, 0, "", "usage: fedaux sweep -preset"},
		{[]string{"sweep", "-h"}, 0, "", "usage: fedaux sweep -preset"},
		{[]string{"nope"}, 2, "", `unknown command "nope"`},
		{[]string{"-start", "x"}, 2, "", `invalid value "x" for flag -start`}, // the console's flags
		{[]string{"run", "-rounds", "x"}, 2, "", "fedaux: invalid value \"x\" for flag -rounds: want an integer\nrun 'fedaux help run' for its flags\n"},
		{[]string{"run", "-preset", "nope"}, 1, "", "fedaux: -preset: unknown preset"},
		{[]string{"presets", "extra"}, 1, "", `unexpected argument "extra"`},
		{[]string{"presets"}, 0, "methods (-algo NAME):\nfedaux         FedAux: masked GCN", ""},
		{[]string{"stats", "-preset", "sbm", "extra"}, 1, "", `stats: unexpected argument "extra"`},
		{[]string{"stats", "-preset", "sbm", "-seed", "-1"}, 2, "", `invalid value "-1" for flag -seed: want a non-negative integer`},
		{[]string{"version", "extra"}, 1, "", `version: unexpected argument "extra"`},
		{[]string{"table", "-clients", "5,5"}, 1, "", "-clients: 5 twice"},
		{[]string{"table", "-datasets", "cora,cora"}, 1, "", "-datasets: cora twice"},
		{[]string{"sweep", "-preset", "sbm", "-algos", "fedaux,fedaux", "-grid", "alpha=1,2"}, 1, "", "-algos: fedaux twice"},
		{[]string{"scenario", "keys", "extra"}, 1, "", `scenario keys: unexpected argument "extra"`},
		{[]string{"run", "-preset", "sbm", "-set", "=5"}, 1, "", `"=5": want key=value`},
		{[]string{"run", "-preset", "sbm", "-replay-run", "2"}, 1, "", "-replay-run: needs -replay LOG"},
		{[]string{"run", "-preset", "sbm", "-export", filepath.Join(file, "x")}, 1, "", "-export: mkdir " + file + ": not a directory"}, // before any round
		{[]string{"servercost", "-reps", "0"}, 1, "", "-reps: 0, want >= 1"},
		{[]string{"run", "-preset", "sbm", "-partition", "louvain"}, 1, "", "-partition louvain: scenario sbm is an SBM"},
		{[]string{"stats", "-preset", "sbm", "-partition", "louvain"}, 1, "", "-partition louvain: scenario sbm is an SBM"},
		{[]string{"servercost", "-out", file}, 1, "", "-out: mkdir " + file + ": not a directory"},
		{[]string{"run", "-preset", "sbm", "-partners", "100"}, 1, "", "fedaux: -partners: 100, want <= 20, the number of clients\n"},
		{[]string{"table", "-shard-count", "-1", "-out", dir}, 1, "", "fedaux: -shard-count: -1 is for -shard auto only\n"},
		{[]string{"sweep", "-preset", "sbm", "-grid", "lr=0.1", "-shard", "0/2", "-shard-count", "2", "-out", dir}, 1, "", "fedaux: -shard-count: 2 is for -shard auto only\n"},
		{[]string{"run", "-preset", "pubmed-5", "-data", dir}, 1, "", "fedaux: preset pubmed-5: graph: graph " + filepath.Join(dir, "pubmed.npz") + " not found (data directory " + dir + "; set -data or FEDAUX_DATA). Get it with `fedaux data get pubmed`"},
		{[]string{"run", "-preset", "sbm-gauss", "-set", "clients=2", "-set", "sbm.nodes=60000", "-set", "sbm.groups=2", "-set", "sbm.intra=0.0001,0.0002", "-set", "sbm.inter=0.00001", "-kernel", "dense"},
			1, "", "fedaux: -kernel: dense, want fast or auto: client 0 has 30000 nodes; its 6866 MiB kernel matrix is over the 4096 MiB budget\n"},
	}
	for i, tt := range tests {
		stdout, stderr := filepath.Join(dir, fmt.Sprint(i, ".out")), filepath.Join(dir, fmt.Sprint(i, ".err"))
		code := withOutput(t, stdout, stderr, func() int { return Main(tt.args) })
		out, _ := os.ReadFile(stdout)
		errOut, _ := os.ReadFile(stderr)
		if code != tt.code || !strings.Contains(string(out), tt.stdout) || !strings.Contains(string(errOut), tt.stderr) {
			t.Errorf("fedaux %v: status %d, stdout %.80q, stderr %.80q; want %d, %q, %q", tt.args, code, out, errOut, tt.code, tt.stdout, tt.stderr)
		}
	}
}

// TestFlagErrorOnce: a bad flag of any command is reported once, in
// Main's voice, with where the command's flags are listed, and nothing
// else (neither the flag package's own line nor the whole usage).
func TestFlagErrorOnce(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "-nosuch"}, "flag provided but not defined: -nosuch\nrun 'fedaux help run' for its flags\n"},
		{[]string{"run", "-rounds", "x"}, "invalid value \"x\" for flag -rounds: want an integer\nrun 'fedaux help run' for its flags\n"},
		{[]string{"-start", "x"}, "invalid value \"x\" for flag -start: parse error\nrun 'fedaux help tui' for its flags\n"},
		{[]string{"table", "-seeds", "x"}, "invalid value \"x\" for flag -seeds: parse error\nrun 'fedaux help table' for its flags\n"},
		{[]string{"presets", "-x"}, "flag provided but not defined: -x\nrun 'fedaux help presets' for its flags\n"},
		{[]string{"stats", "-x"}, "flag provided but not defined: -x\nrun 'fedaux help stats' for its flags\n"},
		{[]string{"servercost", "-x"}, "flag provided but not defined: -x\nrun 'fedaux help servercost' for its flags\n"},
		{[]string{"data", "-x"}, "flag provided but not defined: -x\nrun 'fedaux help data' for its flags\n"},
		{[]string{"data", "get", "cora", "-x"}, "flag provided but not defined: -x\nrun 'fedaux data get -h' for its flags\n"},
		{[]string{"data", "serve", "-addr"}, "flag needs an argument: -addr\nrun 'fedaux data serve -h' for its flags\n"},
		{[]string{"scenario", "show", "sbm", "-x"}, "flag provided but not defined: -x\nrun 'fedaux scenario show -h' for its flags\n"},
	}
	for i, tt := range tests {
		stdout, stderr := filepath.Join(dir, fmt.Sprint(i, ".out")), filepath.Join(dir, fmt.Sprint(i, ".err"))
		code := withOutput(t, stdout, stderr, func() int { return Main(tt.args) })
		out, _ := os.ReadFile(stdout)
		errOut, _ := os.ReadFile(stderr)
		if want := "fedaux: " + tt.want; code != 2 || len(out) != 0 || string(errOut) != want {
			t.Errorf("fedaux %v: status %d, stdout %q, stderr %q; want 2, nothing, %q", tt.args, code, out, errOut, want)
		}
	}
	// -h still prints the usage, once, and succeeds.
	var h bytes.Buffer
	if err := dataGetCmd([]string{"-h"}, &bytes.Buffer{}, &h); !errors.Is(err, flag.ErrHelp) || strings.Count(h.String(), "usage: fedaux data get") != 1 {
		t.Errorf("data get -h: %v, usage %q", err, h.String())
	}
}

// withOutput runs f with os.Stdout and os.Stderr writing to the files
// stdout and stderr.
func withOutput(t *testing.T, stdout, stderr string, f func() int) int {
	t.Helper()
	o, err := os.Create(stdout)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	e, err := os.Create(stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	saveOut, saveErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = o, e
	defer func() { os.Stdout, os.Stderr = saveOut, saveErr }()
	return f()
}

// TestRunWarnsUnreadSetting: a setting given that the run's algorithm
// does not read is said on stderr (it was silently without effect).
func TestRunWarnsUnreadSetting(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := runCmd([]string{"-preset", "sbm", "-rounds", "1", "-hidden", "8", "-algo", "fedavg", "-mu", "5", "-alpha", "3"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fedavg does not read -mu", "fedavg does not read -alpha"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	stderr.Reset()
	if err := runCmd([]string{"-preset", "sbm", "-rounds", "1", "-hidden", "8", "-algo", "fedprox", "-mu", "5"}, &stdout, &stderr); err != nil || strings.Contains(stderr.String(), "does not read") {
		t.Errorf("fedprox -mu: %v\n%s", err, stderr.String())
	}
}

// TestFlagError checks that the library's setting errors are said with
// the flags' names, sim's client_dropout as -dropout.
func TestFlagError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&sim.SettingError{Key: "rounds", Value: "0", Want: ">= 1"}, "-rounds: 0, want >= 1"},
		{&sim.SettingError{Key: "dropout", Value: "1", Want: "0 <= p < 1"}, "-model-dropout: 1, want 0 <= p < 1"},
		{fmt.Errorf("seed 1: %w", &sim.SettingError{Key: "client_dropout", Value: "0.2", Want: "0: strategy x keeps state"}), "-dropout: 0.2, want 0: strategy x keeps state"},
		{errors.New("sim: other"), "sim: other"},
	} {
		if got := flagError(tt.err).Error(); got != tt.want {
			t.Errorf("flagError(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestSay checks that the library's errors naming one of its fields are
// said with the flag that sets it, wherever they are in the error.
func TestSay(t *testing.T) {
	partition := &presets.EnvError{Field: "Partition", Value: "metis", Err: errors.New("want ref or multilevel")}
	data := &presets.EnvError{Field: "DataDir", Value: "/d", Err: errors.New("graph /d/x.npz not found")}
	file := &datasets.FileError{File: datasets.File{URL: "https://h/x.npz"}, URL: "https://h/x.npz", Dest: "/d/x.npz", Err: errors.New("404")}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{partition, "-partition metis: want ref or multilevel"},
		{fmt.Errorf("preset cora-5: %w", partition), "preset cora-5: -partition metis: want ref or multilevel"},
		{fmt.Errorf("graph: %w. Get it", data), "graph: graph /d/x.npz not found (data directory /d; set -data or FEDAUX_DATA). Get it"},
		{errors.Join(fmt.Errorf("x: %w", file), fmt.Errorf("y: %w", file)),
			"x: https://h/x.npz: 404\n  place the file by hand at /d/x.npz, or set -mirror / $FEDAUX_MIRROR to a server that holds /x.npz\n" +
				"y: https://h/x.npz: 404\n  place the file by hand at /d/x.npz, or set -mirror / $FEDAUX_MIRROR to a server that holds /x.npz"},
		{&datasets.FileError{URL: "u", Dest: "/d/y", Err: errors.New("downloaded to /d/y.partial, but no checksum; check it and run again with Options.Unverified set to install it")},
			"u: downloaded to /d/y.partial, but no checksum; check it and run again with -unverified to install it\n  place the file by hand at /d/y, or set -mirror / $FEDAUX_MIRROR to a server that holds "},
		{errors.New("other"), "other"},
	} {
		if got := say(tt.err); got != tt.want {
			t.Errorf("say(%q) =\n%q, want\n%q", tt.err, got, tt.want)
		}
	}
}
