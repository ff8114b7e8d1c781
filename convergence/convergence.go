package convergence

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// Options describe a convergence study.
type Options struct {
	// Grid is the presets, algorithms and seeds to run.
	study.Grid
	Out string
	// Reuse lists directories of other studies (a table, a sweep) whose
	// results are copied into Out for the cells they hold, instead of
	// running them again. They are only read.
	Reuse []string
	// Within is the converged round's tolerance in points (default 0.5).
	Within float64
	// Recorder is told the progress; nil records nothing.
	Recorder   study.Recorder
	Interrupts *study.Interrupts
}

// MarkdownFile is the report a study writes in Out, beside its results
// and one figure per preset (FigureFile).
const MarkdownFile = "convergence.md"

// FigureFile returns the name of a preset's figure.
func FigureFile(preset string) string { return "convergence-" + preset + ".png" }

// LabelPreset is the label naming a cell's preset.
const LabelPreset = study.LabelPreset

// cells returns the study's cells, seed-major.
func (o *Options) cells() ([]*study.Cell, error) {
	if !(o.Within >= 0 && o.Within <= 100) {
		return nil, fmt.Errorf("convergence: within = %g, want points in [0, 100] (0: the default)", o.Within)
	}
	cells, err := o.Grid.Cells()
	if err != nil {
		return nil, fmt.Errorf("convergence: %w", err)
	}
	return cells, nil
}

// A Result is a convergence study's runs: the results in Options.Out.
type Result struct {
	// Stats say what Run did (zero from Load).
	study.Stats
	opts  *Options
	cells []*study.Cell
	store *study.Store
}

// Run copies from opts.Reuse the results of cells that opts.Out lacks,
// runs the cells still missing (resuming an interrupted one from its
// checkpoint), and writes MarkdownFile and the figures, after every cell
// and at the end.
func Run(ctx context.Context, opts Options) (*Result, error) {
	cells, err := opts.cells()
	if err != nil {
		return nil, err
	}
	d := &study.DirStudy{Dir: opts.Out, Env: opts.Env, Recorder: opts.Recorder, Interrupts: opts.Interrupts, SkipMissing: opts.SkipMissing,
		Render: func(s *study.Store, _ bool) error {
			return (&Result{opts: &opts, cells: cells, store: s}).WriteFiles()
		}}
	// The copies are made by the process that runs the study, alone.
	if err := d.Claim(cells); err != nil {
		return nil, err
	}
	defer d.Release()
	if err := study.Reuse(opts.Out, study.ResultsFile, opts.Reuse, cells); err != nil {
		return nil, err
	}
	st, store, err := d.Run(ctx, cells)
	if err != nil {
		return nil, err
	}
	return &Result{Stats: st, opts: &opts, cells: cells, store: store}, nil
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

// Render writes the Markdown report of r (MarkdownFile): per preset and
// algorithm, the converged rounds, the curve's maximum and last value
// and the test accuracy at the best validation round.
func Render(w io.Writer, r *Result) error {
	return markdown(w, r.opts, r.Curves())
}

// Stored returns how many of the runs r's options ask for are stored, of
// how many.
func (r *Result) Stored() (stored, runs int) {
	return r.store.Stored(r.cells), len(r.cells)
}

// Torn returns the lines of the results files that were skipped, by
// file (see study.Store.Skipped).
func (r *Result) Torn() map[string]study.SkippedLines { return r.store.Skipped }

// WriteFiles rewrites MarkdownFile and the figures (FigureFile) in
// Options.Out.
func (r *Result) WriteFiles() error {
	return write(r.opts, r.cells, r.store)
}

// A Curve is one algorithm's convergence on one preset.
type Curve struct {
	Preset string
	Algo   sim.Algorithm
	Seeds  []uint64 // the seeds with a result
	// Test and Val hold, per round, the mean over seeds of the mean
	// client test (validation) accuracy (%); TestStd the standard
	// deviation over seeds (0 for one seed).
	Test, TestStd, Val []float64
	// Converged and ValConverged are the first rounds (1-based) at which
	// the mean test (validation) curve is within Within points of its
	// maximum; 0 without a curve.
	Converged, ValConverged int
	// TestAtBestVal holds each seed's test accuracy at its best
	// validation round (the table's number).
	TestAtBestVal []float64
}

// ConvergedRound returns the first round (1-based) at which curve is
// within tol points of its maximum (the paper's convergence analysis, docs/method.md#convergence: the
// definition is inferred), or 0 for an empty curve.
func ConvergedRound(curve []float64, tol float64) int {
	if len(curve) == 0 {
		return 0
	}
	top := math.Inf(-1)
	for _, v := range curve {
		top = math.Max(top, v)
	}
	for i, v := range curve {
		if v >= top-tol {
			return i + 1
		}
	}
	return 0
}

// Curves returns the curve of every (preset, algorithm) of the study,
// in the order of Options.Presets and Options.Algos; a pair without a
// result has no seeds and empty curves. Seeds whose runs differ in
// length are cut to the shortest.
func (r *Result) Curves() []Curve {
	return curves(r.opts, r.cells, r.store)
}

func curves(opts *Options, cells []*study.Cell, store *study.Store) []Curve {
	tol := opts.within()
	var out []Curve
	for _, p := range opts.Presets {
		for _, a := range opts.Algos {
			cv := Curve{Preset: p.Name, Algo: a}
			var tests, vals [][]float64
			for _, c := range cells {
				if c.Scenario.Name != p.Name || c.Config.Algo != a {
					continue
				}
				rec, ok := store.Get(c.Key())
				if !ok || len(rec.Test) == 0 {
					continue
				}
				cv.Seeds = append(cv.Seeds, c.Config.Seed)
				cv.TestAtBestVal = append(cv.TestAtBestVal, rec.TestAtBestVal)
				tests, vals = append(tests, rec.Test), append(vals, rec.Val)
			}
			cv.Test, cv.TestStd = meanStd(tests)
			cv.Val, _ = meanStd(vals)
			cv.Converged = ConvergedRound(cv.Test, tol)
			cv.ValConverged = ConvergedRound(cv.Val, tol)
			out = append(out, cv)
		}
	}
	return out
}

func (o *Options) within() float64 {
	if o.Within == 0 {
		return 0.5
	}
	return o.Within
}

// meanStd returns the per-round mean and standard deviation over the
// series, cut to the shortest.
func meanStd(series [][]float64) (mean, std []float64) {
	if len(series) == 0 {
		return nil, nil
	}
	n := len(series[0])
	for _, s := range series {
		n = min(n, len(s))
	}
	mean, std = make([]float64, n), make([]float64, n)
	col := make([]float64, len(series))
	for r := 0; r < n; r++ {
		for i, s := range series {
			col[i] = s[r]
		}
		mean[r], std[r] = study.MeanStd(col)
	}
	return mean, std
}

// write writes the report and the figures of the results in store.
func write(opts *Options, cells []*study.Cell, store *study.Store) error {
	cs := curves(opts, cells, store)
	for _, p := range opts.Presets {
		var series []export.Series
		for _, c := range cs {
			if c.Preset == p.Name && len(c.Seeds) > 0 {
				series = append(series, export.Series{Name: fmt.Sprintf("%s (%d seeds)", c.Algo, len(c.Seeds)), Mean: c.Test, Std: c.TestStd})
			}
		}
		if len(series) == 0 {
			continue
		}
		title := fmt.Sprintf("%s: mean client test accuracy per round, mean ± std over seeds", p.Name)
		if err := export.WriteFileAtomic(filepath.Join(opts.Out, FigureFile(p.Name)), func(w io.Writer) error {
			return export.WriteBands(w, title, "round", "test accuracy (%)", series)
		}); err != nil {
			return err
		}
	}
	return export.WriteFileAtomic(filepath.Join(opts.Out, MarkdownFile), func(w io.Writer) error {
		return markdown(w, opts, cs)
	})
}
