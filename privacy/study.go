package privacy

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// Options describe a membership inference study: every algorithm on
// every preset with every seed, attacked.
type Options struct {
	// Grid is the presets, algorithms and seeds to run.
	study.Grid
	Out string
	// NonMembers is the kind of attack the report sets beside the
	// paper's values; every run computes both (see RunResult).
	NonMembers NonMembers
	// Recorder is told the progress; nil records nothing.
	Recorder   study.Recorder
	Interrupts *study.Interrupts
}

// MarkdownFile is the report a study writes in Out, beside its results.
const MarkdownFile = "privacy.md"

// LabelPreset is the label naming a cell's preset.
const LabelPreset = study.LabelPreset

// cells returns the study's cells, seed-major.
func (o *Options) cells() ([]*study.Cell, error) {
	for _, a := range o.Algos {
		if a == methods.FedSagePlus {
			return nil, fmt.Errorf("privacy: %s: its clients give no probe (they are not the engine's clients)", a)
		}
	}
	cells, err := o.Grid.Cells()
	if err != nil {
		return nil, fmt.Errorf("privacy: %w", err)
	}
	return cells, nil
}

// Run runs the cells that opts.Out does not hold (resuming an
// interrupted one from its checkpoint, whose reports keep the probes
// taken so far), attacks each run as it finishes, stores the attack in
// the run's record (Record.Extra, a RunResult), and writes MarkdownFile
// after every cell and at the end.
//
// In each run the engine probes every client at the checkpoints
// (CheckpointRounds): its model of the round, the parameters it uploaded
// after local training, runs in evaluation mode on its members (its
// training nodes), a sample of its test nodes and a sample of other
// clients' nodes, drawn for the seed (see drawCandidates and
// sim.WantProbe).
func Run(ctx context.Context, opts Options) (*Result, error) {
	cells, err := opts.cells()
	if err != nil {
		return nil, err
	}
	if err := checkStore(opts.Out, cells); err != nil {
		return nil, err
	}
	var cands []candidates
	d := &study.DirStudy{Dir: opts.Out, Env: opts.Env, Recorder: opts.Recorder, Interrupts: opts.Interrupts, SkipMissing: opts.SkipMissing,
		Render: func(s *study.Store, _ bool) error {
			return (&Result{opts: &opts, cells: cells, store: s}).WriteFiles()
		},
		Runner: func(r *study.Runner) {
			r.Observe = func(c *study.Cell, e *sim.Engine, rep *sim.RoundReport) error {
				if rep == nil { // a new cell, or one resumed from its checkpoint
					var err error
					if cands, err = drawCandidates(e.Data(), c.Config.Seed); err != nil {
						return fmt.Errorf("%s: %w", c, err)
					}
					targets := make([][]sim.NodeRef, len(cands))
					for k, cd := range cands {
						targets[k] = cd.targets(k)
					}
					if err := e.SetProbeTargets(targets); err != nil {
						return fmt.Errorf("%s: %w", c, err)
					}
				}
				if slices.Contains(CheckpointRounds(c.Config.Rounds), e.Round()+1) {
					e.Want(sim.WantProbe)
				} else {
					e.Want()
				}
				return nil
			}
			r.Finish = func(c *study.Cell, e *sim.Engine, _ *presets.Scenario, rec *study.Record) error {
				res, err := attack(e, cands, c.Config.Seed)
				if err != nil {
					return fmt.Errorf("%s: %w", c, err)
				}
				return study.SetExtra(rec, res)
			}
		}}
	st, store, err := d.Run(ctx, cells)
	if err != nil {
		return nil, err
	}
	return &Result{Stats: st, opts: &opts, cells: cells, store: store}, nil
}

// attack runs the attacks on a finished run from the probes its reports
// hold at the checkpoints.
func attack(e *sim.Engine, cands []candidates, seed uint64) (*RunResult, error) {
	rounds := CheckpointRounds(e.Config().Rounds)
	reps := e.Reports()
	probes := make([][]*sim.Probe, len(rounds))
	for r, t := range rounds {
		rep := reps[t-1]
		for _, m := range rep.Clients {
			if m.Probe == nil {
				return nil, fmt.Errorf("privacy: client %d has no probe of round %d (absent, or run elsewhere)", m.ID, t)
			}
			probes[r] = append(probes[r], m.Probe)
		}
	}
	cfg := e.Config()
	return attackRun(e.Data(), cands, probes, rounds, seed, cfg.NumWorkers())
}

// checkStore refuses an output directory whose results hold a cell of
// the study without an attack (a run of another study, such as a
// table): the study would take the run as done and have nothing to report.
func checkStore(dir string, cells []*study.Cell) error {
	store, err := study.OpenStore(dir, "")
	if err != nil {
		return err
	}
	for _, c := range cells {
		if rec, ok := store.Get(c.Key()); ok && len(rec.Extra) == 0 {
			return fmt.Errorf("privacy: %s holds a result of %s without an attack (another study's?): use another output directory", dir, c)
		}
	}
	return nil
}

// A Result is a membership inference study's runs and attacks: the
// results in Options.Out.
type Result struct {
	// Stats say what Run did (zero from Load).
	study.Stats
	opts  *Options
	cells []*study.Cell
	store *study.Store
}

// Load returns the results in opts.Out, running nothing.
func Load(opts Options) (*Result, error) {
	cells, err := opts.cells()
	if err != nil {
		return nil, err
	}
	store, err := study.OpenStore(opts.Out, study.ResultsFile)
	if err != nil {
		return nil, err
	}
	return &Result{opts: &opts, cells: cells, store: store}, nil
}

// Stored returns how many of the runs r's options ask for are stored, of
// how many.
func (r *Result) Stored() (stored, runs int) {
	return r.store.Stored(r.cells), len(r.cells)
}

// Torn returns the lines of the results files that were skipped, by
// file (see study.Store.Skipped).
func (r *Result) Torn() map[string]study.SkippedLines { return r.store.Skipped }

// Render writes the Markdown report of r (MarkdownFile): per preset,
// the attack AUC of every algorithm beside the paper's, and per client.
func Render(w io.Writer, r *Result) error {
	rows, err := r.Rows()
	if err != nil {
		return err
	}
	return markdown(w, r.opts, rows)
}

// WriteFiles rewrites MarkdownFile in Options.Out.
func (r *Result) WriteFiles() error {
	return export.WriteFileAtomic(filepath.Join(r.opts.Out, MarkdownFile), func(w io.Writer) error {
		return Render(w, r)
	})
}
