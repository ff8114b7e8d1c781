package sweep

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// Options describe a sweep.
type Options struct {
	Presets []*presets.Preset
	Env     presets.Env
	// Base adjusts each preset's settings before the knobs (the run flags
	// the user set); nil keeps the preset's.
	Base    func(*sim.Config) error
	Knobs   []Knob
	Algos   []sim.Algorithm
	Seeds   int
	Seed    uint64
	Workers int
	Dropout float64 // client dropout unless swept
	Out     string
	Shard   study.Shard
	// Reshard re-plans Out for Shard (see study.DirStudy.Reshard).
	Reshard bool
	// SkipMissing skips the runs whose data files are absent instead of
	// failing before any runs (see study.MissingDataError).
	SkipMissing bool
	// Recorder is told the progress; nil records nothing.
	Recorder   study.Recorder
	Interrupts *study.Interrupts
}

// Files a sweep writes beside its results files.
const MarkdownFile = "sweep.md"

// LabelPreset labels a sweep cell with its preset.
const LabelPreset = study.LabelPreset

// plan is a sweep's cells in their stable order (seed, preset,
// combination, algorithm), with the cell of each position.
type plan struct {
	cells  []*study.Cell
	combos []Combo
	at     map[pos]*study.Cell
}

type pos struct {
	preset, combo string
	algo          sim.Algorithm
	seed          uint64
}

func (o *Options) plan() (*plan, error) {
	switch {
	case len(o.Presets) == 0:
		return nil, fmt.Errorf("sweep: no preset")
	case len(o.Knobs) == 0:
		return nil, fmt.Errorf("sweep: no grid")
	case len(o.Algos) == 0:
		return nil, fmt.Errorf("sweep: no algorithm")
	}
	if err := study.CheckSeeds(o.Seed, o.Seeds); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	for i, k := range o.Knobs {
		for _, l := range o.Knobs[:i] {
			if l.Key == k.Key {
				return nil, fmt.Errorf("sweep: %s is swept twice", k.Key)
			}
		}
		reads := func(a sim.Algorithm) bool { return sim.ReadBy(k.Key, a) }
		if k.Key != ClientDropout && !slices.ContainsFunc(o.Algos, reads) {
			return nil, fmt.Errorf("sweep: grid %s: none of %v reads %s, so that its points would be one run", k.Key, o.Algos, k.Key)
		}
	}
	pl := &plan{combos: Combos(o.Knobs), at: map[pos]*study.Cell{}}
	for s := 0; s < o.Seeds; s++ {
		for _, p := range o.Presets {
			for _, combo := range pl.combos {
				for _, a := range o.Algos {
					c := p.Config()
					c.Algo, c.Seed, c.Workers = a, o.Seed+uint64(s), o.Workers
					if o.Base != nil {
						if err := o.Base(&c); err != nil {
							return nil, err
						}
					}
					dropout := o.Dropout
					if err := apply(o.Knobs, combo, &c, &dropout); err != nil {
						return nil, fmt.Errorf("%w (%s, %s)", err, combo.Name(o.Knobs), a)
					}
					labels := map[string]string{LabelPreset: p.Name, study.LabelVariant: combo.Name(o.Knobs)}
					for i, k := range o.Knobs {
						labels[k.Key] = combo[i]
					}
					cell := &study.Cell{Scenario: p, Partition: p.ResolvePartition(o.Env), Config: c, Dropout: dropout, Labels: labels}
					pl.cells = append(pl.cells, cell)
					pl.at[pos{p.Name, combo.Name(o.Knobs), a, c.Seed}] = cell
				}
			}
		}
	}
	return pl, nil
}

// A Result is a sweep's runs: every results file in Options.Out.
type Result struct {
	// Stats say what Run did (zero from Load).
	study.Stats
	w *writer
}

// Run runs the sweep's cells of the shard that the results files in
// opts.Out do not hold, then (and after every cell) writes sweep.md and
// the figures from every results file there.
func Run(ctx context.Context, opts Options) (*Result, error) {
	pl, err := opts.plan()
	if err != nil {
		return nil, err
	}
	d := &study.DirStudy{Dir: opts.Out, Shard: opts.Shard, Reshard: opts.Reshard, SkipMissing: opts.SkipMissing,
		Env: opts.Env, Recorder: opts.Recorder, Interrupts: opts.Interrupts,
		Render: func(s *study.Store, final bool) error {
			return (&writer{o: &opts, pl: pl, store: s}).write(final)
		}}
	st, store, err := d.Run(ctx, pl.cells)
	if err != nil {
		return nil, err
	}
	return &Result{Stats: st, w: &writer{o: &opts, pl: pl, store: store}}, nil
}

// Load returns the results in opts.Out (every results file there),
// running nothing.
func Load(opts Options) (*Result, error) {
	pl, err := opts.plan()
	if err != nil {
		return nil, err
	}
	store, err := study.OpenStore(opts.Out, opts.Shard.File())
	if err != nil {
		return nil, err
	}
	return &Result{w: &writer{o: &opts, pl: pl, store: store}}, nil
}

// Render writes the Markdown report of r (sweep.md): per preset, a row
// per combination and a column per algorithm, the best combination of
// each in bold.
func Render(w io.Writer, r *Result) error {
	return r.w.markdown(w, r.w.results())
}

// WriteFiles rewrites sweep.md and the figures in Options.Out.
func (r *Result) WriteFiles() error { return r.w.write(true) }

// Stored returns how many of the runs r's options ask for are stored, of
// how many.
func (r *Result) Stored() (stored, runs int) {
	return r.w.store.Stored(r.w.pl.cells), len(r.w.pl.cells)
}

// Torn returns the lines of the results files that were skipped, by
// file (see study.Store.Skipped).
func (r *Result) Torn() map[string]study.SkippedLines { return r.w.store.Skipped }

// writer writes the report of the results in store.
type writer struct {
	o     *Options
	pl    *plan
	store *study.Store
}

// write rewrites sweep.md, and the figures when figures is set, from
// the store as it is (DirStudy reloads it before each report).
func (w *writer) write(figures bool) error {
	res := w.results()
	if err := export.WriteFileAtomic(filepath.Join(w.o.Out, MarkdownFile), func(out io.Writer) error {
		return w.markdown(out, res)
	}); err != nil {
		return err
	}
	if !figures {
		return nil
	}
	return w.figures(res)
}

// stat is one (preset, combination, algorithm): its finished seeds' accuracies.
type stat struct {
	accs      []float64
	mean, std float64
}

func (s *stat) ok() bool { return len(s.accs) > 0 }

func (w *writer) results() map[pos]*stat {
	out := map[pos]*stat{}
	for _, p := range w.o.Presets {
		for _, combo := range w.pl.combos {
			for _, a := range w.o.Algos {
				s := &stat{}
				for i := 0; i < w.o.Seeds; i++ {
					c := w.pl.at[pos{p.Name, combo.Name(w.o.Knobs), a, w.o.Seed + uint64(i)}]
					if r, ok := w.store.Get(c.Key()); ok {
						s.accs = append(s.accs, r.TestAtBestVal)
					}
				}
				s.mean, s.std = study.MeanStd(s.accs)
				out[pos{p.Name, combo.Name(w.o.Knobs), a, 0}] = s
			}
		}
	}
	return out
}

// best returns, per (preset, algorithm), the combination of highest mean.
func (w *writer) best(res map[pos]*stat) map[[2]string]string {
	out := map[[2]string]string{}
	for _, p := range w.o.Presets {
		for _, a := range w.o.Algos {
			var bestName string
			bestMean := -1.0
			for _, combo := range w.pl.combos {
				if s := res[pos{p.Name, combo.Name(w.o.Knobs), a, 0}]; s.ok() && s.mean > bestMean {
					bestName, bestMean = combo.Name(w.o.Knobs), s.mean
				}
			}
			out[[2]string{p.Name, string(a)}] = bestName
		}
	}
	return out
}

func (w *writer) markdown(out io.Writer, res map[pos]*stat) error {
	best := w.best(res)
	fmt.Fprintf(out, "# Sweep\n\n")
	var keys []string
	for _, k := range w.o.Knobs {
		keys = append(keys, k.Key)
	}
	m := metricLabel(w.o.Presets)
	fmt.Fprintf(out, "Test "+m+" (%%) at the round of best mean validation "+m+", mean ± std (population) over seeds %d..%d; "+
		"**bold**: the best combination of each algorithm on each preset; [n/%d]: seeds finished so far; —: not run yet. "+
		"Swept: %s; every other setting as the preset and the command's flags. Raw runs: `results*.jsonl`.\n\n",
		w.o.Seed, w.o.Seed+uint64(w.o.Seeds)-1, w.o.Seeds, joinKeys(keys))
	finished := 0
	for _, c := range w.pl.cells {
		if _, ok := w.store.Get(c.Key()); ok {
			finished++
		}
	}
	fmt.Fprintf(out, "Runs finished: %d of %d.\n\n", finished, len(w.pl.cells))
	if f := w.allFigure(); f != "" {
		fmt.Fprintf(out, "![%s](%s)\n\n", f, f)
	}
	for _, p := range w.o.Presets {
		fmt.Fprintf(out, "## %s\n\n|", p.Name)
		for _, k := range w.o.Knobs {
			fmt.Fprintf(out, " %s |", k.Key)
		}
		for _, a := range w.o.Algos {
			fmt.Fprintf(out, " %s |", a)
		}
		fmt.Fprint(out, "\n|")
		for range len(w.o.Knobs) + len(w.o.Algos) {
			fmt.Fprint(out, "---|")
		}
		fmt.Fprintln(out)
		for _, combo := range w.pl.combos {
			fmt.Fprint(out, "|")
			for _, v := range combo {
				fmt.Fprintf(out, " %s |", v)
			}
			for _, a := range w.o.Algos {
				s := res[pos{p.Name, combo.Name(w.o.Knobs), a, 0}]
				cell := "—"
				if s.ok() {
					cell = fmt.Sprintf("%.2f ± %.2f", s.mean, s.std)
					if len(s.accs) < w.o.Seeds {
						cell += fmt.Sprintf(" [%d/%d]", len(s.accs), w.o.Seeds)
					}
					if best[[2]string{p.Name, string(a)}] == combo.Name(w.o.Knobs) {
						cell = "**" + cell + "**"
					}
				}
				fmt.Fprintf(out, " %s |", cell)
			}
			fmt.Fprintln(out)
		}
		fmt.Fprintln(out)
		if figs := w.figureNames(p.Name); len(figs) > 0 {
			for _, f := range figs {
				fmt.Fprintf(out, "![%s](%s)\n", f, f)
			}
			fmt.Fprintln(out)
		}
	}
	return nil
}

func joinKeys(keys []string) string {
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += " x "
		}
		s += k
	}
	return s
}

// figureNames lists the figures of a preset: one for a one-knob sweep
// (every algorithm a line), one heat map per algorithm for two knobs,
// none for more.
func (w *writer) figureNames(preset string) []string {
	switch len(w.o.Knobs) {
	case 1:
		return []string{fmt.Sprintf("%s-%s.png", preset, w.o.Knobs[0].Key)}
	case 2:
		var out []string
		for _, a := range w.o.Algos {
			out = append(out, fmt.Sprintf("%s-%s-%s-x-%s.png", preset, a, w.o.Knobs[0].Key, w.o.Knobs[1].Key))
		}
		return out
	}
	return nil
}

// series is the one-knob curve of algorithm a on a preset.
func (w *writer) series(res map[pos]*stat, preset string, a sim.Algorithm, name string) export.Series {
	s := export.Series{Name: name}
	for _, combo := range w.pl.combos {
		st := res[pos{preset, combo.Name(w.o.Knobs), a, 0}]
		m, sd := nan(), nan()
		if st.ok() {
			m, sd = st.mean, st.std
		}
		s.Mean, s.Std = append(s.Mean, m), append(s.Std, sd)
	}
	return s
}

// allFigure names the one-knob figure of every preset together ("" when
// the sweep has one preset or several knobs).
func (w *writer) allFigure() string {
	if len(w.o.Knobs) != 1 || len(w.o.Presets) < 2 {
		return ""
	}
	return "all-" + w.o.Knobs[0].Key + ".png"
}

func (w *writer) figures(res map[pos]*stat) error {
	if f := w.allFigure(); f != "" {
		k := w.o.Knobs[0]
		var series []export.Series
		for _, p := range w.o.Presets {
			for _, a := range w.o.Algos {
				name := p.Name
				if len(w.o.Algos) > 1 {
					name += " " + string(a)
				}
				series = append(series, w.series(res, p.Name, a, name))
			}
		}
		m := metricLabel(w.o.Presets)
		title := fmt.Sprintf("test %s against %s (mean ± std, %d seeds)", m, k.Key, w.o.Seeds)
		if err := export.WriteFileAtomic(filepath.Join(w.o.Out, f), func(out io.Writer) error {
			return export.WriteErrorBars(out, title, k.Key, "test "+m+" at best val (%)", k.Values, series)
		}); err != nil {
			return err
		}
	}
	for _, p := range w.o.Presets {
		names := w.figureNames(p.Name)
		switch len(w.o.Knobs) {
		case 1:
			k := w.o.Knobs[0]
			var series []export.Series
			for _, a := range w.o.Algos {
				series = append(series, w.series(res, p.Name, a, string(a)))
			}
			m := p.MetricFor().Label()
			title := fmt.Sprintf("%s: test %s against %s (mean ± std, %d seeds)", p.Name, m, k.Key, w.o.Seeds)
			if err := export.WriteFileAtomic(filepath.Join(w.o.Out, names[0]), func(out io.Writer) error {
				return export.WriteErrorBars(out, title, k.Key, "test "+m+" at best val (%)", k.Values, series)
			}); err != nil {
				return err
			}
		case 2:
			rows, cols := w.o.Knobs[0], w.o.Knobs[1]
			for ai, a := range w.o.Algos {
				m := make([][]float64, len(rows.Values))
				for i, rv := range rows.Values {
					m[i] = make([]float64, len(cols.Values))
					for j, cv := range cols.Values {
						st := res[pos{p.Name, Combo{rv, cv}.Name(w.o.Knobs), a, 0}]
						m[i][j] = nan()
						if st.ok() {
							m[i][j] = st.mean
						}
					}
				}
				title := fmt.Sprintf("%s %s: mean test %s (%%), %d seeds", p.Name, a, p.MetricFor().Label(), w.o.Seeds)
				if err := export.WriteFileAtomic(filepath.Join(w.o.Out, names[ai]), func(out io.Writer) error {
					return export.WriteValueHeatMap(out, title, cols.Key, rows.Key, cols.Values, rows.Values, m)
				}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func nan() float64 { return math.NaN() }

// metricLabel names the metric of the presets' scores: "accuracy", "ROC
// AUC", or both when the presets differ.
func metricLabel(ps []*presets.Preset) string {
	seen := map[string]bool{}
	var names []string
	for _, p := range ps {
		if l := p.MetricFor().Label(); !seen[l] {
			seen[l] = true
			names = append(names, l)
		}
	}
	if len(names) == 0 {
		return "accuracy"
	}
	return strings.Join(names, " or ")
}
