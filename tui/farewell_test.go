package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayRun: the farewell's replay command picks the last run with a
// knob change and a round, naming it when it is not the log's last run
// (a restart after the change starts a run with no round, which replay
// refuses).
func TestReplayRun(t *testing.T) {
	const (
		run     = `{"type":"run"}` + "\n"
		round1  = `{"type":"round","round":1}` + "\n"
		round2  = `{"type":"round","round":2}` + "\n"
		control = `{"type":"control","round":2,"name":"alpha","from":10,"to":5}` + "\n"
	)
	dir := t.TempDir()
	for _, c := range []struct {
		log     string
		steered bool // else only an edited scenario: the last run with a round
		want    string
	}{
		{run + round1 + control + round2, true, ""},
		{run + round1 + control + round2 + run, true, " -replay-run 1"},
		{run + round1 + run + control + round1 + run + round1, true, " -replay-run 2"},
		{run + control, true, ""},
		{run + round1 + run + round1 + round2 + run, false, " -replay-run 2"},
		{run + round1 + run + round1, false, ""},
	} {
		path := filepath.Join(dir, "log.jsonl")
		if err := os.WriteFile(path, []byte(c.log), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := replayRun(path, c.steered); got != c.want {
			t.Errorf("%q (steered %v): %q, want %q", c.log, c.steered, got, c.want)
		}
	}
}

// TestFarewellPendingExport: quitting with an export that waited for the
// round in flight says it was not written (it was dropped silently).
func TestFarewellPendingExport(t *testing.T) {
	m := newTestModel(t, true, 100, 30, small)
	m.exportDir = "/tmp/somewhere"
	if bye := m.farewell(); !strings.Contains(bye, "quit before the export to /tmp/somewhere") {
		t.Errorf("farewell %q", bye)
	}
}

// TestExportTilde: an export to ~/DIR goes to the home's DIR, as in a
// shell (it made ./~/DIR).
func TestExportTilde(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	m := newTestModel(t, true, 100, 30, small)
	press(m, "n", "e")
	m.prompt.input.SetValue("~/exp")
	press(m, "enter")
	if _, err := os.Stat(filepath.Join(home, "exp", "log.jsonl")); err != nil {
		t.Errorf("export to ~/exp: %v", err)
	}
}

// TestExportFieldKeptWhileBusy: while an export waits for the round in
// flight, the field holds its directory: keys typed there are not taken
// (they changed a field that no longer mattered).
func TestExportFieldKeptWhileBusy(t *testing.T) {
	m := newTestModel(t, true, 100, 30, small)
	press(m, "e")
	m.prompt.input.SetValue("/tmp/exp")
	m.prompt.busy = "exporting to /tmp/exp once the round in flight is done…"
	press(m, "x", "backspace", "enter")
	if got := m.prompt.input.Value(); got != "/tmp/exp" || m.screen != prompting {
		t.Errorf("field %q, screen %v; want /tmp/exp kept, the prompt open", got, m.screen)
	}
	press(m, "esc")
	if m.screen != dashboard {
		t.Errorf("esc: screen %v", m.screen)
	}
}

// TestFarewellEditedScenario: a session that ran a scenario edited in
// the panel, and changed nothing else, names its run log at quit with
// the command that replays the edited run, as one that changed knobs
// does (it said nothing).
func TestFarewellEditedScenario(t *testing.T) {
	m, _, path := newSessionModel(t)
	if got := m.farewell(); got != "" {
		t.Fatalf("farewell of a fresh session: %q", got)
	}
	press(m, "S")
	typeInto(t, m, "clients", "8")
	press(m, "enter", "n", "n")
	if m.k != 8 || m.Round() != 2 {
		t.Fatalf("the edited scenario did not run: %d clients, round %d", m.k, m.Round())
	}
	press(m, "r") // a restart at the end: a run with no round
	got := m.farewell()
	for _, want := range []string{"the session ran an edited scenario; its run log is " + path, "fedaux run -replay " + path + " -replay-run 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("farewell lacks %q:\n%s", want, got)
		}
	}
}
