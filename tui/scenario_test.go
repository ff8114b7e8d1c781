package tui

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/fedaux/fedaux/presets"
)

// tinyTOML is a 120-node SBM of 6 clients in 2 groups, with a narrow
// model, so that building and stepping it costs little.
const tinyTOML = `description = "tiny SBM for the console's tests"
graph = "sbm"
clients = 6

[sbm]
nodes = 120
groups = 2
intra = [0.3, 0.6]
inter = 0.02
classes = 2

[run]
rounds = 5
hidden = 8
epochs = 1
`

// tinyPreset returns the tiny scenario as a preset.
func tinyPreset(tb testing.TB) *presets.Preset {
	tb.Helper()
	s, err := presets.ParseSpec("tiny", "", []byte(tinyTOML))
	if err != nil {
		tb.Fatal(err)
	}
	p := presets.FromSpec(s)
	p.Source = tinyTOML
	return p
}

// newTinyModel opens the console on the tiny scenario with seed 7.
func newTinyModel(tb testing.TB, w, h int, opts ...func(*Options)) *Model {
	tb.Helper()
	p := tinyPreset(tb)
	cfg := p.Config()
	cfg.Seed, cfg.Workers = 7, 2
	o := Options{Preset: p, Config: cfg, NoColor: true}
	for _, f := range opts {
		f(&o)
	}
	m, err := New(o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// typeInto focuses key k of the open panel, clears it and types v.
func typeInto(t *testing.T, m *Model, k, v string) {
	t.Helper()
	i := slices.Index(m.scen.shown, k)
	if i < 0 {
		t.Fatalf("the panel does not show %s (shows %v)", k, m.scen.shown)
	}
	for m.scen.Focused() != k {
		press(m, "tab")
	}
	drive(m, func() tea.Msg { return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl} })
	for _, r := range v {
		press(m, string(r))
	}
}

func TestFormKeysOf(t *testing.T) {
	base := []string{"clients", "sbm.nodes", "sbm.groups", "sbm.intra", "sbm.inter", "sbm.classes", "sbm.purity", "sbm.features"}
	split := []string{"split.train", "split.test"}
	for _, c := range []struct {
		name string
		sets []string
		want []string
	}{
		{"sbm", nil, slices.Concat(base, split)},
		{"sbm", []string{"features=gaussian"}, slices.Concat(base, []string{"sbm.feature_dim", "sbm.noise", "sbm.mean_scale"}, split)},
		{"cora-10", nil, slices.Concat([]string{"graph", "clients", "partition.method", "partition.file", "partition.fallback"}, split)},
		{"cora-10", []string{"partition.method=label-skew"}, slices.Concat([]string{"graph", "clients", "partition.method", "partition.beta"}, split)},
		{"cora-10", []string{"partition.method=louvain"}, slices.Concat([]string{"graph", "clients", "partition.method"}, split)},
	} {
		p, err := presets.Get(c.name)
		if err != nil {
			t.Fatal(err)
		}
		s := p.Spec.Clone()
		for _, kv := range c.sets {
			k, v, _ := strings.Cut(kv, "=")
			if err := s.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		if got := formKeysOf(s); !slices.Equal(got, c.want) {
			t.Errorf("%s %v: keys %v, want %v", c.name, c.sets, got, c.want)
		}
	}
}

// TestScenarioFormCheck types values into the form: a malformed one and
// an impossible one are explained beside their fields and kept; fixed,
// the form lists the changes as -set takes them.
func TestScenarioFormCheck(t *testing.T) {
	st := NewStyles(true)
	f := newScenarioForm(&st)
	f.SetSize(100, 30)
	if ok, _ := f.Open(tinyPreset(t)); !ok {
		t.Fatal("the form does not open on a scenario")
	}
	set := func(k, v string) {
		t.Helper()
		for f.Focused() != k {
			f, _ = f.Update(keyMsg("tab"))
		}
		f.fields[k].input.SetValue("")
		for _, r := range v {
			f, _ = f.Update(keyMsg(string(r)))
		}
	}
	errOf := func(k string) string { return f.fields[k].err }

	set("clients", "x")
	if e := errOf("clients"); !strings.Contains(e, `"x" is not an integer`) || f.spec != nil {
		t.Errorf("clients x: error %q", e)
	}
	set("clients", "6")
	set("sbm.groups", "9")
	if e := errOf("sbm.groups"); !strings.Contains(e, "9, want 1..clients = 6") {
		t.Errorf("groups 9 of 6 clients: error %q", e)
	}
	if !strings.Contains(f.View(), "✗ 9, want 1..clients = 6") {
		t.Errorf("the error is not beside the field:\n%s", f.View())
	}
	set("sbm.intra", "0.1") // move away: the focus goes back to the error on apply
	if f.Valid() || f.Focused() != "sbm.groups" {
		t.Errorf("an invalid form is valid, or the focus (%s) is not on the error", f.Focused())
	}
	if got := f.fields["sbm.groups"].input.Value(); got != "9" {
		t.Errorf("the invalid value is not kept: %q", got)
	}
	set("sbm.groups", "3")
	if e := errOf("sbm.intra"); !strings.Contains(e, "1 values, want one per group (groups = 3)") {
		t.Errorf("intra of 1 for 3 groups: error %q", e)
	}
	set("sbm.intra", "0.2,0.4,1.5")
	if e := errOf("sbm.intra"); !strings.Contains(e, "1.5, want a probability in [0, 1]") {
		t.Errorf("intra 1.5: error %q", e)
	}
	set("sbm.intra", "0.2,0.4,0.6")
	set("clients", "9")
	if !f.Valid() {
		t.Fatalf("a valid form is not: %s", f.View())
	}
	want := []string{"clients=9", "sbm.groups=3", "sbm.intra=0.2,0.4,0.6"}
	if got := f.Changes(); !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	if got, want := f.Summary(), "clients 6 → 9, groups 2 → 3, intra 0.3,0.6 → 0.2,0.4,0.6"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if v := f.View(); !strings.Contains(v, "was 0.3,0.6") {
		t.Errorf("the panel does not show the old value:\n%s", v)
	}
}

// TestScenarioFormGaussian switches the features: the gaussian keys
// appear, and leave (with their edits) when switched back.
func TestScenarioFormGaussian(t *testing.T) {
	st := NewStyles(true)
	f := newScenarioForm(&st)
	f.Open(tinyPreset(t))
	f.fields["sbm.features"].input.SetValue("gaussian")
	f.check()
	if !slices.Contains(f.shown, "sbm.noise") || f.spec == nil {
		t.Fatalf("gaussian features: keys %v, spec %v", f.shown, f.spec)
	}
	f.fields["sbm.noise"].input.SetValue("-1")
	f.check()
	if e := f.fields["sbm.noise"].err; !strings.Contains(e, "-1, want >= 0") {
		t.Errorf("noise -1: error %q", e)
	}
	f.fields["sbm.features"].input.SetValue("onehot")
	f.check()
	if slices.Contains(f.shown, "sbm.noise") || f.spec == nil || len(f.Changes()) != 0 {
		t.Errorf("back to onehot: keys %v, changes %v, valid %v", f.shown, f.Changes(), f.spec != nil)
	}
	f.fields["sbm.features"].input.SetValue("fancy")
	f.check()
	if e := f.fields["sbm.features"].err; !strings.Contains(e, `"fancy", want onehot or gaussian`) {
		t.Errorf("features fancy: error %q", e)
	}
}

// TestScenarioPanelApply edits the scenario through the console's keys
// and applies it: the engine is rebuilt with the new scenario, the same
// seed and the changed alpha, from round 0, and the log says what changed.
func TestScenarioPanelApply(t *testing.T) {
	m := newTinyModel(t, 100, 30)
	press(m, "n", "+")
	press(m, "S")
	if m.screen != editing {
		t.Fatal("S does not open the scenario panel")
	}
	press(m, "q") // typed into the focused field, not a quit
	if m.screen != editing || !strings.Contains(m.scen.fields["clients"].err, "not an integer") {
		t.Fatalf("q in the panel: screen %v, clients error %q", m.screen, m.scen.fields["clients"].err)
	}
	typeInto(t, m, "clients", "8")
	typeInto(t, m, "sbm.groups", "4")
	press(m, "enter")
	if m.screen != editing || m.act != idle || m.Engine().Config().Seed != 7 || m.k != 6 {
		t.Fatal("an invalid scenario was applied")
	}
	if m.scen.Focused() != "sbm.intra" {
		t.Errorf("apply leaves the focus on %s, want the field in error (sbm.intra)", m.scen.Focused())
	}
	typeInto(t, m, "sbm.intra", "0.2,0.3,0.5,0.6")
	press(m, "enter")
	if m.screen != dashboard {
		t.Fatalf("after applying: screen %v; panel:\n%s", m.screen, m.scen.View())
	}
	if m.k != 8 || m.preset.Spec.SBM.Groups != 4 || m.Round() != 0 {
		t.Errorf("new engine: %d clients, %d groups, round %d", m.k, m.preset.Spec.SBM.Groups, m.Round())
	}
	if c := m.Engine().Config(); c.Seed != 7 || c.Alpha != 11 || c.Rounds != 5 || c.Hidden != 8 {
		t.Errorf("the run settings were not kept: %+v", c)
	}
	if m.preset.Fingerprint() == "" {
		t.Error("the changed scenario has the original's fingerprint")
	}
	if !logged(m, "scenario tiny: clients 6 → 8, groups 2 → 4, intra 0.3,0.6 → 0.2,0.3,0.5,0.6") || !logged(m, "8 clients: ready") {
		t.Errorf("log:\n%v", m.events)
	}
	press(m, "n")
	if m.Round() != 1 || len(m.reports[0].Clients) != 8 {
		t.Errorf("round 1 of the new scenario: %d rounds", m.Round())
	}
	// The panel now edits the changed scenario.
	press(m, "S")
	if got := m.scen.fields["clients"].orig; got != "8" {
		t.Errorf("the panel reopens on clients %s, want 8", got)
	}
	press(m, "esc")
	if m.screen != dashboard || m.k != 8 {
		t.Errorf("esc: screen %v, %d clients", m.screen, m.k)
	}
}

// TestScenarioPanelBuildError: an engine that cannot be built leaves the
// panel open with the values and the reason, beside the key it names or
// under the fields, and the old engine running.
func TestScenarioPanelBuildError(t *testing.T) {
	m := newTinyModel(t, 100, 30)
	old := m.Engine()
	press(m, "S")
	typeInto(t, m, "sbm.nodes", "60")
	cmd := m.key(keyMsg("enter"))
	if !m.scen.building || m.act != building || cmd == nil {
		t.Fatal("apply does not build")
	}
	m.Update(builtMsg{job: m.job, err: &presets.SpecError{Key: "sbm.nodes", Err: errors.New("too few nodes")}})
	if m.screen != editing || m.Engine() != old || m.scen.fields["sbm.nodes"].input.Value() != "60" {
		t.Fatalf("after a failed build: screen %v, engine replaced %v", m.screen, m.Engine() != old)
	}
	if v := plain(m.Render()); !strings.Contains(v, "✗ cannot build: too few nodes") {
		t.Errorf("the build error is not beside sbm.nodes:\n%s", v)
	}
	m.key(keyMsg("enter"))
	m.Update(builtMsg{job: m.job, err: errors.New("graphio: out of luck")})
	if v := plain(m.Render()); !strings.Contains(v, "✗ cannot build: graphio: out of luck") || !strings.Contains(v, "! graphio: out of luck") {
		t.Errorf("the build error is not in the panel and the log:\n%s", v)
	}
}

// TestScenarioPanelSizes renders the panel, with errors and gaussian
// keys, at many sizes: it always fills the terminal exactly.
func TestScenarioPanelSizes(t *testing.T) {
	m := newTinyModel(t, 80, 24)
	press(m, "S")
	typeInto(t, m, "sbm.features", "gaussian")
	typeInto(t, m, "sbm.groups", "99")
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {60, 20}, {40, 12}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		checkSize(t, m.Render(), sz[0], sz[1])
		if v := plain(m.Render()); !strings.Contains(v, "› sbm.groups") {
			t.Errorf("%dx%d: the focused field is not in view:\n%s", sz[0], sz[1], v)
		}
	}
}

// TestPickerScenarioFiles lists a directory's scenario files in the P
// list, a broken one with its error, and loads one.
func TestPickerScenarioFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.toml")
	bad := filepath.Join(dir, "broken.toml")
	if err := os.WriteFile(good, []byte(strings.Replace(tinyTOML, "clients = 6", "clients = 4", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("graph = \"sbm\"\nclients = 3\n[sbm]\ngroups = 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTinyModel(t, 120, 40, func(o *Options) { o.ScenarioDir = dir })
	press(m, "P")
	items := m.picker.list.Items()
	if len(items) != len(presets.All())+2 {
		t.Fatalf("the list has %d items, want the %d presets and 2 files", len(items), len(presets.All()))
	}
	if it, ok := items[1].(badFileItem); !ok || !strings.Contains(it.Description(), "broken.toml:4: sbm.groups: 7, want 1..clients = 3") {
		t.Errorf("item 1 is %#v, want broken.toml with its error", items[1])
	}
	scr := plain(m.Render())
	for _, want := range []string{"mine.toml", "file " + good, "broken.toml ✗", "sbm.groups: 7, want"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the list lacks %q:\n%s", want, scr)
		}
	}
	m.picker.list.Select(1)
	press(m, "enter")
	if m.screen != dashboard || m.preset.Name != "tiny" || !logged(m, "sbm.groups: 7, want") {
		t.Errorf("picking a broken file: screen %v, preset %s", m.screen, m.preset.Name)
	}
	press(m, "P")
	m.picker.list.Select(0)
	press(m, "enter")
	if m.preset.File != good || m.k != 4 {
		t.Errorf("after picking mine.toml: preset %s (%s), %d clients", m.preset.Name, m.preset.File, m.k)
	}
	press(m, "P")
	if p := m.picker.Selected(); p == nil || p.File != good {
		t.Errorf("the list does not open on the file that runs: %v", p)
	}
}

// focusRow is how the panel shows key k with value v when it has the focus.
func focusRow(k, v string) string { return "› " + k + strings.Repeat(" ", keyW-len(k)) + v }

// logged reports whether a line of m's log contains s.
func logged(m *Model, s string) bool {
	return slices.ContainsFunc(m.events, func(e event) bool { return strings.Contains(e.text, s) })
}

// TestFlowScenario edits the scenario in a running console: an invalid
// value is explained inline and kept, the fixed scenario is applied, the
// engine rebuilt in a command, and a round of the new scenario runs.
func TestFlowScenario(t *testing.T) {
	m := newTinyModel(t, 120, 40)
	o := &observer{}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithFilter(o.filter)))
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 1", func(o *observer) bool { return o.round == 1 && !o.busy })
	tm.Send(keyMsg("S"))
	tm.Send(keyMsg("down"))
	tm.Send(keyMsg("down"))
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tm.Type("12")
	o.waitFor(t, tm, "the inline error", func(o *observer) bool {
		return strings.Contains(o.screen, focusRow("sbm.groups", "12")) && strings.Contains(o.screen, "✗ 12, want 1..clients = 6")
	})
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tm.Type("3")
	o.waitFor(t, tm, "the intra error", func(o *observer) bool {
		return strings.Contains(o.screen, "✗ 2 values, want one per group (groups = 3)")
	})
	tm.Send(keyMsg("down"))
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tm.Type("0.2,0.4,0.6")
	tm.Send(keyMsg("up"))
	tm.Send(keyMsg("up"))
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tm.Type("270") // 30 nodes a client: every one has training nodes
	tm.Send(keyMsg("up"))
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tm.Type("9")
	o.waitFor(t, tm, "a valid form", func(o *observer) bool {
		return strings.Contains(o.screen, focusRow("clients", "9")) && !strings.Contains(o.screen, "✗")
	})
	tm.Send(keyMsg("enter"))
	o.waitFor(t, tm, "the new engine", func(o *observer) bool { return o.logged("9 clients: ready") && !o.busy })
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 1 of the new scenario", func(o *observer) bool {
		return o.round == 1 && !o.busy && strings.Contains(o.screen, "round 1/5") && strings.Contains(o.screen, "C08 ")
	})
	tm.Send(keyMsg("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).(*Model)
	m.Close()
	if fm.k != 9 || len(fm.reports) != 1 || len(fm.reports[0].Clients) != 9 {
		t.Errorf("final model: %d clients, %d rounds", fm.k, len(fm.reports))
	}
	if gs := fm.Engine().Data().Groups; len(gs) != 9 || gs[8] != 2 {
		t.Errorf("groups of the new engine: %v, want 3 groups of 3", gs)
	}
	if !logged(fm, "scenario tiny: clients 6 → 9, nodes 120 → 270, groups 2 → 3, intra 0.3,0.6 → 0.2,0.4,0.6") {
		t.Errorf("the log does not say what changed: %v", fm.events)
	}
}
