package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/sim"
)

// branch is one side of a fork (f): an engine and what it has produced.
// The console works on one branch at a time (the model's own session
// fields); the other waits here, and b swaps them.
type branch struct {
	name             string
	engine           *sim.Engine
	cfg              sim.Config
	header           sim.RunHeader
	reports          []*sim.RoundReport
	controls         []export.Control
	switches         []sim.AlgorithmChange
	knobs, lastKnobs sim.Knobs
}

// forkLog is a fork's run log and what the fork was, for farewell.
type forkLog struct{ what, path string }

// forkLogPath is the fork's run log beside the session's:
// runs/sbm-20261125-101500-B-r12.jsonl for a fork at round 12, or, when
// a file of that name is there (an earlier fork at the same round, before
// a restart), the first free one of ...-B-r12-2.jsonl, -3, ...
func forkLogPath(session, name string, round int) string {
	ext := filepath.Ext(session)
	base := fmt.Sprintf("%s-%s-r%d", strings.TrimSuffix(session, ext), name, round)
	path := base + ext
	for n := 2; ; n++ {
		if _, err := os.Lstat(path); err != nil {
			return path // free, or OpenRunLog says why it is not
		}
		path = fmt.Sprintf("%s-%d%s", base, n, ext)
	}
}

// canFork says why the run cannot fork now ("" when it can).
func (m *Model) canFork() string {
	if m.other != nil {
		return fmt.Sprintf("already forked (branch %s and %s): r or R ends the fork", m.branchName, m.other.name)
	}
	return m.betweenRounds("fork")
}

// betweenRounds says why what, done between rounds, cannot be done now:
// rounds run on (it says to pause: waiting would not do), the start
// rounds run, or a round or other work is in flight; "" when idle.
func (m *Model) betweenRounds(what string) string {
	switch {
	case m.starting && m.stepsLeft > 0:
		return what + " once the start rounds have run (the console then pauses)"
	case m.running || m.stepsLeft > 0:
		return "pause (space) first: " + what + " between rounds"
	case m.act != idle:
		return what + " once the work in flight is done"
	}
	return ""
}

// openAlgoPicker opens the choice of branch B's algorithm (F), or, on
// a forked run, of the shown branch's algorithm from the next round.
func (m *Model) openAlgoPicker() {
	switch {
	case m.other != nil:
		if why := m.betweenRounds("switch the branch's algorithm"); why != "" {
			m.logf(true, "%s", why)
			return
		}
		m.algos = newAlgoPicker(m.styles, m.engine, m.branchName)
	default:
		if why := m.canFork(); why != "" {
			m.logf(true, "%s", why)
			return
		}
		m.algos = newAlgoPicker(m.styles, m.engine, "")
	}
	m.screen = choosing
	m.resize()
}

// algoKey handles a key in the algorithm picker.
func (m *Model) algoKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel), msg.String() == "q", msg.String() == "F":
		m.screen = dashboard
	case key.Matches(msg, m.keys.cellUp):
		m.algos.Move(-1)
	case key.Matches(msg, m.keys.cellDown):
		m.algos.Move(1)
	case key.Matches(msg, m.keys.Confirm):
		m.screen = dashboard
		if m.algos.switching {
			m.switchAlgorithm(m.algos.Selected())
			return m.completeShown()
		}
		return m.forkHere(m.algos.Selected())
	}
	return nil
}

// switchAlgorithm makes the shown branch of a fork run algo from the next
// round: its engine goes on as a fork of itself on algo
// (sim.Engine.ForkAs), in its run log, which gets the algorithm line.
func (m *Model) switchAlgorithm(algo sim.Algorithm) {
	switch {
	case m.other == nil || m.act != idle:
		m.logf(true, "switch an algorithm on a fork's branch, between rounds")
		return
	case algo == m.cfg.Algo:
		m.logf(false, "branch %s keeps %s", m.branchName, algo)
		return
	}
	ne, err := m.engine.ForkAs(nil, algo)
	if err == nil {
		l := m.engine.Log()
		c := sim.AlgorithmChange{Round: len(m.reports) + 1, From: m.cfg.Algo, To: algo}
		if err = l.Write(c.Line()); err == nil {
			ne.SetLog(l)
			m.switched = m.switched || l == m.opts.Log
			m.engine, m.cfg, m.switches = ne, ne.Config(), append(m.switches, c)
			m.heat.SetOffered(ne.Offered())
			m.sync()
			m.wantViews()
			m.logf(false, "branch %s runs %s from round %d in its state; %s's server starts fresh (no strategy state carries over); round %d starts from the messages %s mixed",
				m.branchName, algo, c.Round, algo, c.Round, c.From)
			return
		}
	}
	m.logf(true, "branch %s: %v", m.branchName, err)
}

// forkHere forks the run at the current round: branch B starts in the
// engine's state (sim.Engine.Fork), bit for bit, with its own knobs and
// run log; from now on every step advances both. With algo set and not
// the run's, B runs algo from the next round (sim.Engine.ForkAs), and
// its run log says so (an "algorithm" line) for a replay.
func (m *Model) forkHere(algo sim.Algorithm) tea.Cmd {
	if why := m.canFork(); why != "" {
		m.logf(true, "%s", why)
		return nil
	}
	if algo == m.cfg.Algo {
		algo = ""
	}
	var log *sim.RunLog
	if p := m.LogPath(); p != "" {
		var err error
		if log, err = sim.OpenRunLog(forkLogPath(p, "B", len(m.reports))); err != nil {
			m.logf(true, "fork: %v", err)
			return nil
		}
	}
	h := m.header
	b, err := json.Marshal(h)
	if err == nil {
		m.engine.SetMeta(sim.Meta{Header: b})
		var fe *sim.Engine
		if algo == "" {
			fe, err = m.engine.Fork(log)
		} else {
			fe, err = m.engine.ForkAs(log, algo)
		}
		if err == nil {
			n := len(m.reports)
			if log != nil {
				what := fmt.Sprintf("branch B of the fork at round %d", n)
				if algo != "" {
					what += fmt.Sprintf(" (%s from round %d)", algo, n+1)
				}
				m.forkLogs = append(m.forkLogs, forkLog{what, log.Path()})
			}
			m.other = &branch{name: "B", engine: fe, cfg: fe.Config(), header: h, reports: slices.Clone(m.reports),
				controls: slices.Clone(m.controls), switches: slices.Clone(m.switches), knobs: m.knobs, lastKnobs: m.lastKnobs}
			m.branchName = "A"
			if algo == "" {
				m.logf(false, "forked at round %d: branch B is A's state bit for bit, with its own knobs; b switches the branch the keys act on; steps advance both%s",
					n, logNote(log))
				return nil
			}
			m.other.switches = append(m.other.switches, sim.AlgorithmChange{Round: n + 1, From: m.cfg.Algo, To: algo})
			m.logf(false, "forked at round %d: branch B runs %s from round %d, in A's state bit for bit; b acts on B; steps advance both", n, algo, n+1)
			m.logf(false, "%s's server starts fresh (no strategy state carries over); round %d starts from the messages %s mixed",
				algo, n+1, m.cfg.Algo)
			if log != nil {
				m.logf(false, "B's run log: %s", log.Path())
			}
			return nil
		}
	}
	if log != nil {
		log.Close()
		if fi, serr := os.Stat(log.Path()); serr == nil && fi.Size() == 0 {
			os.Remove(log.Path()) // made for the fork that failed, nothing in it
		}
	}
	m.logf(true, "fork: %v", err)
	return nil
}

// logNote says where a fork's run log is.
func logNote(l *sim.RunLog) string {
	if l == nil {
		return ""
	}
	return "; B's run log: " + l.Path()
}

// swapBranch makes the other branch the one the console works on, and
// computes the view its heat map shows when that round lacks it.
func (m *Model) swapBranch() tea.Cmd {
	if m.other == nil {
		m.logf(true, "no fork: f forks the run at this round")
		return nil
	}
	if why := m.betweenRounds("switch branches"); why != "" {
		m.logf(true, "%s", why)
		return nil
	}
	o := m.other
	m.other = &branch{name: m.branchName, engine: m.engine, cfg: m.cfg, header: m.header, reports: m.reports,
		controls: m.controls, switches: m.switches, knobs: m.knobs, lastKnobs: m.lastKnobs}
	m.engine, m.cfg, m.header, m.reports, m.controls, m.switches = o.engine, o.cfg, o.header, o.reports, o.controls, o.switches
	m.knobs, m.lastKnobs = o.knobs, o.lastKnobs
	m.branchName = o.name
	m.heat.SetOffered(m.engine.Offered())
	m.reorder()
	m.sync()
	m.wantViews()
	m.logf(false, "keys act on branch %s, %s (heat map and bars show it, the chart both)", m.branchName, m.cfg.Algo)
	return m.completeShown()
}

// endFork closes the fork: the branch not shown is dropped, its run log
// ended with its summary.
func (m *Model) endFork() {
	o := m.other
	if o == nil {
		return
	}
	if l := o.engine.Log(); l != nil && o.engine.Round() > 0 {
		l.Write(summaryLine{Type: "summary", Summary: o.engine.Summary()})
	}
	if fl := m.forkLog(); fl != nil {
		fl.Close()
	}
	m.other, m.branchName = nil, ""
}

// forkLog is the fork's own run log (B's), whichever branch is shown.
func (m *Model) forkLog() *sim.RunLog {
	if m.other == nil {
		return nil
	}
	if m.branchName == "B" {
		return m.engine.Log()
	}
	return m.other.engine.Log()
}

// otherDone takes the other branch's round (stepped after the shown
// one's): it is recorded, or, when it failed, the branch rolls back and
// the log says so.
func (m *Model) otherDone(rep *sim.RoundReport, err error) {
	o := m.other
	if o == nil {
		return
	}
	if err != nil {
		m.logf(true, "branch %s: round %d failed: %v", o.name, len(o.reports)+1, err)
		if _, _, rerr := o.engine.Rollback(context.Background()); rerr != nil {
			m.logf(true, "branch %s cannot roll back (%v): r or R ends the fork", o.name, rerr)
		} else {
			m.logf(false, "branch %s rolled back to round %d; it is a round behind until b, a knob and n", o.name, len(o.reports))
		}
		return
	}
	if rep != nil {
		o.reports = append(o.reports, rep)
		o.lastKnobs = o.knobs
	}
}

// forkRuns returns the runs of both branches for an export, A first.
func (m *Model) forkRuns() (a, b *export.Run) {
	a = m.snapshot()
	b = &export.Run{Header: m.other.header, Reports: slices.Clone(m.other.reports), Controls: slices.Clone(m.other.controls),
		Switches: slices.Clone(m.other.switches), Groups: m.groups}
	if m.branchName == "B" {
		a, b = b, a
	}
	return a, b
}

// writeFork writes a fork's export: each branch's into dir/A and dir/B
// (export.Write), and compare.png, the two branches' mean test and
// validation accuracy over the rounds in one figure.
func writeFork(dir string, a, b *export.Run) ([]string, error) {
	var files []string
	for _, r := range []struct {
		name string
		run  *export.Run
	}{{"A", a}, {"B", b}} {
		fs, err := export.Write(filepath.Join(dir, r.name), r.run)
		if err != nil {
			return files, err
		}
		files = append(files, fs...)
	}
	series := func(name string, r *export.Run, val bool) export.Series {
		s := export.Series{Name: name}
		for _, rep := range r.Reports {
			v := rep.MeanTest
			if val {
				v = rep.MeanVal
			}
			s.Mean = append(s.Mean, v)
			s.Std = append(s.Std, 0)
		}
		return s
	}
	path := filepath.Join(dir, "compare.png")
	err := export.WriteFileAtomic(path, func(w io.Writer) error {
		return export.WriteBands(w, "branches A and B (forked at round "+fmt.Sprint(forkRound(a, b))+")", "round", "mean accuracy (%)",
			[]export.Series{series("A test", a, false), series("B test", b, false), series("A val", a, true), series("B val", b, true)})
	})
	if err != nil {
		return files, err
	}
	return append(files, path), nil
}

// forkRound is the last round the two branches share (equal reports).
func forkRound(a, b *export.Run) int {
	n := 0
	for n < len(a.Reports) && n < len(b.Reports) && a.Reports[n] == b.Reports[n] {
		n++
	}
	return n
}
