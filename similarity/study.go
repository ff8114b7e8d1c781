package similarity

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// Score is one view's agreement with the truth in one round of one run:
// a line of JSONLFile.
type Score struct {
	Variant string `json:"variant"`
	Seed    uint64 `json:"seed"`
	Round   int    `json:"round"`
	View    string `json:"view"`
	// Corr is the Pearson correlation of the view's off-diagonal entries
	// with the ground-truth similarity's; null when either is constant.
	Corr *float64 `json:"corr_ground_truth"`
	// ARI is the adjusted Rand index of average-linkage clustering of the
	// view into as many clusters as true groups; null without groups.
	ARI    *float64 `json:"ari"`
	Within float64  `json:"within"`
	Across float64  `json:"across"`
	// Alignment, on the line whose View is AlignmentView (and only
	// there), is the mean over the round's clients of |cos(APV, pc1)|
	// (sim.WantAlignment: Theorem 1 measured). AlignmentInit, beside it,
	// is the control: the same mean with the APV the run started from in
	// place of the trained one.
	Alignment     *float64 `json:"alignment,omitempty"`
	AlignmentInit *float64 `json:"alignment_init,omitempty"`
}

// AlignmentView is the View of the Score line that carries a round's
// mean alignment.
const AlignmentView = "alignment"

// Files the study writes in its output directory, beside the results files.
const (
	MarkdownFile = "similarity.md"
	JSONLFile    = "similarity.jsonl"
)

// Options describe a similarity study.
type Options struct {
	Preset     *presets.Preset
	Env        presets.Env
	Base       sim.Config // the variants' base; Base.Seed is the first seed
	Variants   []Variant
	Seeds      int
	At         []int // rounds to report, sorted
	Out        string
	PNG        bool // heat maps of the first seed
	Recorder   study.Recorder
	Interrupts *study.Interrupts
}

// cells returns the study's cells: every variant, seed by seed.
func (o *Options) cells() ([]*study.Cell, error) {
	if err := study.CheckSeeds(o.Base.Seed, o.Seeds); err != nil {
		return nil, fmt.Errorf("similarity: %w", err)
	}
	var cells []*study.Cell
	for _, v := range o.Variants {
		c := o.Base
		if err := v.Apply(&c); err != nil {
			return nil, err
		}
		for s := 0; s < o.Seeds; s++ {
			c.Seed = o.Base.Seed + uint64(s)
			cells = append(cells, &study.Cell{Scenario: o.Preset, Partition: o.Preset.ResolvePartition(o.Env),
				Config: c, Labels: map[string]string{study.LabelVariant: v.Name()}})
		}
	}
	return cells, nil
}

// A Result is a similarity study's scores: the results in Options.Out.
type Result struct {
	// Stats say what Run did (zero from Load).
	study.Stats
	opts Options
	// Scores holds every score of every run, run by run in the order of
	// the variants and seeds, round by round.
	Scores []Score
}

// Run runs every (variant, seed) the results in opts.Out do not hold,
// then writes MarkdownFile and JSONLFile there.
func Run(ctx context.Context, opts Options) (*Result, error) {
	cells, err := opts.cells()
	if err != nil {
		return nil, err
	}
	base := opts.Base
	var scores []Score
	d := &study.DirStudy{Dir: opts.Out, Env: opts.Env, Recorder: opts.Recorder, Interrupts: opts.Interrupts,
		Runner: func(r *study.Runner) {
			r.Observe = func(c *study.Cell, e *sim.Engine, rep *sim.RoundReport) error {
				// Every view, the ground truth and the alignment, in the rounds scored.
				if slices.Contains(opts.At, e.Round()+1) {
					e.Want(sim.WantAll, sim.WantAlignment)
				} else {
					e.Want()
				}
				if rep == nil { // a new cell, or one resumed from its checkpoint
					scores = nil
					for _, old := range e.Reports() {
						if slices.Contains(opts.At, old.Round) {
							scores = append(scores, scoreRound(c.Labels[study.LabelVariant], c.Config.Seed, old, e.Data().Groups)...)
						}
					}
					return nil
				}
				if !slices.Contains(opts.At, rep.Round) {
					return nil
				}
				scores = append(scores, scoreRound(c.Labels[study.LabelVariant], c.Config.Seed, rep, e.Data().Groups)...)
				if opts.PNG && c.Config.Seed == base.Seed {
					return writeHeatMaps(opts.Out, opts.Preset.Name, c, rep, e.Data().Groups)
				}
				return nil
			}
			r.Finish = func(c *study.Cell, _ *sim.Engine, _ *presets.Scenario, rec *study.Record) error {
				return study.SetExtra(rec, scores)
			}
		}}
	st, store, err := d.Run(ctx, cells)
	if err != nil {
		return nil, err
	}
	res, err := collect(opts, cells, store)
	if err != nil {
		return nil, err
	}
	res.Stats = st
	return res, res.WriteFiles()
}

// Load returns the scores of the results in opts.Out, running nothing.
func Load(opts Options) (*Result, error) {
	cells, err := opts.cells()
	if err != nil {
		return nil, err
	}
	store, err := study.OpenStore(opts.Out, study.ResultsFile)
	if err != nil {
		return nil, err
	}
	return collect(opts, cells, store)
}

// collect gathers the scores of the cells that store holds.
func collect(opts Options, cells []*study.Cell, store *study.Store) (*Result, error) {
	res := &Result{opts: opts}
	for _, c := range cells {
		rec, ok := store.Get(c.Key())
		if !ok {
			continue
		}
		var s []Score
		if err := study.Extra(rec, &s); err != nil {
			return nil, fmt.Errorf("similarity: %s: %w", c, err)
		}
		res.Scores = append(res.Scores, s...)
	}
	return res, nil
}

// Render writes the Markdown report of r (MarkdownFile): a table per
// variant (r and ARI of each view at each reported round) and Theorem
// 1's alignment table.
func Render(w io.Writer, r *Result) error {
	opts := &r.opts
	fmt.Fprintf(w, "# Similarity views on %s\n\n", opts.Preset.Name)
	fmt.Fprintf(w, "Per variant, view and round: r = Pearson correlation of the view's off-diagonal entries with the ground-truth "+
		"similarity (cosine of mean-pooled embeddings); ARI = adjusted Rand index of average-linkage clustering of the view into "+
		"the true number of groups. Mean ± std over seeds %d..%d; n/a where undefined (constant view, no true groups).\n\n",
		opts.Base.Seed, opts.Base.Seed+uint64(opts.Seeds)-1)
	for _, v := range opts.Variants {
		writeVariantTable(w, v.Name(), r.Scores, opts.At)
	}
	writeAlignmentTable(w, opts.Variants, r.Scores, opts.At)
	return nil
}

// WriteFiles rewrites JSONLFile and MarkdownFile in Options.Out.
func (r *Result) WriteFiles() error {
	if err := export.WriteFileAtomic(filepath.Join(r.opts.Out, JSONLFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, s := range r.Scores {
			if err := enc.Encode(s); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return export.WriteFileAtomic(filepath.Join(r.opts.Out, MarkdownFile), func(w io.Writer) error {
		return Render(w, r)
	})
}

// scoreRound scores every matrix of a round.
func scoreRound(variant string, seed uint64, rep *sim.RoundReport, groups []int) []Score {
	var out []Score
	for _, m := range rep.Matrices() {
		s := Score{Variant: variant, Seed: seed, Round: rep.Round, View: m.Name}
		if corr, ok := study.PearsonOffDiag(m.M, rep.GroundTruth); ok {
			s.Corr = &corr
		}
		if groups != nil {
			g := study.ScoreGroups(m.Name, m.M, groups)
			s.ARI, s.Within, s.Across = &g.ARI, g.Within, g.Across
		}
		out = append(out, s)
	}
	var sum, sum0 float64
	n := 0
	for _, c := range rep.Clients {
		if c.Alignment != nil && c.AlignmentInit != nil && !c.Absent {
			sum += *c.Alignment
			sum0 += *c.AlignmentInit
			n++
		}
	}
	if n > 0 {
		mean, mean0 := sum/float64(n), sum0/float64(n)
		out = append(out, Score{Variant: variant, Seed: seed, Round: rep.Round, View: AlignmentView, Alignment: &mean, AlignmentInit: &mean0})
	}
	return out
}

// writeHeatMaps writes every matrix of the round as a PNG on its
// stretched scale, under a directory named after the variant.
func writeHeatMaps(out, preset string, c *study.Cell, rep *sim.RoundReport, groups []int) error {
	v, _ := ParseVariants(c.Labels[study.LabelVariant], 0, 0)
	slug := "base"
	if len(v) == 1 {
		slug = v[0].Slug()
	}
	for _, mat := range rep.Matrices() {
		name := mat.Name
		path := filepath.Join(out, slug, fmt.Sprintf("r%03d-%s.png", rep.Round, name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		title := fmt.Sprintf("%s %s [%s] seed %d: %s, round %d", preset, c.Config.Algo, c.Labels[study.LabelVariant], c.Config.Seed, name, rep.Round)
		m := mat.M
		if err := export.WriteFileAtomic(path, func(w io.Writer) error {
			return export.WriteHeatMap(w, title, m, groups, export.StretchedScale(m))
		}); err != nil {
			return err
		}
	}
	return nil
}

// writeVariantTable writes one variant's Markdown table: a row per view,
// r and ARI columns per round.
func writeVariantTable(w io.Writer, variant string, recs []Score, at []int) {
	type cellKey struct {
		view  string
		round int
	}
	corr, ari := map[cellKey][]float64{}, map[cellKey][]float64{}
	var views []string
	for _, r := range recs {
		if r.Variant != variant || r.View == AlignmentView {
			continue
		}
		if !slices.Contains(views, r.View) {
			views = append(views, r.View)
		}
		k := cellKey{r.View, r.Round}
		if r.Corr != nil {
			corr[k] = append(corr[k], *r.Corr)
		}
		if r.ARI != nil {
			ari[k] = append(ari[k], *r.ARI)
		}
	}
	fmt.Fprintf(w, "## %s\n\n| view |", variant)
	for _, r := range at {
		fmt.Fprintf(w, " r @%d | ARI @%d |", r, r)
	}
	fmt.Fprint(w, "\n|---|")
	for range at {
		fmt.Fprint(w, "---|---|")
	}
	fmt.Fprintln(w)
	for _, view := range views {
		fmt.Fprintf(w, "| %s |", view)
		for _, r := range at {
			k := cellKey{view, r}
			fmt.Fprintf(w, " %s | %s |", format(corr[k]), format(ari[k]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// format writes mean ± std of xs (the mean alone for one value; n/a for none).
func format(xs []float64) string {
	if len(xs) == 0 {
		return "n/a"
	}
	m, sd := study.MeanStd(xs)
	if len(xs) == 1 {
		return fmt.Sprintf("%.3f", m)
	}
	return fmt.Sprintf("%.3f ± %.3f", m, sd)
}

// writeAlignmentTable writes Theorem 1's table: per variant and reported
// round, the mean over clients of |cos(APV, pc1)|, mean ± std over seeds,
// with the trained APV and, on a second row, the initial one (the
// control); nothing when no variant has an APV.
func writeAlignmentTable(w io.Writer, variants []Variant, recs []Score, at []int) {
	type cellKey struct {
		variant string
		round   int
	}
	vals, vals0 := map[cellKey][]float64{}, map[cellKey][]float64{}
	for _, r := range recs {
		if r.View == AlignmentView && r.Alignment != nil {
			k := cellKey{r.Variant, r.Round}
			vals[k] = append(vals[k], *r.Alignment)
			if r.AlignmentInit != nil {
				vals0[k] = append(vals0[k], *r.AlignmentInit)
			}
		}
	}
	if len(vals) == 0 {
		return
	}
	fmt.Fprint(w, "## Theorem 1: |cos(APV, pc1)|\n\n"+
		"Per client, the absolute cosine between its APV after local training and the leading eigenvector of the covariance "+
		"of its node embeddings (the pc1 signature); the mean over clients, then mean ± std over seeds. "+
		"Theorem 1 says it tends to 1; for a random direction in d dimensions it is about sqrt(2/(pi d)) (0.05 for d = 256). "+
		"The control row puts the APV the run started from in place of the trained one: where the two rows agree, "+
		"training has not moved the APV toward pc1.\n\n| variant | APV |")
	for _, r := range at {
		fmt.Fprintf(w, " @%d |", r)
	}
	fmt.Fprint(w, "\n|---|---|")
	for range at {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, v := range variants {
		for i, m := range []map[cellKey][]float64{vals, vals0} {
			fmt.Fprintf(w, "| %s | %s |", v.Name(), [...]string{"trained", "initial (control)"}[i])
			for _, r := range at {
				fmt.Fprintf(w, " %s |", format(m[cellKey{v.Name(), r}]))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
}
