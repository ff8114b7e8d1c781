package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
	"github.com/fedaux/fedaux/table"
)

// tableCmd runs a grid of presets x algorithms x seeds and writes the
// paper's table beside ours: `fedaux table [-table main|ablation] ...`.
// Every run flag overrides the presets' settings (the table says so).
func tableCmd(args []string, stdout, stderr io.Writer) error {
	f := newRunFlags("table", "", stderr)
	fs := f.fs
	kind := fs.String("table", table.Main, "which table: main (Table 1), ablation (FedAux_hard and FedAvg_mask on 10 clients) or transfer (FED-PUB, FedGTA and FedSage+ beside their +APV variants on 10 clients)")
	datasets := fs.String("datasets", "", "comma-separated dataset prefixes of the presets (default: the table's; main: cora,citeseer,computer,photo; transfer: cora,citeseer,pubmed,computer)")
	clients := fs.String("clients", "", "comma-separated numbers of clients (default: main 5,10,20; ablation and transfer 10)")
	algos := fs.String("algos", "", "comma-separated algorithms (default: main local,fedavg,fedprox,fedper,gcfl,fedgnn,fedgta,fedsage_plus,fedpub,fedaux; ablation fedaux,fedaux_hard,fedavg_mask; transfer fedpub,fedpub_apv,fedgta,fedgta_apv,fedsage_plus,fedsage_apv)")
	out := fs.String("out", "", "output `dir`: the results files and the Markdown table (default ./runs/table-<table>)")
	shard := fs.String("shard", "", "run one share of the runs: `I/N` (the runs whose index is I mod N) or auto (from a Slurm job array or a Kubernetes Indexed Job); each shard writes its own results file, and the table is rendered from all of them")
	shardCount := fs.Int("shard-count", 0, "with -shard auto on Kubernetes: the number of shards (default $"+study.EnvShardCount+")")
	reuse := fs.String("reuse", "", "comma-separated `dirs` of other studies (another table, a sweep) whose results of the same runs are copied into -out instead of run again")
	render := fs.Bool("render", false, "only write the Markdown table from the results files in -out (every shard's), running nothing")
	reshard := fs.Bool("reshard", false, "re-plan -out for this -shard (or for a whole run without -shard) when its shards.json fixes others; only when none of its shards is running")
	skipMissing := fs.Bool("skip-missing", false, "run the runs whose data files are present and mark the others 'no data', instead of failing before any runs")
	if err := f.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("table: unexpected argument %q", fs.Arg(0))
	}
	dds, dks, das, err := table.Defaults(*kind)
	if err != nil {
		return fmt.Errorf("-table: %q, want %s", *kind, strings.Join(table.Kinds(), ", "))
	}
	sh, err := parseShard(*shard, *shardCount)
	if err != nil {
		return err
	}
	first, err := f.apply(sim.DefaultConfig()) // checks the flags, and gives -seed
	if err != nil {
		return err
	}
	opts := table.Options{
		Kind: *kind, Datasets: dds, Clients: dks, Algos: das, Seeds: f.seeds, Seed: first.Seed,
		Env: f.env(), Out: *out, Shard: sh, Reshard: *reshard, SkipMissing: *skipMissing, Reuse: splitList(*reuse),
		Recorder: study.Progress(stderr, "table: "), Base: f.base,
	}
	if *datasets != "" {
		opts.Datasets = splitList(*datasets)
		if d, ok := repeated(opts.Datasets); ok {
			return fmt.Errorf("-datasets: %s twice", d)
		}
	}
	if f.scenario != "" {
		if *datasets != "" || *clients != "" {
			return errors.New("table: -scenario gives the rows; leave -datasets and -clients out")
		}
		ps, err := f.scenarios()
		if err != nil {
			return err
		}
		opts.Datasets, opts.Clients, opts.Lookup = scenarioGrid(ps)
	} else if len(f.sets) > 0 {
		opts.Lookup = func(ds string, k int) (*presets.Preset, error) {
			p, err := presets.Get(fmt.Sprintf("%s-%d", ds, k))
			if err != nil {
				return nil, err
			}
			p, err = p.With(f.sets)
			if err != nil {
				return nil, fmt.Errorf("-set: %w", err)
			}
			return p, nil
		}
	}
	if *clients != "" && f.scenario == "" {
		if opts.Clients, err = parseInts(*clients); err != nil {
			return fmt.Errorf("-clients: %w", err)
		}
	}
	if *algos != "" {
		if opts.Algos, err = parseAlgos(*algos); err != nil {
			return err
		}
	}
	if opts.Out == "" {
		opts.Out = filepath.Join("runs", "table-"+*kind)
	}
	if *render {
		md := filepath.Join(opts.Out, table.MarkdownFile(*kind))
		if err := renderDir(opts.Out); err != nil {
			return err
		}
		res, err := table.Load(opts)
		if err != nil {
			return flagError(err)
		}
		if err := renderable(res, stderr, "table: ", opts.Out, md); err != nil {
			return err
		}
		if err := res.WriteFiles(); err != nil {
			return flagError(err)
		}
		fmt.Fprintf(stdout, "%s: rendered from the results in %s\n", md, opts.Out)
		return nil
	}
	it := study.CatchInterrupts(stderr)
	defer it.Release()
	opts.Interrupts = it
	st, err := table.Run(it.Context(), opts)
	md := filepath.Join(opts.Out, table.MarkdownFile(*kind))
	if ierr := interrupted(err, it, stderr, "table", md); ierr != nil {
		return ierr
	}
	if err != nil {
		return flagError(studyError(err))
	}
	fmt.Fprintf(stdout, "%s: %d runs%s (%d reused, %d run now%s), results in %s\n", md, st.Mine, shardNote(st.Shard), st.Reused, st.Ran, skippedNote(st.Stats), opts.Out)
	return nil
}

// scenarioGrid lays scenarios out as a table's rows: their names, their
// client counts, and the lookup of the scenario of a (name, K) cell.
func scenarioGrid(ps []*presets.Preset) ([]string, []int, func(string, int) (*presets.Preset, error)) {
	var names []string
	var ks []int
	for _, p := range ps {
		names = append(names, p.Name)
		if !slices.Contains(ks, p.Spec.Clients) {
			ks = append(ks, p.Spec.Clients)
		}
	}
	slices.Sort(ks)
	return names, ks, func(name string, k int) (*presets.Preset, error) {
		for _, p := range ps {
			if p.Name == name && p.Spec.Clients == k {
				return p, nil
			}
		}
		return nil, nil
	}
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseInts parses a comma-separated list of positive integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q: want positive integers", f)
		}
		out = append(out, v)
	}
	if v, ok := repeated(out); ok {
		return nil, fmt.Errorf("%d twice", v)
	}
	return out, nil
}

// repeated returns the first value of xs that an earlier one equals.
func repeated[T comparable](xs []T) (T, bool) {
	for i, x := range xs {
		if slices.Contains(xs[:i], x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}
