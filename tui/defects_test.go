package tui

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// promptType opens a prompt with key and types text, then enter.
func promptType(m *Model, key, text string) {
	press(m, key)
	for _, r := range text {
		press(m, string(r))
	}
	press(m, "enter")
}

// flat is the screen as one line of words, so that a text wrapped over
// lines can be looked for.
func flat(s string) string { return strings.Join(strings.Fields(plain(s)), " ") }

// TestPromptReplacesValue (defect 1): typing into a knob prompt replaces
// the current value instead of appending to it.
func TestPromptReplacesValue(t *testing.T) {
	m := newTestModel(t, true, 80, 24, small)
	promptType(m, "a", "5")
	if a := m.Knobs().Alpha; a != 5 {
		t.Errorf("a 5 enter: alpha %v, want 5 (not 105)", a)
	}
	promptType(m, "s", "5")
	if s := m.Knobs().Sigma; s != 5 {
		t.Errorf("s 5 enter: sigma %v, want 5 (not 15)", s)
	}
	press(m, "a")
	if !strings.Contains(plain(m.Render()), "alpha now 5") {
		t.Errorf("the prompt does not show the current value:\n%s", plain(m.Render()))
	}
	press(m, "esc")
}

// TestPromptRefusalsReadable (defect 2): every refused value leaves the
// prompt open with the whole reason on screen at 80 columns.
func TestPromptRefusalsReadable(t *testing.T) {
	for _, c := range []struct{ key, text, want string }{
		{"a", "10abc", `alpha refused: "10abc" is not a number; alpha wants a number >= 0`},
		{"a", "-5", "alpha -5 refused: want >= 0"},
		{"a", "", "type a value for alpha (esc keeps 10)"},
		{"a", "1e400", `alpha refused: "1e400" is beyond float64's range`},
		{"a", "NaN", "alpha NaN refused: want a finite number"},
		{"s", "Inf", "sigma +Inf refused: want a finite number"},
		{"A", "25", "partners 25 refused: want <= 20, the number of clients"},
		{"s", "1e-160", "sigma 1e-160 refused: want >= 1.055e-154 (below it the kernel's 2/sigma^2 overflows float64 and rounds fail with NaN gradients)"},
	} {
		m := newTestModel(t, true, 80, 24, small)
		promptType(m, c.key, c.text)
		scr := m.Render()
		if m.screen != prompting {
			t.Errorf("%s %q: the prompt closed", c.key, c.text)
		}
		if got := flat(scr); !strings.Contains(got, "✗ "+c.want) {
			t.Errorf("%s %q: the screen lacks the refusal %q:\n%s", c.key, c.text, c.want, plain(scr))
		}
		for i, l := range strings.Split(plain(scr), "\n") {
			if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
				t.Errorf("%s %q: line %d is cut: %q", c.key, c.text, i, l)
			}
		}
		if k := m.Knobs(); k.Alpha != 10 || k.Sigma != 1 || k.Partners != 0 {
			t.Errorf("%s %q changed the knobs: %+v", c.key, c.text, k)
		}
	}
}

// TestFailedRoundRollsBack (defect 3): a round that fails (a NaN
// injected in one client's gradient in round 3) does not end the
// session: the console rolls back to round 2, says what failed, and the
// user changes alpha and goes on; round 3 is then bit for bit the round
// 3 of a session that changed alpha after round 2 and never failed.
func TestFailedRoundRollsBack(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	corrupt := false
	hooks := &sim.FaultHooks{Corrupt: func(round, client, epoch int, loss *float64, ps []*gnn.Param) {
		if corrupt && round == 3 && client == 3 {
			ps[0].Grad[0] = math.NaN()
		}
	}}
	if err := m.Engine().SetFaults(sim.Faults{Hooks: hooks}); err != nil {
		t.Fatal(err)
	}
	press(m, "n", "n")
	corrupt = true
	press(m, "n")
	corrupt = false
	if m.Round() != 2 || m.Engine().Round() != 2 {
		t.Fatalf("after the failed round: console at %d, engine at %d; want 2", m.Round(), m.Engine().Round())
	}
	log := flat(m.eventsView(len(m.events), 0))
	for _, want := range []string{"round 3 failed (α 10, σ 1): client 3: gradient of conv1.weight entry 0 is NaN in epoch 1",
		"rolled back to round 2"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	press(m, "+", "n", "n")
	if m.Round() != 4 {
		t.Fatalf("after the rollback the session reached round %d, want 4", m.Round())
	}
	ref := newTestModel(t, true, 120, 40, small)
	press(ref, "n", "n", "+", "n", "n")
	for r := range 4 {
		if a, b := reportText(t, m.reports[r]), reportText(t, ref.reports[r]); a != b {
			t.Errorf("round %d differs from the session that never failed:\n%.200s\n%.200s", r+1, a, b)
		}
	}
}

func reportText(t *testing.T, r *sim.RoundReport) string {
	c := *r
	c.Seconds = 0
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestKnobsNotRead (defect 5): a knob the algorithm does not read shows
// as "–" and cannot be changed.
func TestKnobsNotRead(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Algo = methods.GCFL })
	before := len(m.controls)
	press(m, "+", ">", "]")
	press(m, "a")
	if m.screen != dashboard {
		t.Error("a opened a prompt for a knob gcfl does not read")
	}
	if k := m.Knobs(); k.Alpha != 10 || k.Sigma != 1 || k.Partners != 0 || len(m.controls) != before {
		t.Errorf("knobs changed for gcfl: %+v, %d controls", k, len(m.controls))
	}
	scr := plain(m.Render())
	for _, want := range []string{"α –", "σ –", "gcfl does not read alpha", "gcfl does not read sigma"} {
		if !strings.Contains(scr, want) && !strings.Contains(flat(m.eventsView(len(m.events), 0)), want) {
			t.Errorf("lacks %q:\n%s", want, scr)
		}
	}
}

// TestPresetKnobsSaid (defect 6): picking a preset says that it brings
// its own knobs, and which pending change it drops.
func TestPresetKnobsSaid(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "+")
	step := m.key(keyMsg("n"))
	press(m, "+") // waits for the round in flight
	press(m, "P", "enter")
	drive(m, step)
	log := flat(m.eventsView(len(m.events), 0))
	for _, want := range []string{"alpha 11 → 12 dropped: preset sbm brings its own alpha", "preset sbm brings its own knobs: α 10 (was 11)"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if a := m.Knobs().Alpha; a != 10 {
		t.Errorf("alpha %v after the preset, want its own 10", a)
	}
}

// TestRestartRule (defect 7): r restarts with the next seed and R with
// the same seed, whatever is pending.
func TestRestartRule(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n", "r")
	if s := m.cfg.Seed; s != 8 {
		t.Errorf("r: seed %d, want 8", s)
	}
	press(m, "n", "R")
	if s := m.cfg.Seed; s != 8 || m.Round() != 0 {
		t.Errorf("R: seed %d at round %d, want 8 at 0", s, m.Round())
	}
	press(m, "g", "r")
	if s := m.cfg.Seed; s != 9 || m.cfg.Source == sim.SourceAPV {
		t.Errorf("g r: seed %d source %s, want 9 and the next source", s, m.cfg.Source)
	}
	press(m, "x", "R")
	if s := m.cfg.Seed; s != 9 || m.cfg.APVMix {
		t.Errorf("x R: seed %d apv-mix %v, want 9, off", s, m.cfg.APVMix)
	}
}

// TestPendingArrowRoundOne (defect 8): a change made while round 1
// computes shows as old→new.
func TestPendingArrowRoundOne(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	step := m.key(keyMsg("n"))
	m.key(keyMsg("+"))
	m.sync()
	if h := plain(m.hdr.View()); !strings.Contains(h, "α 10→11") {
		t.Errorf("header during round 1: %s", h)
	}
	drive(m, step)
	if h := plain(m.hdr.View()); !strings.Contains(h, "α 10→11") {
		t.Errorf("header after round 1: %s", h)
	}
}

// TestKnobChangesCoalesce (defect 9): a run of > presses before one
// round is one log line and one marker.
func TestKnobChangesCoalesce(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n")
	n := len(m.events)
	press(m, ">", ">", ">", ">", ">")
	if got := len(m.events) - n; got != 1 {
		t.Errorf("5 presses of > wrote %d log lines, want 1", got)
	}
	if last := m.events[len(m.events)-1].text; last != "sigma 1 → 50 from round 2" {
		t.Errorf("log line %q", last)
	}
	if len(m.controls) != 1 || m.controls[0].From != 1 || m.controls[0].To != 50 {
		t.Errorf("controls %+v, want one, 1 → 50", m.controls)
	}
	press(m, "<", "<", "<", "<", "<")
	if len(m.controls) != 0 || m.events[len(m.events)-1].text != "sigma back to 1 for round 2" {
		t.Errorf("back to 1: controls %+v, log %q", m.controls, m.events[len(m.events)-1].text)
	}
}

// TestExportFailureKeepsPrompt (defect 9): a failed export leaves its
// prompt open with the error.
func TestExportFailureKeepsPrompt(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	press(m, "e")
	m.prompt.input.SetValue(filepath.Join(file, "sub"))
	press(m, "enter")
	if m.screen != prompting || !strings.Contains(flat(m.Render()), "✗ export failed") {
		t.Errorf("after a failed export: screen %v\n%s", m.screen, plain(m.Render()))
	}
	m.prompt.input.SetValue(filepath.Join(t.TempDir(), "ok"))
	press(m, "enter")
	if m.screen != dashboard {
		t.Errorf("after a good export the prompt is still open")
	}
}

// TestQuitWritesSummary (defect 9): quitting a console with -log ends
// the log with a summary line.
func TestQuitWritesSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	log, err := sim.OpenRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	m2 := newLogModel(t, log)
	press(m2, "n", "n", "q")
	m2.Close()
	log.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, `"type":"summary"`) || !strings.Contains(last, `"rounds":2`) {
		t.Errorf("last log line %s, want the summary of 2 rounds", last)
	}
}

// TestScenarioValuesMarked (defect 4): a long value in the scenario
// panel is shown from its start with "…" where it is cut (at the left
// when the focused field has scrolled), and the fields widen with the
// terminal.
func TestScenarioValuesMarked(t *testing.T) {
	long := "0.015,0.03,0.045,0.06,0.075,0.09,0.105,0.12,0.135,0.15,0.165,0.18"
	row := func(scr, key string) string {
		for _, l := range strings.Split(plain(scr), "\n") {
			if strings.Contains(l, key+" ") {
				return strings.TrimRight(l, " ")
			}
		}
		return ""
	}
	var widths []int
	for _, w := range []int{80, 120, 200} {
		m := newTestModel(t, true, w, 30, small)
		press(m, "S")
		fd := m.scen.field("sbm.intra")
		fd.input.SetValue(long)
		r := row(m.Render(), "sbm.intra")
		v, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(r), "sbm.intra")), "  was ")
		if !strings.HasPrefix(v, "0.015,0.03,") || !strings.HasSuffix(v, "…") && v != long {
			t.Errorf("%d columns: unfocused long value shown as %q", w, v)
		}
		widths = append(widths, len([]rune(v)))
		for m.scen.Focused() != "sbm.intra" {
			press(m, "tab")
		}
		m.scen.fields["sbm.intra"].input.CursorEnd()
		r = row(m.Render(), "sbm.intra")
		v, _, _ = strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(r), "› sbm.intra")), "  was ")
		if len([]rune(v)) < len([]rune(long)) && !strings.HasPrefix(v, "…") {
			t.Errorf("%d columns: focused, scrolled value shown as %q, without a mark", w, v)
		}
	}
	if !(widths[0] < widths[1]) {
		t.Errorf("value widths at 80, 120, 200 columns: %v; want wider fields on wider screens", widths)
	}
}

// TestChartLabelsWide (defect 9): the y labels keep every digit (100,
// not 00) at 80x24.
func TestChartLabelsWide(t *testing.T) {
	st := NewStyles(true)
	c := chartModel{styles: &st}
	c.SetSize(47, 10)
	var reps []*sim.RoundReport
	for i := 1; i <= 5; i++ {
		reps = append(reps, &sim.RoundReport{Round: i, MeanVal: 90 + 2*float64(i), MeanTest: 91 + 2*float64(i)})
	}
	c.SetData(reps, nil)
	out := plain(c.View())
	if !strings.Contains(out, "100│") || strings.Contains(out, "\n00│") {
		t.Errorf("y labels cut:\n%s", out)
	}
}

// TestPickerFits (defect 9): the preset picker's lines fit the screen
// without a cut mark, and a preset whose data are present does not say
// it needs them.
func TestPickerFits(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		m := newTestModel(t, noColor, 80, 24, small)
		press(m, "P")
		for i, l := range strings.Split(plain(m.Render()), "\n")[2:22] {
			if strings.HasSuffix(l, "…") && !strings.HasSuffix(strings.TrimRight(l, " "), ")…") {
				// Padding cut: blanks before the mark (a description the
				// list cuts after a word ends in one blank: "when …").
				if r := []rune(l); r[len(r)-1] == '…' && r[len(r)-2] == ' ' && r[len(r)-3] == ' ' {
					t.Errorf("colour %v: line %d has a stray cut mark: %q", !noColor, i+2, l)
				}
			}
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cora.npz"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := presets.Get("cora-10")
	if err != nil {
		t.Fatal(err)
	}
	st := NewStyles(true)
	pk := newPicker(&st, []*presets.Preset{p}, nil, presets.Env{DataDir: dir})
	if d := pk.list.Items()[0].(presetItem).Description(); strings.Contains(d, "needs") || !strings.Contains(d, "[reads cora.npz]") {
		t.Errorf("cora.npz present, description %q", d)
	}
	pk = newPicker(&st, []*presets.Preset{p}, nil, presets.Env{DataDir: t.TempDir()})
	if d := pk.list.Items()[0].(presetItem).Description(); !strings.Contains(d, "[needs cora.npz: missing]") {
		t.Errorf("cora.npz missing, description %q", d)
	}
}

// TestHeaderTimeWhileRunning (defect 9): the time per round stays in
// the header at 120 columns while rounds run, also on the console's
// first preset, sbm-gauss, whose longer name and weight spread fill
// the line.
func TestHeaderTimeWhileRunning(t *testing.T) {
	for _, preset := range []string{"sbm", "sbm-gauss"} {
		m := newPresetModel(t, preset, true, 120, 40, small)
		press(m, "n")
		m.running = true
		step := m.key(keyMsg("n"))
		m.done = 7
		m.sync()
		if h := plain(m.hdr.View()); !strings.Contains(h, "s/round") || !strings.Contains(h, "▶") {
			t.Errorf("%s: header while running: %q", preset, h)
		}
		m.running = false
		drive(m, step)
	}
}

// TestHeatMapUsesRoom (defect 10): at 200x50 the heat map's cells widen
// to the pane instead of keeping the 120-column size.
func TestHeatMapUsesRoom(t *testing.T) {
	m := newTestModel(t, true, 200, 50, small)
	press(m, "n")
	widest := 0
	for _, l := range strings.Split(plain(m.heat.View()), "\n") {
		widest = max(widest, len([]rune(strings.TrimRight(l, " "))))
	}
	if l := m.plan(); widest <= l.rightW-m.k { // within a column a client of the pane
		t.Errorf("heat map %d columns wide in a %d-column pane", widest, l.rightW)
	}
}

// TestWeightsNote (defect 9): the auto-stretch note of the weights
// reads well.
func TestWeightsNote(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n")
	for m.heat.src != srcWeights {
		press(m, "m")
	}
	if note := m.heat.AutoNote(); strings.Contains(note, "s's") {
		t.Errorf("note %q", note)
	}
}

// TestPausedViewComputed (defect 9): paused, a view the round did not
// compute (pc1, readout, functional) is computed when the heat map
// shows it, instead of staying empty until the next round.
func TestPausedViewComputed(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n")
	for _, name := range []string{"pc1", "readout", "functional"} {
		for i := 0; m.heat.src != name; i++ {
			if i == 10 {
				t.Fatalf("m does not reach the view %s", name)
			}
			press(m, "m")
		}
		if _, ok := m.reports[len(m.reports)-1].Views[sim.Source(name)]; !ok {
			t.Errorf("%s shown while paused, but not computed for round %d", name, len(m.reports))
		}
		if scr := plain(m.Render()); strings.Contains(scr, "computed from round") {
			t.Errorf("%s: the heat map waits for the next round:\n%s", name, scr)
		}
	}
}

// TestPromptValuesAsTyped: the run takes the value typed, never another
// one the console made of it. A value below float64's smallest is refused
// (it read as 0); a value longer than 256 characters is read whole (it
// was cut to 256); the screen shows a value as the run uses it (10.00001
// showed as 10).
func TestPromptValuesAsTyped(t *testing.T) {
	for _, c := range []struct{ key, text, want string }{
		{"a", "1e-400", `alpha refused: "1e-400" is below float64's smallest value and would be 0`},
		{"s", "-0x1p-2000", `sigma refused: "-0x1p-2000" is below float64's smallest value`},
	} {
		m := newTestModel(t, true, 100, 30, small)
		promptType(m, c.key, c.text)
		if m.screen != prompting || !strings.Contains(flat(m.Render()), "✗ "+c.want) {
			t.Errorf("%s %q: screen %v, refusal %q, want %q", c.key, c.text, m.screen, m.prompt.err, c.want)
		}
	}
	m := newTestModel(t, true, 100, 30, small)
	promptType(m, "a", "0.0e-999")
	if m.screen != dashboard || m.Knobs().Alpha != 0 {
		t.Errorf("a 0.0e-999 (a zero, typed as such): screen %v, alpha %v", m.screen, m.Knobs().Alpha)
	}
	long := "1" + strings.Repeat("0", 251) + "e-250" // 10, in 257 characters
	promptType(m, "a", long)
	if a := m.Knobs().Alpha; a != 10 {
		t.Errorf("alpha typed as %d characters worth 10: %v", len(long), a)
	}
	promptType(m, "a", "10.00001")
	if a := m.Knobs().Alpha; a != 10.00001 {
		t.Fatalf("alpha %v, want 10.00001", a)
	}
	if !logged(m, "alpha 10 → 10.00001") || !strings.Contains(plain(m.Render()), "α 10.00001") {
		t.Errorf("the change does not show the value typed:\nlog %v\n%s", m.events, plain(m.Render()))
	}
}

// TestScenarioKeepsLiveSettings: applying the scenario panel keeps the
// method's live settings as the panel says the run settings stay (FedProx's
// mu went back to its default).
func TestScenarioKeepsLiveSettings(t *testing.T) {
	m := newTinyModel(t, 100, 30, func(o *Options) { o.Config.Algo = methods.FedProx })
	press(m, "o", "0", ".", "5", "enter")
	if got := m.Knobs().Value("mu"); got != 0.5 {
		t.Fatalf("mu %v after o 0.5", got)
	}
	press(m, "S")
	typeInto(t, m, "clients", "8")
	press(m, "enter")
	if m.screen != dashboard || m.k != 8 {
		t.Fatalf("the scenario was not applied: screen %v, %d clients", m.screen, m.k)
	}
	if got := m.Engine().Knobs().Value("mu"); got != 0.5 {
		t.Errorf("mu %v in the new engine, want 0.5 as set", got)
	}
}

// TestSettingTabKeepsTyped: tab in the live-setting prompt with a value
// typed does not move on (it threw the value away without a word); with
// the field empty it moves to the next setting.
func TestSettingTabKeepsTyped(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Algo = methods.GCFL })
	press(m, "o", "0", ".", "0", "7", "tab")
	if m.screen != prompting || m.prompt.setting != "eps1" || m.prompt.input.Value() != "0.07" || !strings.Contains(m.prompt.err, "enter applies 0.07 to eps1") {
		t.Fatalf("tab with 0.07 typed: screen %v, setting %s, field %q, err %q", m.screen, m.prompt.setting, m.prompt.input.Value(), m.prompt.err)
	}
	press(m, "backspace", "backspace", "backspace", "backspace", "tab")
	if m.prompt.setting != "eps2" {
		t.Errorf("tab with the field empty: setting %s, want eps2", m.prompt.setting)
	}
	press(m, "esc")
	if k := m.Knobs(); k.Value("eps1") != 0.05 || len(m.Engine().KnobHistory()) != 0 {
		t.Errorf("knobs changed: eps1 %v, history %v", k.Value("eps1"), m.Engine().KnobHistory())
	}
}

// TestPromptHintWhileRunning: a knob prompt opened while rounds run on
// names no round number, which the next rounds would make wrong while it
// stays open; paused, it names the round.
func TestPromptHintWhileRunning(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n", "a")
	if !strings.Contains(m.prompt.hint, "from round 2") {
		t.Errorf("paused: hint %q", m.prompt.hint)
	}
	press(m, "esc")
	m.running = true
	press(m, "a")
	if !strings.Contains(m.prompt.hint, "from the round after the one in flight") {
		t.Errorf("running: hint %q", m.prompt.hint)
	}
	press(m, "esc")
	m.running = false
}

// TestPresetNoteNamesAlgoAndSettings: choosing a preset that brings
// another algorithm says so, and which method setting of the session it
// drops (both went unsaid).
func TestPresetNoteNamesAlgoAndSettings(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Algo = methods.GCFL })
	press(m, "o", "0", ".", "0", "7", "enter")
	m.presetKnobsNote("other", sim.DefaultConfig())
	for _, want := range []string{"algorithm fedaux (was gcfl)", "eps1 0.07 dropped (fedaux does not read it)"} {
		if !logged(m, want) {
			t.Errorf("the log lacks %q: %v", want, m.events)
		}
	}
}

// TestKnobAfterLastRound: a knob changed after the run's last round says
// that no round uses it (it named a round the run does not have).
func TestKnobAfterLastRound(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Rounds = 2 })
	press(m, "n", "n", "+")
	if !logged(m, "alpha 10 → 11 from round 3 (the run ends at round 2: no round uses it)") {
		t.Errorf("log: %v", m.events)
	}
}

// TestKnobAtEndOfRange: a key that cannot move a knob further says so
// (alpha - at 0 did nothing and said nothing).
func TestKnobAtEndOfRange(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	promptType(m, "a", "0")
	press(m, "-")
	if !logged(m, "alpha stays 0") || m.Knobs().Alpha != 0 {
		t.Errorf("alpha %v, log %v", m.Knobs().Alpha, m.events)
	}
}

// TestHeaderSourceOnlyWhenRead: the header names the similarity source
// only for the algorithms whose weights it sets (fedpub showed "apv"
// while its functional view set the weights).
func TestHeaderSourceOnlyWhenRead(t *testing.T) {
	for algo, want := range map[sim.Algorithm]string{methods.FedAux: "sbm·fedaux·apv", methods.FedPub: "sbm·fedpub │"} {
		m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Algo = algo })
		if scr := plain(m.Render()); !strings.Contains(scr, want) {
			t.Errorf("%s: the header lacks %q:\n%s", algo, want, strings.SplitN(scr, "\n", 2)[0])
		}
	}
}
