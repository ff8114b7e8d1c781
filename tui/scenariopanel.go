package tui

import (
	"fmt"
	"path/filepath"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/presets"
)

// DefaultScenarioDir is the directory whose scenario files the preset
// list shows when Options.ScenarioDir is empty: the working directory's
// scenarios/.
const DefaultScenarioDir = "scenarios"

// scenarioDir is the directory of scenario files the picker lists.
func (m *Model) scenarioDir() string {
	if m.opts.ScenarioDir == "" {
		return DefaultScenarioDir
	}
	return m.opts.ScenarioDir
}

// openScenario opens the scenario panel on the current scenario.
func (m *Model) openScenario() tea.Cmd {
	ok, cmd := m.scen.Open(m.preset)
	if !ok {
		m.logf(true, "%s is built in code: it has no scenario keys to edit", m.preset.Name)
		return nil
	}
	m.scen.note = m.applyNote()
	m.screen = editing
	m.resize()
	return cmd
}

// applyNote says what applying the panel does to the run.
func (m *Model) applyNote() string {
	kn := m.Knobs()
	return fmt.Sprintf("enter builds an engine for the changed scenario and starts again at round 0 "+
		"with seed %d (the round in flight, if any, is cancelled); the run settings stay: %s, %d rounds, α %s, σ %s. "+
		"Rounds go on while you edit.",
		m.cfg.Seed, m.cfg.Algo, m.cfg.Rounds, fmtKnob(kn.Alpha), fmtKnob(kn.Sigma))
}

// scenarioKey handles a key in the scenario panel.
func (m *Model) scenarioKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.scen.keys.Cancel):
		m.scen.Close()
		m.screen = dashboard
		return nil
	case key.Matches(msg, m.scen.keys.Apply):
		return m.applyScenario()
	}
	var cmd tea.Cmd
	m.scen, cmd = m.scen.Update(msg)
	return cmd
}

// applyScenario builds an engine for the form's scenario through the
// console's rebuild path, with the run settings and knobs of the engine
// now (as a reset keeps them) and the same seed; the panel stays open
// until the engine is ready, and shows why when it cannot be built.
func (m *Model) applyScenario() tea.Cmd {
	f := &m.scen
	if f.building {
		return nil
	}
	if !f.Valid() {
		return nil
	}
	sets := f.Changes()
	if len(sets) == 0 {
		f.Close()
		m.screen = dashboard
		m.logf(false, "scenario %s unchanged", m.preset.Name)
		return nil
	}
	if m.act == building {
		f.general = "an engine is being built; apply again in a moment"
		return nil
	}
	p, err := m.preset.With(sets)
	if err != nil { // checked already; kept for safety
		f.attach(err)
		return nil
	}
	c := m.cfg
	kn := m.Knobs()
	c.Alpha, c.Sigma, c.Partners, c.Options = kn.Alpha, kn.Sigma, kn.Partners, kn.Settings
	why := "scenario " + p.Name + ": " + f.Summary()
	if k := float64(p.Spec.Clients); c.Partners > k {
		c.Partners = k
		why += fmt.Sprintf(" (auto α partners %s → %s, the clients there are)", fmtKnob(kn.Partners), fmtKnob(k))
	}
	c, why = m.withVariant(c, why)
	f.building = true
	return m.rebuild(p, c, why)
}

// scenarioBuilt tells the panel how the build it asked for went: on
// success it closes, on failure it shows why and keeps the values.
func (m *Model) scenarioBuilt(err error) {
	if !m.scen.building {
		return
	}
	if err != nil {
		m.scen.BuildFailed(err)
		return
	}
	m.scen.Close()
	m.edited = true
	if m.screen == editing {
		m.screen = dashboard
	}
}

// scenarioFilesMsg delivers the scenario files of a directory to the
// picker.
type scenarioFilesMsg struct {
	dir   string
	files []*presets.Preset
	errs  []error
}

// openPicker opens the preset list on the built-in presets and reads the
// scenario directory's files in a command.
func (m *Model) openPicker() tea.Cmd {
	m.picker = newPicker(m.styles, presets.All(), m.preset, m.opts.Env)
	m.picker.SetDir(m.scenarioDir())
	m.screen = picking
	m.resize()
	dir := m.scenarioDir()
	return func() tea.Msg {
		ps, errs := presets.LoadDir(dir)
		return scenarioFilesMsg{dir: filepath.Clean(dir), files: ps, errs: errs}
	}
}
