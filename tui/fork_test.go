package tui

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestForkCompare forks after round 2, changes alpha on branch B only,
// and steps both: the branches are bit-identical up to the fork (and in
// round 3, whose knobs are the same), differ after B's change, and A's
// rounds are those of a session that never forked; the chart shows both
// curves, the bars the difference, b switches the heat map, and the
// export writes both runs and a comparison figure.
func TestForkCompare(t *testing.T) {
	m, log, path := newSessionModel(t)
	dir := filepath.Dir(path)
	press(m, "n", "n", "f")
	if m.other == nil || m.branchName != "A" {
		t.Fatalf("f did not fork: %v", m.events[len(m.events)-1].text)
	}
	press(m, "n")
	if len(m.reports) != 3 || len(m.other.reports) != 3 || reportText(t, m.reports[2]) != reportText(t, m.other.reports[2]) {
		t.Fatalf("round 3 with the same knobs differs between the branches")
	}
	press(m, "b", "+", "+", "+", "+", "+") // B: alpha 10 → 15
	if m.branchName != "B" || m.Knobs().Alpha != 15 || m.other.knobs.Alpha != 10 {
		t.Fatalf("after b and +: branch %s alpha %v, A's %v", m.branchName, m.Knobs().Alpha, m.other.knobs.Alpha)
	}
	press(m, "n", "n")
	b, a := m.reports, m.other.reports
	if len(a) != 5 || len(b) != 5 {
		t.Fatalf("rounds: A %d, B %d; want 5 each", len(a), len(b))
	}
	if reportText(t, a[4]) == reportText(t, b[4]) {
		t.Error("round 5 is the same on both branches although B's alpha is 15")
	}
	if b[4].Alpha != 15 || a[4].Alpha != 10 {
		t.Errorf("round 5 alphas: A %v, B %v", a[4].Alpha, b[4].Alpha)
	}
	ref := newTestModel(t, true, 120, 40, small)
	press(ref, "n", "n", "n", "n", "n")
	for r := range 5 {
		if reportText(t, a[r]) != reportText(t, ref.reports[r]) {
			t.Errorf("branch A's round %d differs from a session never forked", r+1)
		}
	}
	scr := plain(m.Render())
	for _, want := range []string{"branch B", "─ A test", "Δ A"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the screen lacks %q:\n%s", want, scr)
		}
	}
	press(m, "e")
	m.prompt.input.SetValue(filepath.Join(dir, "export"))
	press(m, "enter")
	for _, f := range []string{"A/log.jsonl", "B/log.jsonl", "compare.png"} {
		if _, err := os.Stat(filepath.Join(dir, "export", f)); err != nil {
			t.Errorf("export: %v", err)
		}
	}
	// Both branches' heat maps, every view of each (B's lacked those not
	// on screen).
	for _, br := range []string{"A", "B"} {
		maps, _ := filepath.Glob(filepath.Join(dir, "export", br, "view-*.png"))
		if len(maps) != 2*len(sim.Sources()) {
			t.Errorf("branch %s: %d view maps, want %d: %v", br, len(maps), 2*len(sim.Sources()), maps)
		}
	}
	press(m, "r") // a restart ends the fork
	if m.other != nil || m.branchName != "" {
		t.Error("r kept the fork")
	}
	m.Close()
	log.Close()
	fork, err := filepath.Glob(filepath.Join(dir, "session-B-r2.jsonl"))
	if err != nil || len(fork) != 1 {
		t.Fatalf("the fork's run log: %v %v", fork, err)
	}
	data, _ := os.ReadFile(fork[0])
	if n := strings.Count(string(data), `"type":"round"`); n != 5 || !strings.Contains(string(data), `"type":"summary"`) {
		t.Errorf("the fork's log has %d round lines (want 5: 2 shared, 3 its own) and summary %v", n, strings.Contains(string(data), "summary"))
	}
}

// ptrFedAvg is FedAvg returned as a pointer without MarshalState: it may
// keep state that a checkpoint cannot save, so a fork is refused.
type ptrFedAvg struct{ sim.Strategy }

func (*ptrFedAvg) Name() sim.Algorithm { return "tui_ptr_fedavg" }

// TestFailedForkLeavesNoLog: a fork that fails (here, of a strategy
// whose state a checkpoint cannot save) says why and leaves no empty run
// log for branch B behind; a failed round of that run says that it
// cannot be rolled back. The method it registers for that lives in a
// child process, out of the way of the tests that list every method.
func TestFailedForkLeavesNoLog(t *testing.T) {
	if os.Getenv("FEDAUX_TEST_CHILD") != t.Name() {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
		cmd.Env = append(os.Environ(), "FEDAUX_TEST_CHILD="+t.Name())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	sim.Register(sim.Method{Name: "tui_ptr_fedavg", Describe: "FedAvg as a pointer without MarshalState (tests)",
		New: func(c *sim.Config) (sim.Strategy, error) {
			m, _ := sim.LookupMethod(methods.FedAvg)
			st, err := m.New(c)
			return &ptrFedAvg{st}, err
		}})
	dir := t.TempDir()
	log, err := sim.OpenRunLog(filepath.Join(dir, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	m := newLogModelWith(t, log, func(c *sim.Config) { c.Algo = "tui_ptr_fedavg" })
	press(m, "n", "f")
	if m.other != nil {
		t.Fatal("forked a strategy whose state a checkpoint cannot save")
	}
	if last := m.events[len(m.events)-1].text; !strings.Contains(last, "fork: ") || !strings.Contains(last, "it is a pointer") {
		t.Errorf("the refusal: %q", last)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		t.Errorf("files after a failed fork: %v, want the session's log only", files)
	}
	// A round that fails cannot be rolled back either: the console says
	// rollback is off for the method, not that "no round failed".
	hooks := &sim.FaultHooks{Corrupt: func(round, client, epoch int, loss *float64, ps []*gnn.Param) {
		if round == 2 && client == 3 {
			ps[0].Grad[0] = math.NaN()
		}
	}}
	if err := m.Engine().SetFaults(sim.Faults{Hooks: hooks}); err != nil {
		t.Fatal(err)
	}
	press(m, "n")
	if last := m.events[len(m.events)-1].text; !strings.Contains(last, "this run cannot roll back (rollback is off for tui_ptr_fedavg): r restarts") {
		t.Errorf("after a failed round: %q", last)
	}
}
