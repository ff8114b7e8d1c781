package tui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/sim"
)

// key handles a key press according to the screen.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	switch m.screen {
	case prompting:
		return m.promptKey(msg)
	case picking:
		return m.pickerKey(msg)
	case editing:
		return m.scenarioKey(msg)
	case choosing:
		return m.algoKey(msg)
	case helping: // any key returns, q too (ctrl+c quits, above)
		m.closeOverlay()
		return nil
	case drilling:
		switch {
		case key.Matches(msg, m.keys.Cancel), key.Matches(msg, m.keys.Client):
			m.screen = dashboard
			return nil
		case key.Matches(msg, m.keys.cellUp):
			m.drill.Move(-1)
			return nil
		case key.Matches(msg, m.keys.cellDown):
			m.drill.Move(1)
			return nil
		}
		// Any other key does what it does on the dashboard (n steps, the
		// knobs change) while the drill-down stays on screen; a prompt or
		// the help it opens closes back to it.
		cmd := m.dashboardKey(msg)
		if m.screen == prompting || m.screen == helping {
			m.back = drilling
		}
		return cmd
	}
	return m.dashboardKey(msg)
}

// dashboardKey handles a key of the dashboard's.
func (m *Model) dashboardKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.screen = helping
	case key.Matches(msg, k.Step):
		return m.addSteps(1)
	case key.Matches(msg, k.Step10):
		return m.addSteps(10)
	case key.Matches(msg, k.Run):
		if m.starting && m.stepsLeft > 0 {
			// space while the start rounds run: run on (not pause).
			m.starting, m.running, m.stepsLeft = false, true, 0
			m.logf(false, "running")
			return m.next()
		}
		if m.running || m.stepsLeft > 0 {
			m.running, m.stepsLeft = false, 0
			m.logf(false, "paused after round %d", len(m.reports)+1)
			return nil
		}
		if len(m.reports) >= m.cfg.Rounds {
			m.logf(false, "all %d rounds have run; %s", m.cfg.Rounds, restartHint)
			return nil
		}
		m.running = true
		return m.next()
	case key.Matches(msg, k.AlphaUp):
		return m.setKnob("alpha", m.Knobs().Alpha+1)
	case key.Matches(msg, k.AlphaDown):
		return m.setKnob("alpha", math.Max(0, m.Knobs().Alpha-1))
	case key.Matches(msg, k.SigmaUp):
		return m.setKnob("sigma", ladder(m.Knobs().Sigma, +1))
	case key.Matches(msg, k.SigmaDown):
		return m.setKnob("sigma", ladder(m.Knobs().Sigma, -1))
	case key.Matches(msg, k.SetAlpha):
		return m.openKnobPrompt(askAlpha)
	case key.Matches(msg, k.SetSigma):
		return m.openKnobPrompt(askSigma)
	case key.Matches(msg, k.PartnersUp):
		return m.setKnob("partners", min(float64(m.k), math.Floor(m.Knobs().Partners)+1))
	case key.Matches(msg, k.PartnersDown):
		return m.setKnob("partners", math.Max(0, math.Ceil(m.Knobs().Partners)-1))
	case key.Matches(msg, k.SetPartners):
		return m.openKnobPrompt(askPartners)
	case key.Matches(msg, k.Setting):
		return m.openSettingPrompt("")
	case key.Matches(msg, k.Source):
		m.cycleSource()
	case key.Matches(msg, k.APVMix):
		m.toggleAPVMix()
	case key.Matches(msg, k.Export):
		m.screen = prompting
		dir := m.opts.ExportDir
		if dir == "" {
			dir = export.DefaultDir(m.preset.Name, m.opts.Now())
		}
		return m.prompt.Open(askExport, dir, "a directory; it is created, files in it are replaced")
	case key.Matches(msg, k.Reset):
		return m.reset(true)
	case key.Matches(msg, k.Restart):
		return m.reset(false)
	case key.Matches(msg, k.Preset):
		return m.openPicker()
	case key.Matches(msg, k.Scenario):
		return m.openScenario()
	case key.Matches(msg, k.Matrix):
		if name := m.heat.NextSource(); name == "" {
			m.logf(false, "no round yet: the heat map has no matrix to switch to")
		}
		m.wantViews()
		return m.completeShown()
	case key.Matches(msg, k.Scale):
		if m.heat.ToggleScale() {
			m.logf(false, "heat map stretched over the off-diagonal range (z: raw scale)")
		} else {
			m.logf(false, "heat map on the raw scale: [-1, 1] for cosines, [0, 1] for weights (z: stretched)")
		}
	case key.Matches(msg, k.Values):
		m.heat.ToggleValues()
		m.resize()
	case key.Matches(msg, k.Pane):
		m.pane = 1 - m.pane
		m.resize()
	case key.Matches(msg, k.Fork):
		return m.forkHere("")
	case key.Matches(msg, k.ForkAlgo):
		m.openAlgoPicker()
	case key.Matches(msg, k.Branch):
		return m.swapBranch()
	case key.Matches(msg, k.Client):
		id := 0
		if len(m.order) > 0 {
			id = m.order[0]
		}
		if m.heat.values {
			id = m.heat.at(m.heat.cy)
		}
		m.openDrill(id)
	case m.heat.values && key.Matches(msg, k.cellUp):
		m.heat.Move(0, -1)
	case m.heat.values && key.Matches(msg, k.cellDown):
		m.heat.Move(0, 1)
	case m.heat.values && key.Matches(msg, k.cellLeft):
		m.heat.Move(-1, 0)
	case m.heat.values && key.Matches(msg, k.cellRight):
		m.heat.Move(1, 0)
	}
	return nil
}

// quit cancels the round in flight and ends the program; Close (or Run)
// waits for the cancelled work.
func (m *Model) quit() tea.Cmd {
	m.running, m.stepsLeft = false, 0
	m.drv.cancelStep()
	return tea.Quit
}

func (m *Model) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		m.prompt.Close()
		m.closeOverlay()
		return nil
	case m.prompt.kind == askExport && m.prompt.busy != "":
		return nil // the export asked for is under way: the field is its directory, kept
	case key.Matches(msg, m.keys.Confirm):
		if m.prompt.kind == askExport {
			// The spaces around a name are not part of it (a pasted
			// path's); a blank field names no directory.
			dir := strings.TrimSpace(m.prompt.input.Value())
			if dir == "" {
				m.prompt.err = "name a directory"
				return nil
			}
			// The prompt stays open until the export is written, and
			// shows why if it fails (exported).
			return m.exportTo(dir)
		}
		name, v, err := m.prompt.Knob(m.k)
		if err != nil {
			m.prompt.err = err.Error()
			return nil
		}
		m.prompt.Close()
		m.closeOverlay()
		return m.setKnob(name, v)
	case m.prompt.kind == askSetting && key.Matches(msg, m.keys.Pane): // tab: the next live setting
		if text := strings.TrimSpace(m.prompt.input.Value()); text != "" {
			m.prompt.err = fmt.Sprintf("enter applies %s to %s; clear the field to move on without it", text, m.prompt.setting)
			return nil
		}
		return m.openSettingPrompt(m.prompt.setting)
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(msg)
	return cmd
}

func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	if !m.picker.Filtering() {
		switch {
		case key.Matches(msg, m.keys.Cancel), msg.String() == "q":
			m.screen = dashboard
			return nil
		case key.Matches(msg, m.keys.Confirm):
			m.screen = dashboard
			p := m.picker.Selected()
			if p == nil {
				if err := m.picker.SelectedError(); err != nil {
					m.logf(true, "%v", err)
				}
				return nil
			}
			if miss := p.Missing(m.opts.Env); len(miss) > 0 {
				// Its engine cannot be built: nothing of the run (its
				// round, its fork) is given up for it.
				m.logf(true, "preset %s not loaded: %s not found (fedaux data says how to get it); the run goes on", p.Name, strings.Join(miss, ", "))
				return nil
			}
			c := p.Config()
			c.Seed, c.Workers = m.cfg.Seed, m.cfg.Workers
			m.presetKnobsNote(p.Name, c)
			c, why := m.withVariant(c, "preset "+p.Name)
			return m.rebuild(p, c, why)
		}
	}
	var cmd tea.Cmd
	m.picker, cmd = m.picker.Update(msg)
	return cmd
}

// presetKnobsNote says, before another preset is built, that it brings
// its own knobs: which of the session's values it replaces, and which
// change waiting for the round in flight it drops.
func (m *Model) presetKnobsNote(name string, c sim.Config) {
	for _, q := range m.queued {
		m.logf(true, "%s %s → %s dropped: preset %s brings its own %s", q.Name, fmtKnob(q.From), fmtKnob(q.To), name, q.Name)
	}
	cur := m.knobs
	var diff []string
	for _, k := range []struct {
		name     string
		was, now float64
	}{{"α", cur.Alpha, c.Alpha}, {"σ", cur.Sigma, c.Sigma}, {"auto α partners", cur.Partners, c.Partners}} {
		if k.was != k.now {
			diff = append(diff, fmt.Sprintf("%s %s (was %s)", k.name, fmtKnob(k.now), fmtKnob(k.was)))
		}
	}
	if m.cfg.Algo != c.Algo {
		diff = append(diff, fmt.Sprintf("algorithm %s (was %s)", c.Algo, m.cfg.Algo))
	}
	for _, s := range sim.LiveSettings(m.cfg.Algo) { // the session's method settings
		was, now := cur.Settings.String(s.Key), c.Options.String(s.Key)
		switch {
		case !sim.ReadBy(s.Key, c.Algo):
			if was != s.Default {
				diff = append(diff, fmt.Sprintf("%s %s dropped (%s does not read it)", s.Key, was, c.Algo))
			}
		case was != now:
			diff = append(diff, fmt.Sprintf("%s %s (was %s)", s.Key, now, was))
		}
	}
	if len(diff) > 0 {
		m.logf(false, "preset %s brings its own knobs: %s", name, strings.Join(diff, ", "))
	}
}

// addSteps asks for n more rounds (no more than remain).
func (m *Model) addSteps(n int) tea.Cmd {
	left := m.cfg.Rounds - len(m.reports)
	if m.act == stepping {
		left-- // the round in flight
	}
	if left <= 0 {
		m.logf(false, "all %d rounds have run; %s", m.cfg.Rounds, restartHint)
		return nil
	}
	m.stepsLeft = min(m.stepsLeft+n, left)
	return m.next()
}

// next starts the next round if one is wanted and nothing is in flight.
func (m *Model) next() tea.Cmd {
	if m.act != idle {
		return nil
	}
	if len(m.reports) >= m.cfg.Rounds {
		m.running, m.stepsLeft = false, 0
		return nil
	}
	if !m.running && m.stepsLeft == 0 {
		return nil
	}
	if m.stepsLeft > 0 {
		m.stepsLeft--
	}
	m.job++
	m.act, m.done = stepping, 0
	m.stepKnobs = m.knobs
	var other *sim.Engine
	if m.other != nil {
		other = m.other.engine
	}
	return m.drv.step(m.engine, other, m.job)
}

// roundDone takes a finished round: records it, applies the knob changes
// made meanwhile, and goes on with what is waiting.
func (m *Model) roundDone(msg stepDoneMsg) tea.Cmd {
	if msg.job != m.job || m.act != stepping {
		return nil
	}
	m.act = idle
	if after := m.afterRound; after != nil {
		m.afterRound = nil
		if msg.err == nil && msg.report != nil {
			// The round ended before the cancel: the engine is past it,
			// and stays if the new engine cannot be built.
			m.reports = append(m.reports, msg.report)
			m.otherDone(msg.other, msg.otherErr)
			m.lastKnobs = m.stepKnobs
		}
		return m.flushThen(after) // the export, if any, before the engine goes
	}
	if msg.err != nil {
		m.running, m.stepsLeft = false, 0
		if !errors.Is(msg.err, context.Canceled) && msg.report == nil {
			return m.failed(msg.err)
		}
		if msg.report == nil {
			m.applyQueued()
			return m.flushExport()
		}
	}
	m.reports = append(m.reports, msg.report)
	m.otherDone(msg.other, msg.otherErr)
	exp := m.flushExport()
	m.lastKnobs = m.stepKnobs
	m.reorder()
	m.applyQueued()
	if len(m.reports) >= m.cfg.Rounds {
		m.running, m.stepsLeft = false, 0
		s := sim.Summarize(m.reports)
		metric := ""
		if mt := m.engine.Data().Metric; mt != sim.Accuracy {
			metric = " " + mt.Label()
		}
		m.logf(false, "all %d rounds done: test%s at best val %.2f (round %d, val %.2f), final test %.2f",
			m.cfg.Rounds, metric, s.TestAtBestVal, s.BestRound, s.BestVal, s.FinalTest)
	}
	// The view shown may be one the round did not compute: the default
	// one of a run whose weights come from no view (FedAvg's pc1), shown
	// once there is a round. The next rounds compute it, and a pause
	// computes it for this one.
	m.sync()
	m.wantViews()
	next := m.next()
	if next == nil {
		next = m.completeShown()
	}
	return tea.Batch(exp, next)
}

// completeShown computes, while the console is paused, the view the
// heat map shows when the last round did not compute it (nobody was
// showing it then), as an export would (sim.Engine.Complete): a view is
// never left empty for want of a round.
func (m *Model) completeShown() tea.Cmd {
	if m.act != idle || len(m.reports) == 0 {
		return nil
	}
	s, ok := m.heat.shown()
	tag := fmt.Sprintf("%s@%d", s.name, len(m.reports))
	if !ok || !s.later || m.tried == tag {
		return nil
	}
	m.tried = tag
	m.job++
	m.act = computing
	return m.drv.complete(s.name, m.job, m.engine)
}

// viewDone takes a computed view, and goes on with what waited for it.
func (m *Model) viewDone(msg viewDoneMsg) tea.Cmd {
	if msg.job != m.job || m.act != computing {
		return nil
	}
	m.act = idle
	switch {
	case msg.job == m.exportJob:
		m.exportViewsDone(msg)
	case msg.err != nil && !errors.Is(msg.err, context.Canceled):
		m.logf(true, "view %s: %v", msg.name, msg.err)
	}
	m.heat.invalidate()
	if after := m.afterRound; after != nil {
		m.afterRound = nil
		return m.flushThen(after)
	}
	m.applyQueued()
	exp := m.flushExport()
	if cmd := m.completeShown(); cmd != nil {
		return tea.Batch(exp, cmd)
	}
	return tea.Batch(exp, m.next())
}

// applyQueued applies the knob changes made while a round was in flight.
func (m *Model) applyQueued() {
	for _, q := range m.queued {
		m.applyKnob(q.Name, q.To)
	}
	m.queued = nil
}

// failed takes a round that failed: the log says what failed and with
// which knobs, and the engine rolls back to the last good round in a
// command (sim.Engine.Rollback; rolledBack takes the result).
func (m *Model) failed(err error) tea.Cmd {
	round := len(m.reports) + 1
	k := m.stepKnobs
	what := strings.TrimPrefix(err.Error(), "sim: ")
	what = strings.TrimPrefix(what, fmt.Sprintf("round %d: ", round))
	m.logf(true, "round %d failed (α %s, σ %s): %s", round, fmtKnob(k.Alpha), fmtKnob(k.Sigma), what)
	m.job++
	m.act = recovering
	return m.drv.rollback(m.engine, m.job)
}

// rolledBack takes the end of a rollback: the session goes on from the
// last good round, or, when the engine cannot roll back, says how to
// start again.
func (m *Model) rolledBack(msg rolledBackMsg) tea.Cmd {
	if msg.job != m.job || m.act != recovering {
		return nil
	}
	m.act = idle
	switch {
	case errors.Is(msg.err, sim.ErrNoRollback):
		// The run keeps no state to go back to: its method's cannot be
		// saved (the note at the run's start says why).
		m.logf(true, "this run cannot roll back (rollback is off for %s): %s", m.cfg.Algo, restartHint)
	case msg.err != nil:
		m.logf(true, "the engine cannot roll back (%v): %s", msg.err, restartHint)
	default:
		how := "as it was"
		if msg.recomputed > 0 {
			how = fmt.Sprintf("rounds %d-%d recomputed bit for bit from the state kept at round %d", msg.rounds-msg.recomputed+1, msg.rounds, msg.rounds-msg.recomputed)
		}
		next := fmt.Sprintf("change a knob and step (n) to run round %d again", msg.rounds+1)
		if m.undoCancel { // the round was cancelled, it did not fail
			next = fmt.Sprintf("n runs round %d", msg.rounds+1)
		}
		m.logf(false, "rolled back to round %d (%s): %s", msg.rounds, how, next)
	}
	m.undoCancel = false
	if after := m.afterRound; after != nil {
		m.afterRound = nil
		return m.flushThen(after)
	}
	m.applyQueued()
	return m.flushExport()
}

// openDrill shows the drill-down on client id.
func (m *Model) openDrill(id int) {
	m.drill.id = id
	m.screen = drilling
	m.resize()
}

// click takes a left click on the dashboard: on a client's bar it opens
// the drill-down on the client; on a heat-map cell it selects the cell
// and shows its value (as v and the arrows do).
func (m *Model) click(ms tea.Mouse) {
	if ms.Button != tea.MouseLeft || m.screen != dashboard {
		return
	}
	l := m.plan()
	y := ms.Y - 1 // the body starts under the header
	if y < 0 || y >= l.bodyH {
		return
	}
	if ms.X < l.leftW {
		rows := min(m.k, l.barsH-1)
		if rows < m.k {
			rows = max(0, l.barsH-2)
		}
		if r := y - 1; r >= 0 && r < rows { // under the bars' title
			id := r
			if len(m.groups) == m.k && r < len(m.order) {
				id = m.order[r]
			}
			m.openDrill(id)
		}
		return
	}
	if !l.showHeat || y >= l.heatH && !l.chartBelow {
		return
	}
	if cx, cy, ok := m.heat.CellAt(ms.X-(l.leftW+1), y); ok {
		m.heat.Select(cx, cy)
		m.resize()
	}
}
