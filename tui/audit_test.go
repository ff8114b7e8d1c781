package tui

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// TestDefaultViewComputed: on FedAvg the heat map opens on a view that
// no round computes unless it is shown (pc1). It said "computed from
// round 2 on" after round 1, "from round 3 on" after round 2, and so on
// for good: nothing asked the engine for it until m was pressed. Shown
// after a round, it is computed for that round when the console pauses,
// and by every round after.
func TestDefaultViewComputed(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Algo = methods.FedAvg })
	press(m, "n")
	s, ok := m.heat.shown()
	if !ok || s.name != "pc1" {
		t.Fatalf("FedAvg's heat map shows %q, want pc1 (the test's premise)", s.name)
	}
	for round := 1; round <= 3; round++ {
		if round > 1 {
			press(m, "n")
		}
		if _, ok := m.reports[len(m.reports)-1].Views[sim.Source("pc1")]; !ok {
			t.Errorf("round %d: pc1 is shown but not computed", round)
		}
		if scr := plain(m.Render()); strings.Contains(scr, "computed from round") {
			t.Errorf("round %d: the heat map waits for a round:\n%s", round, scr)
		}
	}
}

// TestForkAgainAtSameRound: a fork at round 2, a restart (R), and a fork
// at round 2 again refused the second one, "fork: sim: fork: run log
// .../session-B-r2.jsonl: not empty and not the checkpoint's log": B's
// run log was named by the round alone, and the first fork's was there.
// The second fork's log takes the next free name, and the farewell names
// both.
func TestForkAgainAtSameRound(t *testing.T) {
	m, _, _ := newSessionModel(t)
	press(m, "n", "n", "f")
	if m.other == nil {
		t.Fatalf("the first f did not fork: %v", m.events[len(m.events)-1].text)
	}
	press(m, "R", "n", "n", "f")
	if m.other == nil {
		t.Fatalf("the second f at round 2 did not fork: %v", m.events[len(m.events)-1].text)
	}
	if len(m.forkLogs) != 2 || m.forkLogs[0].path == m.forkLogs[1].path {
		t.Fatalf("the forks' run logs: %+v, want two files", m.forkLogs)
	}
	press(m, "n")
	m.Close()
	for _, f := range m.forkLogs {
		runs, _, err := sim.ReadRunLog(f.path)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		if len(runs) != 1 {
			t.Errorf("%s holds %d runs, want 1", f.path, len(runs))
		}
	}
	if bye := m.farewell(); !strings.Contains(bye, m.forkLogs[1].path) {
		t.Errorf("the farewell does not name the second fork's log %s:\n%s", m.forkLogs[1].path, bye)
	}
}

// TestPickerFooter: the preset picker's bottom line was the dashboard's,
// "n step • space run • ... q quit", though in the picker n and space do
// nothing and q goes back without quitting. It names the picker's keys,
// and while a filter is typed, the filter's.
func TestPickerFooter(t *testing.T) {
	m := newTestModel(t, true, 80, 24, small)
	press(m, "P")
	last := func() string {
		lines := strings.Split(plain(m.Render()), "\n")
		return lines[len(lines)-1]
	}
	foot := last()
	for _, bad := range []string{"n step", "space run", "q quit"} {
		if strings.Contains(foot, bad) {
			t.Errorf("the picker's footer offers %q: %q", bad, foot)
		}
	}
	for _, want := range []string{"enter load", "esc back", "/ filter"} {
		if !strings.Contains(foot, want) {
			t.Errorf("the picker's footer lacks %q: %q", want, foot)
		}
	}
	press(m, "q")
	if m.screen != dashboard {
		t.Fatalf("q in the picker: screen %v, want the dashboard", m.screen)
	}
	press(m, "P", "/")
	if foot := last(); !strings.Contains(foot, "esc") || strings.Contains(foot, "enter load") {
		t.Errorf("the footer while a filter is typed: %q", foot)
	}
}

// TestExportBlankOrPaddedDir: the export prompt took its field as it
// was, so that "   " (a field cleared with spaces) exported 39 files
// into a directory named three spaces in the working directory ("exported
// 39 files to "), and a pasted " out " into " out ". A blank field is
// refused as an empty one is, and the spaces around a name are not part
// of it.
func TestExportBlankOrPaddedDir(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n", "e")
	m.prompt.input.SetValue("   ")
	press(m, "enter")
	if m.screen != prompting || !strings.Contains(plain(m.Render()), "name a directory") {
		t.Errorf("a blank export directory was not refused:\n%s", plain(m.Render()))
	}
	m.prompt.input.SetValue(" out ")
	press(m, "enter")
	if _, err := os.Stat(filepath.Join(wd, "out", "log.jsonl")); err != nil {
		t.Errorf("\" out \" did not export to out: %v", err)
	}
	ents, _ := os.ReadDir(wd)
	for _, e := range ents {
		if strings.TrimSpace(e.Name()) != e.Name() || e.Name() == "" {
			t.Errorf("the export made %q in the working directory", e.Name())
		}
	}
}

// TestKnobKeyWhileNewPresetBuilds: with alpha 20, P and another preset
// (which brings its own alpha, 10), and + pressed while its engine was
// built: the + counted from the old engine's 20, and the new run got
// alpha 21, "alpha 10 → 21", for one press of a key that steps by 1. The
// knobs while a rebuild is under way are the new engine's: + makes 11.
func TestKnobKeyWhileNewPresetBuilds(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	promptType(m, "a", "20")
	press(m, "P")
	build := m.key(keyMsg("enter")) // sbm again: the preset's own knobs, alpha 10
	if m.act != building {
		t.Fatalf("enter in the picker: activity %v, want a build", m.act)
	}
	if a := m.Knobs().Alpha; a != 10 {
		t.Errorf("while the preset's engine is built the knobs say alpha %v, want the preset's 10", a)
	}
	m.key(keyMsg("+"))
	drive(m, build)
	if a := m.Engine().Knobs().Alpha; a != 11 {
		t.Errorf("+ while the preset's engine was built: alpha %v, want 11 (the preset's 10, up by 1)", a)
	}
}

// TestKnobKeyWhileBuildFails: a change made while another preset's
// engine is built is for that engine; when it cannot be built, the
// change is dropped and said so, not applied to the old engine after its
// next round.
func TestKnobKeyWhileBuildFails(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	promptType(m, "a", "20")
	press(m, "P")
	m.key(keyMsg("enter"))
	m.key(keyMsg("+"))
	m.Update(builtMsg{job: m.job, err: errors.New("graphio: out of luck")})
	if a := m.Knobs().Alpha; a != 20 {
		t.Errorf("after the failed build the knobs say alpha %v, want the old engine's 20", a)
	}
	press(m, "n")
	if a := m.reports[len(m.reports)-1].Alpha; a != 20 {
		t.Errorf("the old engine's next round ran with alpha %v, want 20", a)
	}
	if !logged(m, "alpha 10 → 11 dropped") {
		t.Errorf("the log does not say the change was dropped:\n%v", m.events)
	}
}

// TestFarewellAfterSwitchOnA: f, then F on branch A (the session's own
// run) to local, rounds, quit: the console named B's run log, but not the
// session's, whose run is the only record of A's switch (the farewell
// named the session's log only after knob changes). It names it, and the
// replay command picks the run with the switch.
func TestFarewellAfterSwitchOnA(t *testing.T) {
	m, log, path := newSessionModel(t)
	press(m, "n", "f", "F")
	for m.algos.Selected() != methods.Local {
		if m.algos.cur == len(m.algos.offer)-1 {
			t.Fatalf("F on branch A does not offer local: %v", m.algos.offer)
		}
		press(m, "down")
	}
	press(m, "enter", "n", "R") // a restart ends the fork and starts a run with no round
	if m.cfg.Algo != methods.Local || m.Round() != 0 {
		t.Fatalf("after F, local, n and R: %s, round %d", m.cfg.Algo, m.Round())
	}
	m.Close()
	log.Close()
	bye := m.farewell()
	if want := "replay it headless with: fedaux run -replay " + path + " -replay-run 1\n"; !strings.Contains(bye, want) {
		t.Errorf("after quitting the console says\n%s\nwant a line\n%s", bye, want)
	}
}

// TestForkWhileRunning: f, F or b while rounds run on (space) said
// "fork once the work in flight is done" (F on a forked run: "already
// forked ...: r or R ends the fork", though F switches a branch's
// algorithm there), and the user who waited waited for good: the next
// round starts as one ends. They say to pause first.
func TestForkWhileRunning(t *testing.T) {
	last := func(m *Model) string { return m.events[len(m.events)-1].text }
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n")
	m.key(keyMsg("space")) // running on: a round in flight, more to come
	if m.act != stepping || !m.running {
		t.Fatalf("space: activity %v, running %v", m.act, m.running)
	}
	for _, k := range []string{"f", "F"} {
		m.key(keyMsg(k))
		if !strings.Contains(last(m), "pause (space)") {
			t.Errorf("%s while running: %q, want it to say to pause", k, last(m))
		}
	}
	m.key(keyMsg("space")) // paused, the round still in flight
	m.key(keyMsg("f"))
	if !strings.Contains(last(m), "once the work in flight is done") {
		t.Errorf("f after a pause, with a round still in flight: %q, want it to wait for the round", last(m))
	}

	forked := newTestModel(t, true, 120, 40, small)
	press(forked, "n", "f")
	forked.key(keyMsg("space"))
	for _, k := range []string{"b", "F"} {
		forked.key(keyMsg(k))
		if !strings.Contains(last(forked), "pause (space)") {
			t.Errorf("%s on a forked run while running: %q, want it to say to pause", k, last(forked))
		}
	}
}

// TestPickerFitsWithScenarioFiles: with scenario files in the directory
// the P list shows, every line of the list ended in a cut mark at 100
// columns (the title that names the files is set once they are read,
// after the list was fitted to the screen with the shorter one).
func TestPickerFitsWithScenarioFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	dir := DefaultScenarioDir // scenarios/, as the console opens without -scenarios
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine.toml"), []byte(tinyTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.toml"), []byte("clients = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 40}} {
		m := newTinyModel(t, sz[0], sz[1], func(o *Options) { o.NoColor = false })
		press(m, "P")
		lines := strings.Split(plain(m.Render()), "\n")
		for i, l := range lines[1 : len(lines)-1] {
			// Padding cut: blanks before the mark (a text cut at a word
			// ends in one blank at most).
			if r := []rune(l); len(r) > 2 && r[len(r)-1] == '…' && r[len(r)-2] == ' ' && r[len(r)-3] == ' ' {
				t.Errorf("%dx%d: line %d has a stray cut mark: %q", sz[0], sz[1], i+1, l)
			}
		}
	}
}

// TestPickerShowsMissingData: a preset whose data file is not there was
// marked at the end of its description, "... 100 rounds x 1 epochs
// [needs pubmed.npz: missing]", which the list cuts below some 130
// columns: at 80 or 100 the user saw no mark, picked it and got an error.
// The mark comes first.
func TestPickerShowsMissingData(t *testing.T) {
	p, err := presets.Get("cora-10")
	if err != nil {
		t.Fatal(err)
	}
	for _, noColor := range []bool{true, false} {
		st := NewStyles(noColor)
		pk := newPicker(&st, []*presets.Preset{p}, nil, presets.Env{DataDir: t.TempDir()})
		for _, w := range []int{80, 100} {
			pk.SetSize(w, 10)
			if v := plain(pk.View()); !strings.Contains(v, "missing") {
				t.Errorf("colour %v, %d columns: the list does not say cora.npz is missing:\n%s", !noColor, w, v)
			}
		}
	}
}

// TestMouseCompactHeatMap: at 80x24 in colour, the console's smallest
// size and the first screen's, the heat map is compact (two clients a
// line) and a click on it did nothing, though the guide says a click on
// a cell selects it and shows its value. A click selects the cell of the
// upper of the line's two clients (the arrows move on from it).
func TestMouseCompactHeatMap(t *testing.T) {
	m := newTestModel(t, false, 80, 24, small)
	press(m, "n")
	m.Render()
	l := m.plan()
	if l.chartBelow || l.heatH >= m.heat.needFull() {
		t.Fatalf("at 80x24 in colour the heat map is not compact (premise): heat %d rows of %d", l.heatH, m.heat.needFull())
	}
	if m.heat.geoRowY < 0 {
		t.Fatal("the compact heat map records no cell geometry for the mouse")
	}
	cx, pair := 3, 2 // the fourth column, the third line of the map: clients 4 and 5 in display order
	m.Update(tea.MouseClickMsg{X: l.leftW + 1 + m.heat.geoColX + cx*m.heat.geoCellW, Y: 1 + m.heat.geoRowY + pair, Button: tea.MouseLeft})
	if !m.heat.values || m.heat.cx != cx || m.heat.cy != 2*pair {
		t.Fatalf("click on the compact map: values %v, cursor (%d, %d); want (%d, %d)", m.heat.values, m.heat.cx, m.heat.cy, cx, 2*pair)
	}
	i, j := m.order[2*pair], m.order[cx]
	if want := clientLabel(i, m.groups) + "×" + clientLabel(j, m.groups) + " = "; !strings.Contains(plain(m.Render()), want) {
		t.Errorf("the clicked cell %q is not shown:\n%s", want, plain(m.Render()))
	}
}

// TestPromptFromDrillDown: in the drill-down "every other key works as
// on the dashboard", but a (or s, o, e, ?) there put the prompt under the
// dashboard, and enter or esc left the user on the dashboard, the client
// they watched gone. The prompt opens under the drill-down and closes
// back to it; so does the help.
func TestPromptFromDrillDown(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n", "c", "down")
	id := m.drill.id
	name := "client " + clientLabel(id, m.groups)
	press(m, "a")
	if m.screen != prompting || !strings.Contains(plain(m.Render()), name) {
		t.Fatalf("a in the drill-down: screen %v, the drill-down not under the prompt:\n%s", m.screen, plain(m.Render()))
	}
	press(m, "5", "enter")
	if m.Knobs().Alpha != 5 || m.screen != drilling || m.drill.id != id {
		t.Errorf("a 5 enter in the drill-down: alpha %v, screen %v, client %d; want 5, the drill-down on %d", m.Knobs().Alpha, m.screen, m.drill.id, id)
	}
	press(m, "s", "esc")
	if m.screen != drilling {
		t.Errorf("s esc in the drill-down: screen %v, want the drill-down", m.screen)
	}
	press(m, "?", "x")
	if m.screen != drilling {
		t.Errorf("? and a key in the drill-down: screen %v, want the drill-down", m.screen)
	}
	press(m, "esc", "a", "esc") // from the dashboard, back to it
	if m.screen != dashboard {
		t.Errorf("a esc on the dashboard: screen %v", m.screen)
	}
}

// TestHelpAnyKeyReturns: the help ends "Any key returns.", but q there
// quit the console (in the preset and algorithm lists q goes back). Every
// key returns from the help; ctrl+c still quits.
func TestHelpAnyKeyReturns(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "?")
	if !strings.Contains(plain(m.Render()), "Any key returns.") {
		t.Fatalf("the help does not say any key returns (premise):\n%s", plain(m.Render()))
	}
	if cmd := m.key(keyMsg("q")); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Error("q in the help quits the console")
		}
	}
	if m.screen != dashboard {
		t.Errorf("q in the help: screen %v, want the dashboard", m.screen)
	}
	press(m, "?")
	if lines := strings.Split(plain(m.Render()), "\n"); strings.Contains(lines[len(lines)-1], "q quit") {
		t.Errorf("the help's bottom line says q quits: %q", lines[len(lines)-1])
	}
	cmd := m.key(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if cmd == nil {
		t.Fatal("ctrl+c in the help does nothing")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Error("ctrl+c in the help does not quit")
	}
}

// TestPromptLongRefusalReadable: 2000 characters pasted into a knob
// prompt were refused with the whole text quoted, wrapped over the whole
// 80x24 screen: the reason and the field were off it, the user saw a
// wall of x. A long text is quoted by its ends and its length, and the
// reason and the field stay on screen.
func TestPromptLongRefusalReadable(t *testing.T) {
	m := newTestModel(t, true, 80, 24, small)
	press(m, "s")
	m.prompt.input.SetValue(strings.Repeat("x", 2000))
	press(m, "enter")
	scr := plain(m.Render())
	lines := strings.Split(scr, "\n")
	if m.screen != prompting || !strings.Contains(flat(scr), "is not a number; sigma wants a number >=") {
		t.Errorf("the reason is not on screen:\n%s", scr)
	}
	if !strings.HasPrefix(lines[len(lines)-1], "› sigma: ") || !strings.HasPrefix(lines[0], " fedaux") && !strings.HasPrefix(lines[0], "fedaux") {
		t.Errorf("the field or the header is off screen:\n%s", scr)
	}
	if !strings.Contains(flat(scr), "2000 characters") {
		t.Errorf("the refusal does not say how long the text is:\n%s", scr)
	}
}

// TestPickerEmptyFilterKeepsCurrent: in the preset list, a filter that
// matched nothing ("/ zzz enter") went back to the whole list with the
// cursor on its first entry (actor-5, or the first scenario file), not on
// the preset that runs, so that a second enter loaded a preset nobody
// chose. The cursor goes back to the preset that runs.
func TestPickerEmptyFilterKeepsCurrent(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "P", "/", "z", "z", "z", "enter")
	if p := m.picker.Selected(); p == nil || p.Name != "sbm" {
		t.Errorf("after a filter that matched nothing the list is on %v, want sbm (the preset that runs)", p)
	}
	press(m, "/", "z", "esc")
	if p := m.picker.Selected(); p == nil || p.Name != "sbm" {
		t.Errorf("after a filter cancelled the list is on %v, want sbm", p)
	}
}

// TestFailedBuildAfterCancelledRound: P (or S, r, R) while a round ran,
// and the new engine could not be built (a scenario the data refuse, a
// file that cannot be read): the round was cancelled half-way for the
// new engine, and the old engine, stopped by the cancelled round, made
// every later n and space do nothing, without a word (its error reads as
// a cancel). The old engine rolls back to its last round and goes on.
func TestFailedBuildAfterCancelledRound(t *testing.T) {
	m, log, path := newSessionModel(t)
	press(m, "n")
	batch, ok := m.key(keyMsg("n"))().(tea.BatchMsg)
	if !ok || len(batch) != 2 {
		t.Fatalf("n does not start a round and its progress relay")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- batch[0]() }()
	if _, ok := batch[1]().(progressRelay); !ok { // a client has finished: the round is half-way
		t.Fatal("no progress from the round")
	}
	press(m, "P") // the list opens on sbm, the preset that runs
	if cmd := m.key(keyMsg("enter")); cmd != nil {
		t.Fatal("the rebuild does not wait for the round it cancels")
	}
	if _, build := m.Update(<-done); build == nil || m.act != building {
		t.Fatalf("the cancelled round does not start the build: activity %v", m.act)
	}
	_, next := m.Update(builtMsg{job: m.job, err: errors.New("graphio: out of luck")})
	drive(m, next)
	if m.engine.Broken() != nil {
		t.Errorf("after the failed build the old engine is stopped: %v", m.engine.Broken())
	}
	before := m.Round()
	press(m, "n")
	if m.Round() != before+1 {
		t.Errorf("n after the failed build: %d rounds, want %d; log:\n%v", m.Round(), before+1, m.events)
	}
	if logged(m, "change a knob") {
		t.Errorf("the log asks for a knob change after a round that did not fail:\n%v", m.events)
	}
	// The run log's summary, written when the rebuild began, is
	// written again at the end, for all the rounds of the run.
	m.Close()
	log.Close()
	runs, _, err := sim.ReadRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := runs[len(runs)-1].Summary; s == nil || s.Rounds != m.Round() {
		t.Errorf("the run log's summary: %+v, want one of %d rounds", s, m.Round())
	}
}

// TestPresetMissingDataKeepsRun: P and a preset whose data file is not
// there, on a forked run: "fork ended: the new engine has one branch",
// the round in flight cancelled, the preset's knobs announced, and then
// the build failed for the missing file, the fork lost for nothing. The
// console does not start what cannot be built: it says which file is
// missing, and the run, its fork and its round go on.
func TestPresetMissingDataKeepsRun(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n", "f", "P")
	i := slices.IndexFunc(m.picker.list.Items(), func(it list.Item) bool {
		p, ok := it.(presetItem)
		return ok && p.p.Name == "cora-10"
	})
	m.picker.list.Select(i)
	m.opts.Env = presets.Env{DataDir: t.TempDir()} // cora.npz is not there
	if cmd := m.key(keyMsg("enter")); cmd != nil || m.act != idle {
		t.Errorf("enter on a preset whose data are missing starts work: activity %v", m.act)
	}
	if m.other == nil || m.preset.Name != "sbm" {
		t.Errorf("after picking a preset whose data are missing: fork %v, preset %s", m.other != nil, m.preset.Name)
	}
	if !logged(m, "cora.npz") || logged(m, "brings its own knobs") {
		t.Errorf("the log does not name the missing file, or announces knobs it does not bring:\n%v", m.events)
	}
}

// TestExportViewsInCommand: e and enter computed the last round's views
// that no round had computed (pc1, readout, functional, ...) inside the
// key's handling, the screen frozen meanwhile (1.4 s on cora-10-ref on
// this host, longer on larger graphs; q did not answer). They are
// computed in a command, the console busy with them, and then exported.
func TestExportViewsInCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n", "e")
	m.prompt.input.SetValue(dir)
	last := m.reports[len(m.reports)-1]
	if _, ok := last.Views[sim.Source("pc1")]; ok {
		t.Fatal("round 1 computed pc1 unasked (premise)")
	}
	cmd := m.key(keyMsg("enter"))
	if _, ok := last.Views[sim.Source("pc1")]; ok {
		t.Error("enter computed the views in the key's handling")
	}
	if m.act != computing || cmd == nil {
		t.Errorf("enter: activity %v, want the views computing in a command", m.act)
	}
	drive(m, cmd)
	if _, ok := last.Views[sim.Source("pc1")]; !ok {
		t.Error("the export did not compute pc1")
	}
	if _, err := os.Stat(filepath.Join(dir, "view-pc1.png")); err != nil || m.screen != dashboard || !logged(m, "exported") {
		t.Errorf("after the export: %v, screen %v, log %v", err, m.screen, m.events)
	}
	press(m, "n")
	if m.Round() != 2 {
		t.Errorf("n after the export: %d rounds, want 2", m.Round())
	}
}
