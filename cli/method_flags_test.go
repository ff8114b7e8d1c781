package cli

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

// TestMethodSettingNamedAsAFlag checks that a method whose setting has
// the name of a command's flag (-seeds of every command, -grid of sweep)
// is refused with a message naming it, not a panic (flag redefined). It
// registers the method in a child process, whose registry it spoils.
func TestMethodSettingNamedAsAFlag(t *testing.T) {
	if key := os.Getenv("FEDAUX_TEST_FLAG_SETTING"); key != "" {
		sim.Register(sim.Method{Name: "flagclash", Describe: "a method whose setting is named as a flag (tests)",
			Settings: []sim.Setting{{Key: key, Type: sim.Int, Default: "1", Doc: "flagclash: a count"}},
			New:      func(*sim.Config) (sim.Strategy, error) { return nil, errors.New("not run") }})
		os.Exit(Main(strings.Fields(os.Getenv("FEDAUX_TEST_ARGS"))))
	}
	for _, c := range []struct{ key, args, want string }{
		{"seeds", "run -preset sbm -algo fedavg", `run: the setting "seeds" of flagclash has the name of the flag -seeds: the method must rename it`},
		{"grid", "sweep -preset sbm -grid alpha=1,2", `sweep: the setting "grid" of flagclash has the name of the flag -grid`},
		{"grid", "run -preset sbm -rounds 1 -grid 2 -algo fedavg", ""}, // run has no -grid: the setting is a flag
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMethodSettingNamedAsAFlag$")
		cmd.Env = append(os.Environ(), "FEDAUX_TEST_FLAG_SETTING="+c.key, "FEDAUX_TEST_ARGS="+c.args)
		out, err := cmd.CombinedOutput()
		switch {
		case strings.Contains(string(out), "panic"):
			t.Errorf("%s with a setting %q: panicked:\n%s", c.args, c.key, out)
		case c.want == "" && err != nil:
			t.Errorf("%s with a setting %q: %v\n%s", c.args, c.key, err, out)
		case c.want != "" && (err == nil || !strings.Contains(string(out), c.want)):
			t.Errorf("%s with a setting %q: %v, output\n%s\nwant it to say %q", c.args, c.key, err, out, c.want)
		}
	}
}

// ptrAvg is FedAvg returned as a pointer with no MarshalState.
type ptrAvg struct{ sim.Strategy }

// TestRunCheckpointRefusedAtStart: run -checkpoint with a method whose
// state a checkpoint cannot save is refused before its first round, not
// at its first save or interrupt (the rounds run until then were lost).
func TestRunCheckpointRefusedAtStart(t *testing.T) {
	if os.Getenv("FEDAUX_TEST_CHILD") == t.Name() {
		sim.Register(sim.Method{Name: "ptravg", Describe: "FedAvg as a pointer (tests)",
			New: func(c *sim.Config) (sim.Strategy, error) {
				m, _ := sim.LookupMethod("fedavg")
				st, err := m.New(c)
				return &ptrAvg{st}, err
			}})
		os.Exit(Main(strings.Fields(os.Getenv("FEDAUX_TEST_ARGS"))))
	}
	ck := t.TempDir() + "/run.ck"
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), "FEDAUX_TEST_CHILD="+t.Name(),
		"FEDAUX_TEST_ARGS=run -preset sbm -algo ptravg -rounds 50 -hidden 8 -checkpoint "+ck)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "checkpoints to "+ck+": sim: strategy ptravg may keep state across rounds (it is a pointer") {
		t.Errorf("%v\n%s", err, out)
	}
	// Without -checkpoint the run runs (a checkpoint would be tried at an
	// interrupt only).
	cmd = exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), "FEDAUX_TEST_CHILD="+t.Name(),
		"FEDAUX_TEST_ARGS=run -preset sbm -algo ptravg -rounds 2 -hidden 8")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "sbm ptravg: ") {
		t.Errorf("without -checkpoint: %v\n%s", err, out)
	}
}
