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
	for _, c := range []struct{ log, want string }{
		{run + round1 + control + round2, ""},
		{run + round1 + control + round2 + run, " -replay-run 1"},
		{run + round1 + run + control + round1 + run + round1, " -replay-run 2"},
		{run + control, ""},
	} {
		path := filepath.Join(dir, "log.jsonl")
		if err := os.WriteFile(path, []byte(c.log), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := replayRun(path); got != c.want {
			t.Errorf("%q: %q, want %q", c.log, got, c.want)
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
