package tui

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// newTestModel opens the console on the sbm preset (at testNodes nodes)
// with seed 7 and the preset's settings, changed by the optional tweaks.
func newTestModel(tb testing.TB, noColor bool, w, h int, tweaks ...func(*sim.Config)) *Model {
	tb.Helper()
	return newPresetModel(tb, "sbm", noColor, w, h, tweaks...)
}

// newPresetModel is newTestModel on the named preset.
func newPresetModel(tb testing.TB, name string, noColor bool, w, h int, tweaks ...func(*sim.Config)) *Model {
	tb.Helper()
	return openPreset(tb, testPreset(tb, name), noColor, w, h, tweaks...)
}

// openPreset is newTestModel on the preset p.
func openPreset(tb testing.TB, p *presets.Preset, noColor bool, w, h int, tweaks ...func(*sim.Config)) *Model {
	tb.Helper()
	cfg := p.Config()
	cfg.Seed = 7
	cfg.Workers = 2
	for _, f := range tweaks {
		f(&cfg)
	}
	m, err := New(Options{Preset: p, Config: cfg, NoColor: noColor})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// testNodes is the number of nodes of the SBM scenarios the console's
// tests open: the paper's 3000 took 1.6 s to build under -race, most of
// the console's tests' time; 600 take 0.15 s.
const testNodes = 600

// testPreset returns the named preset, an SBM scenario with testNodes
// nodes under the same name.
func testPreset(tb testing.TB, name string) *presets.Preset {
	tb.Helper()
	p, err := presets.Get(name)
	if err != nil {
		tb.Fatal(err)
	}
	if p.Spec == nil || !p.Spec.IsSBM() {
		return p
	}
	s := p.Spec.Clone()
	if err := s.Set("nodes", strconv.Itoa(testNodes)); err != nil {
		tb.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		tb.Fatal(err)
	}
	return presets.FromSpec(s)
}

// small makes rounds cheap (a narrow model) for tests of the flow of
// control rather than of the numbers.
func small(c *sim.Config) { c.Hidden = 16 }

// drive runs cmd and every command that follows from it synchronously,
// feeding the messages to m, until nothing is left to do.
func drive(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case stepDoneMsg, progressRelay, builtMsg, exportedMsg, viewDoneMsg, rolledBackMsg, tea.KeyPressMsg:
			_, next := m.Update(msg)
			queue = append(queue, next)
		default:
			m.Update(msg) // a component's own timer: do not renew it
		}
	}
}

// press sends a key press to m and drives what follows.
func press(m *Model, keys ...string) {
	for _, k := range keys {
		drive(m, func() tea.Msg { return keyMsg(k) })
	}
}

// keyMsg makes the key press msg.String() reports as k.
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

var timing = regexp.MustCompile(`[ 0-9]{3}\.[0-9]{2}s/round`)

// masked hides the round time, the only thing on screen that is not
// determined by the seed.
func masked(s string) string {
	return timing.ReplaceAllStringFunc(s, func(t string) string { return "  x.xxs/round" })
}

// plain strips ANSI sequences.
func plain(s string) string { return ansi.Strip(s) }

// newLogModel opens the console on sbm (seed 7, small) with a run log.
func newLogModel(t *testing.T, log *sim.RunLog) *Model {
	t.Helper()
	return newLogModelWith(t, log, nil)
}

// newSessionModel opens newLogModel on a fresh run log, session.jsonl in
// a temporary directory, and returns the console, the log and its path.
func newSessionModel(t *testing.T) (*Model, *sim.RunLog, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	log, err := sim.OpenRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	return newLogModel(t, log), log, path
}

// newLogModelWith is newLogModel with its settings changed by tweak.
func newLogModelWith(t *testing.T, log *sim.RunLog, tweak func(*sim.Config)) *Model {
	t.Helper()
	p := testPreset(t, "sbm")
	cfg := p.Config()
	cfg.Seed, cfg.Workers = 7, 2
	small(&cfg)
	if tweak != nil {
		tweak(&cfg)
	}
	m, err := New(Options{Preset: p, Config: cfg, NoColor: true, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}
