package tui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// Messages from the driver's commands to the model.
type (
	// stepDoneMsg ends the round started as job.
	stepDoneMsg struct {
		job    int
		report *sim.RoundReport
		err    error
		// other and otherErr are the other branch's round, stepped
		// after this one's when the run is forked.
		other    *sim.RoundReport
		otherErr error
	}
	// progressMsg says that done of total clients of round job finished.
	progressMsg struct {
		job, done, total int
	}
	// builtMsg delivers an engine built for job (a reset or a new preset).
	builtMsg struct {
		job    int
		preset *presets.Preset
		engine *sim.Engine
		scen   *presets.Scenario
		err    error
	}
	// viewDoneMsg ends the computation of the last round's view name
	// (job).
	viewDoneMsg struct {
		job  int
		name string
		err  error
	}
	// rolledBackMsg ends the rollback job of a failed round.
	rolledBackMsg struct {
		job, rounds, recomputed int
		err                     error
	}
	// exportedMsg reports an export.
	exportedMsg struct {
		dir   string
		files []string
		err   error
	}
)

// driver runs the engine's work in commands. Only the model's Update starts
// work, and only while no other work on the same engine is in flight, so
// the engine is never used from two goroutines at once. Close cancels the
// work in flight and waits for it, so that nothing runs after the console
// has gone.
type driver struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup

	// stepCancel cancels the round in flight; touched only by Update.
	stepCancel context.CancelFunc
}

func newDriver(parent context.Context) *driver {
	ctx, cancel := context.WithCancel(parent)
	return &driver{ctx: ctx, cancel: cancel}
}

// enter registers a command that is about to run; false after Close.
func (d *driver) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.wg.Add(1)
	return true
}

// Close cancels the work in flight and waits until it has stopped.
func (d *driver) Close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
}

// step returns commands that run one round of e as job, and that relay
// its progress. The engine reports progress from the goroutines that run
// its clients (Step's among them); the callback only writes to a buffered
// channel that the relay drains.
func (d *driver) step(e, other *sim.Engine, job int) tea.Cmd {
	k := len(e.Data().Clients)
	prog := make(chan int, k+1)
	finished := make(chan struct{})
	e.OnProgress = func(done, _ int) {
		select {
		case prog <- done:
		default:
		}
	}
	ctx, cancel := context.WithCancel(d.ctx)
	d.stepCancel = cancel
	run := func() tea.Msg {
		defer cancel()
		defer close(finished)
		if !d.enter() {
			return stepDoneMsg{job: job, err: context.Canceled}
		}
		defer d.wg.Done()
		rep, err := e.Step(ctx)
		msg := stepDoneMsg{job: job, report: rep, err: err}
		if other != nil && err == nil {
			msg.other, msg.otherErr = other.Step(ctx)
		}
		return msg
	}
	return tea.Batch(run, relay(prog, finished, job, k))
}

// relay returns a command that waits for the next progress count of job,
// or for the round to finish (then it returns nil and is not renewed).
func relay(prog <-chan int, finished <-chan struct{}, job, total int) tea.Cmd {
	return func() tea.Msg {
		select {
		case n := <-prog:
			return progressRelay{progressMsg{job, n, total}, prog, finished}
		case <-finished:
			return nil
		}
	}
}

// progressRelay carries a progress message and what the next relay needs.
type progressRelay struct {
	progressMsg
	prog     <-chan int
	finished <-chan struct{}
}

// next renews the relay.
func (p progressRelay) next() tea.Cmd { return relay(p.prog, p.finished, p.job, p.total) }

// cancelStep cancels the round in flight, if any.
func (d *driver) cancelStep() {
	if d.stepCancel != nil {
		d.stepCancel()
	}
}

// build returns a command that builds an engine for preset p.
func (d *driver) build(p *presets.Preset, env presets.Env, cfg sim.Config, log *sim.RunLog, job int) tea.Cmd {
	return func() tea.Msg {
		if !d.enter() {
			return builtMsg{job: job, err: context.Canceled}
		}
		defer d.wg.Done()
		e, sc, err := newEngine(p, env, cfg, log)
		return builtMsg{job: job, preset: p, engine: e, scen: sc, err: err}
	}
}

// exportFork returns a command that writes both branches of a fork
// into dir (writeFork).
func (d *driver) exportFork(dir string, a, b *export.Run) tea.Cmd {
	return func() tea.Msg {
		if !d.enter() {
			return exportedMsg{dir: dir, err: context.Canceled}
		}
		defer d.wg.Done()
		files, err := writeFork(dir, a, b)
		return exportedMsg{dir: dir, files: files, err: err}
	}
}

// export returns a command that writes run into dir.
func (d *driver) export(dir string, run *export.Run) tea.Cmd {
	return func() tea.Msg {
		if !d.enter() {
			return exportedMsg{dir: dir, err: context.Canceled}
		}
		defer d.wg.Done()
		files, err := export.Write(dir, run)
		return exportedMsg{dir: dir, files: files, err: err}
	}
}

// complete returns a command that computes the last round's optional
// matrix name (sim.WantAll: every one it lacks) from the clients' models
// of each engine (sim.Engine.Complete), as job.
func (d *driver) complete(name string, job int, engines ...*sim.Engine) tea.Cmd {
	return func() tea.Msg {
		if !d.enter() {
			return viewDoneMsg{job: job, name: name, err: context.Canceled}
		}
		defer d.wg.Done()
		for _, e := range engines {
			if err := e.Complete(d.ctx, name); err != nil {
				return viewDoneMsg{job: job, name: name, err: err}
			}
		}
		return viewDoneMsg{job: job, name: name}
	}
}

// newEngine builds the engine of preset p with settings cfg, and starts
// its run in log (nil: none) with the run line of runHeader, which
// names every setting, so that the log alone can replay the run
// (fedaux run -replay).
func newEngine(p *presets.Preset, env presets.Env, cfg sim.Config, log *sim.RunLog) (*sim.Engine, *presets.Scenario, error) {
	e, sc, err := presets.NewEngine(p, env, cfg, nil)
	if err != nil {
		return nil, nil, err
	}
	if log != nil {
		if err := log.Write(presets.Header(p, sc, e, time.Now())); err != nil {
			return nil, nil, err
		}
		e.SetLog(log)
	}
	return e, sc, nil
}

// SettingsKey is the run line's extra key under which the console logged
// every setting of the run before the run line held them
// (sim.RunHeader.Settings); replaying such a log reads them there.
const SettingsKey = "settings"

// rollback returns a command that rolls e back after a failed round
// (sim.Engine.Rollback), as job.
func (d *driver) rollback(e *sim.Engine, job int) tea.Cmd {
	return func() tea.Msg {
		if !d.enter() {
			return rolledBackMsg{job: job, err: context.Canceled}
		}
		defer d.wg.Done()
		n, re, err := e.Rollback(d.ctx)
		return rolledBackMsg{job: job, rounds: n, recomputed: re, err: err}
	}
}
