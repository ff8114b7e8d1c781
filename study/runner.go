package study

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fedaux/fedaux/internal/atomicfile"
	"github.com/fedaux/fedaux/internal/proctime"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// A Runner runs the cells of a study that its store does not hold yet,
// those of its shard only, and stores each as it finishes.
type Runner struct {
	// Store holds finished cells; nil means a memory store.
	Store *Store
	// Shard is the share of the cells this process runs.
	Shard Shard
	// Env is where scenarios read their data.
	Env presets.Env
	// Recorder is told the study's progress; nil means Nop.
	Recorder Recorder
	// Interrupts, when not nil, stop the study at a round boundary
	// (checkpointing the cell in flight where Checkpoint says) and abort it.
	Interrupts *Interrupts
	// CheckData looks for every data file of the shard's cells before any
	// cell runs: absent files are an error (MissingDataError), or, with
	// SkipMissing, their cells are skipped. Skipped cells keep their
	// index, so shards agree whatever data each machine has. Without
	// either, a cell whose data is absent fails when it is built, with
	// the loader's error.
	CheckData, SkipMissing bool
	// Log, when not nil, receives every cell's run log.
	Log *sim.RunLog
	// Checkpoint, when not nil, returns where a cell's checkpoint goes
	// ("" for none). A cell with a checkpoint there resumes from it, and
	// an interrupted cell saves one there.
	Checkpoint func(c *Cell) string
	// Resume, when not nil, says where a cell's checkpoint to resume from
	// is ("" for none), instead of Checkpoint.
	Resume func(c *Cell) string
	// Every, when positive, saves the cell in flight every Every rounds.
	Every int
	// CheckpointsAsked says that the caller asked for Checkpoint's
	// checkpoints, not only at an interrupt (fedaux run -checkpoint).
	// With it, or with Every, a cell whose state cannot be saved
	// (sim.Engine.Checkpointable) fails before its first round.
	CheckpointsAsked bool
	// KeepCheckpoints keeps a cell's checkpoint once its record is stored
	// (fedaux run); otherwise it is removed.
	KeepCheckpoints bool
	// State, when not nil, returns the caller's state to store in each
	// checkpoint (fedaux run: its seeds and the ones finished).
	State func() (json.RawMessage, error)
	// Observe, when not nil, is called with each cell's engine before its
	// first round and after each round (r nil before the first). It may
	// ask for what the engine computes (Want) but not steer the run: a
	// knob set (SetKnob) makes numbers that are not the cell's, which
	// its key stands for, so the cell fails at once and nothing is stored.
	Observe func(c *Cell, e *sim.Engine, r *sim.RoundReport) error
	// Finish, when not nil, is called with each finished cell's engine
	// before its record is stored; it may fill the record's Extra.
	Finish func(c *Cell, e *sim.Engine, sc *presets.Scenario, r *Record) error

	// saved is the checkpoint saved last, and its round, for messages.
	saved      string
	savedRound int
}

// Stats counts what Run did.
type Stats struct {
	Plan
	Ran int // cells computed now
}

// A MissingDataError reports runs that cannot run because data files
// they need are absent.
type MissingDataError struct {
	// Runs is the number of runs that need absent files.
	Runs int
	// DataDir is the data directory looked in.
	DataDir string
	// Files maps the preset of each such run to the absent files it needs.
	Files map[string][]string
}

func (e *MissingDataError) Error() string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(e.Files)) {
		parts = append(parts, p+" needs "+strings.Join(e.Files[p], " and "))
	}
	runs := "runs need"
	if e.Runs == 1 {
		runs = "run needs"
	}
	return fmt.Sprintf("study: %d %s data files that are missing: %s", e.Runs, runs, strings.Join(parts, "; "))
}

// An InterruptedError reports a study stopped at a round boundary by an
// interrupt. Checkpoint names the checkpoint saved of the cell in flight
// ("" when none was: the cell starts again from round 1, or from a
// checkpoint saved before); SaveErr, when not nil, is why it could not be
// saved.
type InterruptedError struct {
	Cell       *Cell
	Round      int
	Checkpoint string
	SaveErr    error
}

func (e *InterruptedError) Error() string {
	s := fmt.Sprintf("study: interrupted after round %d of %d of %s", e.Round, e.Cell.Config.Rounds, e.Cell)
	if e.SaveErr != nil {
		s += "; its checkpoint could not be saved: " + e.SaveErr.Error()
	}
	if e.Checkpoint != "" {
		s += "; checkpoint saved to " + e.Checkpoint
	}
	return s
}

func (e *InterruptedError) Unwrap() error { return e.SaveErr }

// An AbortedError reports a round aborted by a second interrupt (or a
// cancelled context). Checkpoint is the last checkpoint saved of the
// cell, at round Saved ("" when none).
type AbortedError struct {
	Cell       *Cell
	Round      int
	Checkpoint string
	Saved      int
	Err        error
}

func (e *AbortedError) Error() string {
	return fmt.Sprintf("study: %s aborted during round %d: %v", e.Cell, e.Round, e.Err)
}

func (e *AbortedError) Unwrap() error { return e.Err }

// checkpointState is what a Runner keeps in a checkpoint (sim.Meta.App):
// the cell in flight and how its scenario was built.
type checkpointState struct {
	Key      string `json:"key"`
	Scenario string `json:"scenario"`
	// ScenarioFile and ScenarioText are the scenario file of a scenario
	// that is not a preset as shipped (a file, or a preset with -set).
	ScenarioFile string            `json:"scenario_file,omitempty"`
	ScenarioText string            `json:"scenario_text,omitempty"`
	DataDir      string            `json:"data_dir"`
	Partition    string            `json:"partition,omitempty"`
	Files        []sim.DataFile    `json:"files,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	Elapsed      float64           `json:"elapsed"`
	// CPU is the process CPU time the cell had used (seconds), absent
	// in checkpoints written before it was kept and where the system
	// gives none.
	CPU   *float64        `json:"cpu,omitempty"`
	Study json.RawMessage `json:"study,omitempty"`
}

// Run runs the cells of the shard that the store does not hold, in
// order, storing each as it finishes. The order of the cells' keys
// decides the shards (Shard.Mine), so every shard of a study must be
// given the same cells in the same order.
func (r *Runner) Run(ctx context.Context, cells []*Cell) (Stats, error) {
	if r.Store == nil {
		r.Store = MemoryStore()
	}
	rec := r.recorder()
	st := Stats{Plan: Plan{Cells: len(cells), Shard: r.Shard, Store: r.Store.Path(), SkippedLines: maps.Clone(r.Store.Skipped)}}
	var todo []*Cell
	planned := map[string]bool{} // cells with one key run once
	missing := &MissingDataError{DataDir: r.Env.DataDir, Files: map[string][]string{}}
	mine := r.Shard.Mine(cells)
	for i, c := range cells {
		if !mine[i] {
			continue
		}
		st.Mine++
		if _, ok := r.Store.Get(c.Key()); ok {
			st.Reused++
			continue
		}
		if planned[c.Key()] {
			st.Shared++
			continue
		}
		if files := r.missing(c); len(files) > 0 {
			if r.SkipMissing {
				st.Skipped++
			} else {
				missing.Runs++
				missing.Files[c.Scenario.Name] = files
			}
			continue
		}
		planned[c.Key()] = true
		todo = append(todo, c)
	}
	if missing.Runs > 0 {
		return st, missing
	}
	st.ToRun = len(todo)
	rec.Plan(st.Plan)
	defer rec.End()
	for n, c := range todo {
		if r.Interrupts.Stopped() {
			return st, &InterruptedError{Cell: c}
		}
		// Another process may have stored it since the plan (where
		// the shard's lock could not keep it out, see DirStudy.Claim).
		if err := r.Store.Reload(); err != nil {
			return st, err
		}
		if _, ok := r.Store.Get(c.Key()); ok {
			st.Reused++
			continue
		}
		res, err := r.runCell(ctx, n+1, len(todo), c)
		if err != nil {
			return st, err
		}
		if err := r.Store.Append(res); err != nil {
			return st, err
		}
		st.Ran++
		if path := r.checkpointPath(c); path != "" && !r.KeepCheckpoints {
			os.Remove(path)
		}
		rec.Finish(n+1, len(todo), c, res)
	}
	return st, nil
}

// missing returns the absent data files of c, when the runner looks.
func (r *Runner) missing(c *Cell) []string {
	if !r.CheckData && !r.SkipMissing {
		return nil
	}
	return c.Scenario.Missing(r.env(c))
}

func (r *Runner) recorder() Recorder {
	if r.Recorder == nil {
		return Nop{}
	}
	return r.Recorder
}

func (r *Runner) checkpointPath(c *Cell) string {
	if r.Checkpoint == nil {
		return ""
	}
	return r.Checkpoint(c)
}

func (r *Runner) env(c *Cell) presets.Env {
	env := r.Env
	env.Partition = c.Partition
	return env
}

// runCell runs one cell to its end, from its checkpoint when it has one.
func (r *Runner) runCell(ctx context.Context, n, total int, c *Cell) (*Record, error) {
	if r.Interrupts != nil {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(r.Interrupts.Context(), func() { cancel(context.Canceled) })
		defer stop()
	}
	e, sc, before, err := r.engine(c)
	if err != nil {
		return nil, err
	}
	clock := startClock(before)
	rec := r.recorder()
	rec.Start(n, total, c, e.Round())
	e.OnProgress = rec.Clients
	if r.Observe != nil {
		if err := r.Observe(c, e, nil); err != nil {
			return nil, err
		}
	}
	if err := steered(c, e); err != nil { // by Observe, or in the checkpoint's run
		return nil, err
	}
	// Checkpoints the caller asked for (fedaux run -checkpoint, every
	// Every rounds) are refused now, not at the first save or interrupt,
	// when the engine's state cannot be saved.
	if path := r.checkpointPath(c); path != "" && (r.CheckpointsAsked || r.Every > 0) {
		if err := e.Checkpointable(); err != nil {
			return nil, fmt.Errorf("%s: checkpoints to %s: %w", c, path, err)
		}
	}
	r.saved, r.savedRound = "", 0
	if path := r.checkpointPath(c); path != "" && e.Round() > 0 {
		r.saved, r.savedRound = path, e.Round()
	}
	save := func() error {
		path := r.checkpointPath(c)
		if path == "" {
			return nil
		}
		if err := r.save(e, c, sc, path, clock.spent()); err != nil {
			return err
		}
		r.saved, r.savedRound = path, e.Round()
		return nil
	}
	for !e.Done() {
		if r.Interrupts.Stopped() {
			if err := save(); err != nil {
				return nil, &InterruptedError{Cell: c, Round: e.Round(), SaveErr: err}
			}
			ck := ""
			if r.checkpointPath(c) != "" {
				ck = r.saved
			}
			return nil, &InterruptedError{Cell: c, Round: e.Round(), Checkpoint: ck}
		}
		rep, err := e.Step(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, &AbortedError{Cell: c, Round: e.Round() + 1, Checkpoint: r.saved, Saved: r.savedRound, Err: ctx.Err()}
			}
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		rec.Round(c, rep, e.Summary())
		if r.Observe != nil {
			if err := r.Observe(c, e, rep); err != nil {
				return nil, err
			}
			if err := steered(c, e); err != nil {
				return nil, err
			}
		}
		if r.Every > 0 && e.Round()%r.Every == 0 {
			if err := save(); err != nil {
				return nil, err
			}
		}
	}
	s, err := e.Run(ctx, nil) // the summary line
	if err != nil {
		return nil, err
	}
	res := newRecord(c, e, sc, s, clock.spent(), r.Shard)
	if r.Finish != nil {
		if err := r.Finish(c, e, sc, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// steered refuses a run whose knobs were set while it ran: its numbers
// are not those of the cell's settings, and stored under its key they
// would be taken for them.
func steered(c *Cell, e *sim.Engine) error {
	h := e.KnobHistory()
	if len(h) == 0 {
		return nil
	}
	k := h[0]
	return fmt.Errorf("study: %s: its knob %s was set to %g from round %d while it ran (an Observe hook's SetKnob?); a steered run is not the cell's and is not stored", c, k.Name, k.To, k.Round)
}

// newRecord makes the record of a finished cell.
func newRecord(c *Cell, e *sim.Engine, sc *presets.Scenario, s sim.Summary, took spent, shard Shard) *Record {
	cfg := e.Config()
	res := &Record{
		Key: c.Key(), Scenario: c.Scenario.Name, Partition: c.Partition, Clients: sc.Partition,
		Labels: c.Labels, Algo: cfg.Algo, Seed: cfg.Seed, Dropout: c.Dropout, Settings: settingsOf(cfg),
		TestAtBestVal: s.TestAtBestVal, BestRound: s.BestRound, BestVal: s.BestVal, FinalTest: s.FinalTest,
		Seconds: took.wall.Seconds(), Workers: cfg.NumWorkers(), Numerics: sim.Numerics(cfg.Precision), Version: presets.Version,
		Finished: time.Now().UTC().Format(time.RFC3339), Shard: shard.String(), Metric: sc.Data.Metric,
	}
	var secs []float64
	for _, rep := range e.Reports() {
		res.Val = append(res.Val, rep.MeanVal)
		res.Test = append(res.Test, rep.MeanTest)
		secs = append(secs, rep.Seconds)
	}
	res.MedianRoundSeconds = median(secs)
	if took.cpuOK {
		res.CPUSeconds = took.cpu.Seconds()
	}
	return res
}

// spent is what a cell has cost so far: wall time and the process's CPU
// time (cpuOK false when either the system or a checkpoint written before
// CPU time was kept could not tell).
type spent struct {
	wall, cpu time.Duration
	cpuOK     bool
}

// A clock measures a cell from what it had spent before (in the run
// that wrote its checkpoint). The process runs one cell at a time, so
// its CPU time is the cell's.
type clock struct {
	before spent // cpuOK false also when the clock could not start
	wall   time.Time
	cpu    time.Duration
}

func startClock(before spent) clock {
	c := clock{before: before, wall: time.Now()}
	var ok bool
	c.cpu, ok = proctime.CPU()
	c.before.cpuOK = c.before.cpuOK && ok
	return c
}

// spent returns what the cell has cost up to now.
func (c clock) spent() spent {
	s := spent{wall: c.before.wall + time.Since(c.wall)}
	if now, ok := proctime.CPU(); ok && c.before.cpuOK {
		s.cpu, s.cpuOK = c.before.cpu+now-c.cpu, true
	}
	return s
}

// engine returns the cell's engine: resumed from the cell's checkpoint
// when there is one, else new, with its run line logged.
func (r *Runner) engine(c *Cell) (*sim.Engine, *presets.Scenario, spent, error) {
	from := r.checkpointPath(c)
	if from != "" {
		// A process killed while saving this cell's checkpoint left its
		// temporary file; this process runs the cell now.
		if err := atomicfile.RemoveStale(from); err != nil {
			return nil, nil, spent{}, fmt.Errorf("study: %w", err)
		}
	}
	if r.Resume != nil {
		from = r.Resume(c)
	}
	if path := from; path != "" {
		if _, err := os.Stat(path); err == nil {
			ck, err := sim.LoadCheckpoint(path)
			if err != nil {
				// A checkpoint cut short or damaged stops the study
				// until it is gone: say so.
				return nil, nil, spent{}, fmt.Errorf("%w; remove it to run %s from its first round", err, c)
			}
			var st checkpointState
			if err := json.Unmarshal(ck.Meta.App, &st); err == nil && st.Key == c.Key() {
				e, sc, err := r.resume(c, ck, &st, path)
				before := spent{wall: time.Duration(st.Elapsed * float64(time.Second))}
				if st.CPU != nil {
					before.cpu, before.cpuOK = time.Duration(*st.CPU*float64(time.Second)), true
				}
				return e, sc, before, err
			}
		}
	}
	sc, err := c.Scenario.Build(r.env(c), c.Config.Seed)
	if err != nil {
		return nil, nil, spent{}, fmt.Errorf("preset %s: %w", c.Scenario.Name, err)
	}
	e, err := sim.New(c.Config, sc.Data, nil)
	if err != nil {
		return nil, nil, spent{}, err
	}
	if err := e.SetFaults(sim.Faults{Dropout: c.Dropout}); err != nil {
		return nil, nil, spent{}, err
	}
	// The scenario's facts (seconds on a large graph) only for a run
	// that writes a log.
	h := presets.BriefHeader(c.Scenario, sc, e, time.Now())
	if r.Log != nil {
		h = presets.Header(c.Scenario, sc, e, time.Now())
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, nil, spent{}, err
	}
	if err := r.Log.Write(h); err != nil {
		return nil, nil, spent{}, err
	}
	e.SetLog(r.Log)
	e.SetMeta(sim.Meta{Header: hb})
	return e, sc, spent{cpuOK: true}, nil
}

// resume rebuilds the checkpoint's scenario, checks that its data files
// are the ones the checkpointed run read, and resumes the engine.
func (r *Runner) resume(c *Cell, ck *sim.Checkpoint, st *checkpointState, path string) (*sim.Engine, *presets.Scenario, error) {
	env := presets.Env{DataDir: st.DataDir, Partition: st.Partition}
	if r.Env.DataDir != "" {
		env.DataDir = r.Env.DataDir
	}
	ck.Config.Workers = c.Config.Workers
	sc, err := c.Scenario.Build(env, ck.Config.Seed)
	if err != nil {
		return nil, nil, fmt.Errorf("resume %s: preset %s: %w", path, c.Scenario.Name, err)
	}
	if len(sc.Files) != len(st.Files) {
		return nil, nil, fmt.Errorf("resume %s: the scenario now reads %d data files, the checkpointed run read %d", path, len(sc.Files), len(st.Files))
	}
	for i, df := range sc.Files {
		if was := st.Files[i]; df.SHA256 != was.SHA256 {
			return nil, nil, fmt.Errorf("resume %s: data file %s has sha256 %s, but the checkpointed run read %s with sha256 %s", path, df.Path, df.SHA256, was.Path, was.SHA256)
		}
	}
	e, err := ck.Resume(sc.Data, r.Log)
	if err != nil {
		return nil, nil, fmt.Errorf("resume %s: %w", path, err)
	}
	return e, sc, nil
}

// save checkpoints e, the cell c, to path.
func (r *Runner) save(e *sim.Engine, c *Cell, sc *presets.Scenario, path string, took spent) error {
	st := checkpointState{Key: c.Key(), Scenario: c.Scenario.Name, DataDir: r.Env.DataDir, Partition: c.Partition,
		ScenarioFile: scenarioFile(c.Scenario), ScenarioText: scenarioText(c.Scenario),
		Files: sc.Files, Labels: c.Labels, Elapsed: took.wall.Seconds()}
	if took.cpuOK {
		cpu := took.cpu.Seconds()
		st.CPU = &cpu
	}
	if r.State != nil {
		var err error
		if st.Study, err = r.State(); err != nil {
			return err
		}
	}
	app, err := json.Marshal(st)
	if err != nil {
		return err
	}
	m := e.Meta()
	m.App = app
	e.SetMeta(m)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return e.SaveCheckpoint(path)
}

// median returns the median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// scenarioFile and scenarioText are what a checkpoint keeps of a scenario
// that its name alone does not give back.
func scenarioFile(p *presets.Preset) string {
	if p.Fingerprint() == "" {
		return ""
	}
	return p.File
}

func scenarioText(p *presets.Preset) string {
	if p.Fingerprint() == "" {
		return ""
	}
	return p.Spec.Render()
}
