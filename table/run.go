package table

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// Kinds of table.
const (
	Main     = "main"     // Table 1: baselines and FedAux
	Ablation = "ablation" // the ablations on 10 clients
	// Transfer is the APV's transferability (docs/method.md#apv-transferability): FED-PUB,
	// FedGTA and FedSage+ beside their +APV variants on 10 clients.
	Transfer = "transfer"
)

// Kinds lists the kinds of table.
func Kinds() []string { return []string{Main, Ablation, Transfer} }

// Defaults returns the grid of a kind of table: datasets, numbers of
// clients and algorithms. Main covers the datasets the project ships
// (PubMed and ogbn-arxiv need files it cannot ship); Ablation covers the
// paper's ablation datasets, with FedAux itself as the row the ablations
// are read against; Transfer covers the paper's transfer datasets (Cora, PubMed,
// Amazon-Computer) and CiteSeer, each method followed by its +APV variant.
func Defaults(kind string) (datasets []string, clients []int, algos []sim.Algorithm, err error) {
	switch kind {
	case Main:
		return []string{"cora", "citeseer", "computer", "photo"}, []int{5, 10, 20},
			[]sim.Algorithm{methods.Local, methods.FedAvg, methods.FedProx, methods.FedPer, methods.GCFL, methods.FedGNN, methods.FedGTA, methods.FedSagePlus, methods.FedPub, methods.FedAux}, nil
	case Ablation:
		return []string{"cora", "pubmed", "computer", "arxiv"}, []int{10},
			[]sim.Algorithm{methods.FedAux, methods.FedAuxHard, methods.FedAvgMask}, nil
	case Transfer:
		return []string{"cora", "citeseer", "pubmed", "computer"}, []int{10},
			[]sim.Algorithm{methods.FedPub, methods.FedPubAPV, methods.FedGTA, methods.FedGTAAPV, methods.FedSagePlus, methods.FedSageAPV}, nil
	}
	return nil, nil, nil, fmt.Errorf("table: kind %q, want %s, %s or %s", kind, Main, Ablation, Transfer)
}

// Options describe a table run.
type Options struct {
	Kind     string // Main, Ablation or Transfer (names the Markdown file and its title); Run and Load refuse any other
	Datasets []string
	Clients  []int
	Algos    []sim.Algorithm
	Seeds    int    // runs per cell: seeds Seed .. Seed+Seeds-1
	Seed     uint64 // first seed
	// Base, when set, overrides the presets' settings of every run (the
	// run flags a user gave: a smoke run's -rounds, FedProx's -mu, ...);
	// the table states every override. Algo and Seed are the table's.
	Base func(*sim.Config) error
	Env  presets.Env
	Out  string // output directory
	// Shard is the share of the runs this process computes.
	Shard study.Shard
	// Reshard re-plans Out for Shard (see study.DirStudy.Reshard).
	Reshard bool
	// SkipMissing skips the runs whose data files are absent instead of
	// failing before any runs (see study.MissingDataError); the table
	// marks their cells "no data".
	SkipMissing bool
	// Recorder is told the progress; nil records nothing.
	Recorder study.Recorder
	// Interrupts, when not nil, stop the table at a round boundary; the
	// run in flight is checkpointed in Out/checkpoints and resumes there.
	Interrupts *study.Interrupts
	// Lookup finds the preset of a cell, or nil (and no error) when there
	// is none; nil means presets.Get("<dataset>-<clients>").
	Lookup func(dataset string, clients int) (*presets.Preset, error)
	// Reuse lists directories of other studies (another table, a sweep)
	// whose results of the same runs are copied into Out (the shard's
	// file) instead of being run again. They are only read.
	Reuse []string
}

// Labels of a table's cells.
const (
	LabelDataset = "dataset"
	LabelClients = "clients"
)

// MarkdownFile returns the Markdown file name of a kind of table.
func MarkdownFile(kind string) string {
	switch kind {
	case Ablation:
		return "ablation.md"
	case Transfer:
		return "transfer.md"
	}
	return "table1.md"
}

// grid is a table's cells, in the stable order that shards divide: seed
// by seed (every cell's first seed before any second seed, so that an
// early table covers every cell), then dataset, clients and algorithm.
type grid struct {
	cells   []*study.Cell
	missing []string // presets whose data is absent
	byPos   map[pos]*study.Cell
}

type pos struct {
	dataset string
	clients int
	algo    sim.Algorithm
	seed    uint64
}

func (o *Options) grid() (*grid, error) {
	if !slices.Contains(Kinds(), o.Kind) {
		return nil, fmt.Errorf("table: kind = %q, want %s, %s or %s", o.Kind, Main, Ablation, Transfer)
	}
	if err := study.CheckSeeds(o.Seed, o.Seeds); err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	for _, a := range o.Algos {
		if _, err := sim.ParseAlgorithm(string(a)); err != nil {
			return nil, fmt.Errorf("table: %w", err)
		}
	}
	g := &grid{byPos: map[pos]*study.Cell{}}
	for i := 0; i < o.Seeds; i++ {
		for _, ds := range o.Datasets {
			for _, k := range o.Clients {
				p, err := o.preset(ds, k)
				if err != nil {
					return nil, fmt.Errorf("table: %w", err)
				}
				if p == nil { // Lookup has no scenario of k clients for ds
					continue
				}
				if i == 0 && !p.Available(o.Env) {
					g.missing = append(g.missing, p.Name)
				}
				for _, a := range o.Algos {
					cfg, err := o.config(p, a, o.Seed+uint64(i))
					if err != nil {
						return nil, fmt.Errorf("table: %s %s: %w", p.Name, a, err)
					}
					c := &study.Cell{Scenario: p, Partition: p.ResolvePartition(o.Env), Config: cfg,
						Labels: map[string]string{LabelDataset: ds, LabelClients: strconv.Itoa(k)}}
					g.cells = append(g.cells, c)
					g.byPos[pos{ds, k, a, c.Config.Seed}] = c
				}
			}
		}
	}
	return g, nil
}

// A Result is a table's runs: every results file in Options.Out.
type Result struct {
	// Stats say what Run did (zero from Load).
	study.Stats
	opts  Options
	g     *grid
	store *study.Store
}

// Run runs every run of the grid in the shard that the results files in
// opts.Out do not hold yet, appending each to the shard's results file
// as it finishes and rewriting the Markdown table (MarkdownFile), from
// every results file in the directory, after each. When ctx is
// cancelled or an interrupt stops it, Run returns the error; running it
// again resumes.
func Run(ctx context.Context, opts Options) (*Result, error) {
	g, err := opts.grid()
	if err != nil {
		return nil, err
	}
	d := &study.DirStudy{Dir: opts.Out, Shard: opts.Shard, Reshard: opts.Reshard, SkipMissing: opts.SkipMissing,
		Env: opts.Env, Recorder: opts.Recorder, Interrupts: opts.Interrupts,
		Render: func(s *study.Store, _ bool) error {
			return (&Result{opts: opts, g: g, store: s}).WriteFiles()
		}}
	if err := d.Claim(g.cells); err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	defer d.Release() // d.Run does, but for an error before it
	var mine []*study.Cell
	for i, m := range d.Shard.Mine(g.cells) {
		if m {
			mine = append(mine, g.cells[i])
		}
	}
	if err := study.Reuse(opts.Out, d.Shard.File(), opts.Reuse, mine); err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	st, store, err := d.Run(ctx, g.cells)
	if err != nil {
		return nil, err
	}
	return &Result{Stats: st, opts: opts, g: g, store: store}, nil
}

// Load returns the results in opts.Out (every results file there),
// running nothing.
func Load(opts Options) (*Result, error) {
	g, err := opts.grid()
	if err != nil {
		return nil, err
	}
	store, err := study.OpenStore(opts.Out, opts.Shard.File())
	if err != nil {
		return nil, err
	}
	return &Result{opts: opts, g: g, store: store}, nil
}

// Stored returns how many of the runs r's options ask for are stored, of
// how many.
func (r *Result) Stored() (stored, runs int) {
	return r.store.Stored(r.g.cells), len(r.g.cells)
}

// Torn returns the lines of the results files that were skipped, by
// file (see study.Store.Skipped).
func (r *Result) Torn() map[string]study.SkippedLines { return r.store.Skipped }

// Render writes the Markdown table of r: the cells' mean ± std beside
// the paper's values, the settings and what is still missing.
func Render(w io.Writer, r *Result) error {
	return r.opts.render(w, r.g, r.store)
}

// WriteFiles rewrites the Markdown table in Options.Out (MarkdownFile).
func (r *Result) WriteFiles() error {
	return export.WriteFileAtomic(filepath.Join(r.opts.Out, MarkdownFile(r.opts.Kind)), func(w io.Writer) error {
		return Render(w, r)
	})
}

// preset returns the preset of the cell (dataset, k).
func (o *Options) preset(ds string, k int) (*presets.Preset, error) {
	if o.Lookup != nil {
		return o.Lookup(ds, k)
	}
	return presets.Get(fmt.Sprintf("%s-%d", ds, k))
}

// config returns a run's settings: the preset's, with the overrides, the
// algorithm and the seed.
func (o *Options) config(p *presets.Preset, algo sim.Algorithm, seed uint64) (sim.Config, error) {
	c := p.Config()
	if o.Base != nil {
		if err := o.Base(&c); err != nil {
			return c, err
		}
	}
	c.Algo, c.Seed = algo, seed
	return c, c.Validate()
}

// overrides lists the settings in which the runs of algo differ from
// preset p's, as "rounds 2 (preset: 100)".
func (o *Options) overrides(p *presets.Preset, algo sim.Algorithm) []string {
	c, err := o.config(p, algo, 0)
	if err != nil {
		return nil
	}
	def := p.Config()
	def.Algo, def.Seed, def.Workers = algo, 0, c.Workers
	var out []string
	for _, key := range sim.Settings() {
		was, _ := def.Get(key)
		now, _ := c.Get(key)
		if was != now && !slices.Contains(sim.AlgorithmSettings(algo), key) {
			out = append(out, fmt.Sprintf("%s %s (preset: %s)", key, now, was))
		}
	}
	return out
}
