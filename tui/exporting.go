package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/sim"
)

// The session's export (e): written when no round is in flight, in a
// command, of a copy of what the engine has run.

// exportTo exports the session into dir: now when no round is in flight,
// else once it is done (see flushExport).
func (m *Model) exportTo(dir string) tea.Cmd {
	if home, err := os.UserHomeDir(); err == nil && (dir == "~" || strings.HasPrefix(dir, "~/")) {
		dir = filepath.Join(home, dir[1:]) // as a shell would: ~/x is the home's x, not ./~/x
	}
	if m.act == building {
		m.prompt.err = "an engine is being built; export once it is ready"
		return nil
	}
	if m.act != idle {
		m.exportDir = dir
		m.prompt.busy = "exporting to " + dir + " once the round in flight is done…"
		return nil
	}
	m.exportDir = dir
	return m.flushExport()
}

// flushExport writes the export waiting for the engine, if any. The heat
// maps show every matrix of the last round: the views the round did not
// compute, nobody having shown them, are computed first from the clients'
// models as the round left them (sim.Engine.Complete), in a command
// (the console is busy computing meanwhile), after which viewDone calls
// it again to write the export.
//
// A caller with work waiting (afterRound) goes through flushThen.
func (m *Model) flushExport() tea.Cmd {
	dir := m.exportDir
	if dir == "" {
		return nil
	}
	if !m.exportViews {
		// First the views, in a command (they take seconds on large
		// graphs); viewDone comes back here with them.
		engines := []*sim.Engine{m.engine}
		if m.other != nil { // the branch not shown is exported whole too
			engines = append(engines, m.other.engine)
		}
		m.job++
		m.act, m.exportJob = computing, m.job
		m.prompt.busy = fmt.Sprintf("computing the last round's views to export %d rounds to %s…", len(m.reports), dir)
		return m.drv.complete(sim.WantAll, m.job, engines...)
	}
	m.exportDir, m.exportViews = "", false
	m.prompt.busy = fmt.Sprintf("exporting %d rounds to %s…", len(m.reports), dir)
	if m.other != nil {
		a, b := m.forkRuns()
		return m.drv.exportFork(dir, a, b)
	}
	return m.drv.export(dir, m.snapshot())
}

// snapshot copies what an export needs, so that it can be written while
// the next rounds run.
func (m *Model) snapshot() *export.Run {
	return &export.Run{
		Header:   m.header,
		Reports:  slices.Clone(m.reports),
		Controls: slices.Clone(m.controls),
		Switches: slices.Clone(m.switches),
		Groups:   m.groups,
	}
}

// flushThen writes the export waiting, if any, then does after (a
// rebuild): at once, or, when the export's views are to be computed
// first, once they are (viewDone).
func (m *Model) flushThen(after func() tea.Cmd) tea.Cmd {
	exp := m.flushExport()
	if m.act == computing {
		m.afterRound = after
		return exp
	}
	return tea.Batch(exp, after())
}

// exportViewsDone takes the end of the computation of the views an
// export waits for (job): the export can be written.
func (m *Model) exportViewsDone(msg viewDoneMsg) {
	if msg.job != m.exportJob || m.exportDir == "" {
		return
	}
	m.exportViews = true
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		m.logf(true, "export: the last round's views: %v", msg.err)
	}
}
