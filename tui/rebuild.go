package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// rebuild replaces the engine by a new one for preset p and settings c,
// after the round in flight (which is cancelled) if any.
func (m *Model) rebuild(p *presets.Preset, c sim.Config, why string) tea.Cmd {
	if m.act == building {
		m.logf(true, "busy building; try again in a moment")
		return nil
	}
	m.queued = nil
	m.rebuilt = &sim.Knobs{Alpha: c.Alpha, Sigma: c.Sigma, Partners: c.Partners, Settings: c.Options}
	m.running, m.stepsLeft = false, 0
	start := func() tea.Cmd {
		m.endRun()
		if m.other != nil {
			m.endFork()
			m.logf(false, "fork ended: the new engine has one branch")
		}
		m.job++
		m.act = building
		m.logf(false, "%s: building…", why)
		return m.drv.build(p, m.opts.Env, c, m.opts.Log, m.job)
	}
	switch m.act {
	case stepping:
		m.drv.cancelStep()
		m.afterRound = start
		return nil
	case computing, recovering:
		m.afterRound = start
		return nil
	}
	return start()
}

// built takes a new engine.
func (m *Model) built(msg builtMsg) tea.Cmd {
	if msg.job != m.job || m.act != building {
		return nil
	}
	m.act = idle
	m.rebuilt = nil
	m.scenarioBuilt(msg.err)
	if msg.err != nil {
		m.logf(true, "%v", msg.err)
		// The changes made meanwhile were for the engine that is not
		// there; the old one goes on with its own knobs.
		for _, q := range m.queued {
			m.logf(true, "%s %s → %s dropped: the engine it was for was not built", q.Name, fmtKnob(q.From), fmtKnob(q.To))
		}
		m.queued = nil
		if m.ended == m.engine {
			m.ended = nil // its run goes on: its summary line is written again when it ends
		}
		if m.engine.Broken() != nil {
			// The round in flight, cancelled for the new engine, stopped
			// the old one half-way: it goes back to its last round.
			m.logf(false, "round %d was cancelled for the new engine: the engine goes back to round %d", len(m.reports)+1, len(m.reports))
			m.job++
			m.act, m.undoCancel = recovering, true
			return m.drv.rollback(m.engine, m.job)
		}
		return nil
	}
	queued := m.queued // changes made while building
	m.adopt(msg.preset, msg.engine, msg.scen)
	m.logf(false, "%s %s, seed %d, %d clients: ready", msg.preset.Name, m.cfg.Algo, m.cfg.Seed, m.k)
	for _, q := range queued {
		m.applyKnob(q.Name, q.To)
	}
	m.resize()
	return nil
}
