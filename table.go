package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
	"github.com/fedaux/fedaux/table"
)

// tableCmd runs a grid of presets x algorithms x seeds and writes the
// paper's table beside ours: `fedaux table [-table main|ablation] ...`.
// Finished runs are appended to DIR/results.jsonl, so running the same
// command again resumes where it stopped.
func tableCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kind := fs.String("table", table.Main, "which table: main (Table 1) or ablation (FedAux_hard and FedAvg_mask on 10 clients)")
	datasets := fs.String("datasets", "", "comma-separated dataset prefixes of the presets (default: the table's; main: cora,citeseer,computer,photo)")
	clients := fs.String("clients", "", "comma-separated numbers of clients (default: main 5,10,20; ablation 10)")
	algos := fs.String("algos", "", "comma-separated algorithms (default: main local,fedavg,fedprox,fedper,gcfl,fedpub,fedaux; ablation fedaux,fedaux_hard,fedavg_mask)")
	seeds := fs.Int("seeds", 3, "runs per cell, seeds seed..seed+N-1 (the paper reports 3)")
	seed := fs.Uint64("seed", 42, "first seed")
	rounds := fs.Int("rounds", 0, "override the presets' rounds (smoke runs; the table says so)")
	hidden := fs.Int("hidden", 0, "override the hidden width (smoke runs; the table says so)")
	workers := fs.Int("workers", 0, "clients trained at once (default: number of CPUs)")
	out := fs.String("out", "", "output `dir`: results.jsonl and the Markdown table (default ./runs/table-<table>)")
	dataDir := fs.String("data", "", "data `dir` (default $FEDAUX_DATA, else ../shared/data, else ~/.local/share/fedaux)")
	partition := fs.String("partition", "", "ref (the reference METIS partitions, default when present) or multilevel")
	shard := fs.String("shard", "", "run one share of the runs: `I/N` (the runs whose index is I mod N) or auto (from a Slurm job array or a Kubernetes Indexed Job); each shard writes its own results file, and the table is rendered from all of them")
	shardCount := fs.Int("shard-count", 0, "with -shard auto on Kubernetes: the number of shards (default $"+study.EnvShardCount+")")
	d := sim.DefaultConfig()
	mu := fs.Float64("mu", d.Mu, "fedprox's proximal coefficient")
	tau := fs.Float64("tau", d.Tau, "fedpub's server temperature")
	eps1 := fs.Float64("eps1", d.GCFLEps1, "gcfl: split when the mean update norm is below eps1 ...")
	eps2 := fs.Float64("eps2", d.GCFLEps2, "gcfl: ... and the largest update norm above eps2")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("table: unexpected argument %q", fs.Arg(0))
	}
	dds, dks, das, err := table.Defaults(*kind)
	if err != nil {
		return fmt.Errorf("-table: %q, want %s or %s", *kind, table.Main, table.Ablation)
	}
	sh, err := study.ParseShard(*shard, *shardCount, os.Getenv)
	if err != nil {
		return shardError(err)
	}
	opts := table.Options{
		Kind: *kind, Datasets: dds, Clients: dks, Algos: das,
		Seeds: *seeds, Seed: *seed, Rounds: *rounds, Hidden: *hidden, Workers: *workers,
		Env:      presets.Env{DataDir: presets.DataDir(*dataDir), Partition: *partition},
		Out:      *out,
		Shard:    sh,
		Recorder: study.Progress(stderr, "table: "),
	}
	if *datasets != "" {
		opts.Datasets = splitList(*datasets)
	}
	if *clients != "" {
		if opts.Clients, err = parseInts(*clients); err != nil {
			return fmt.Errorf("-clients: %w", err)
		}
	}
	if *algos != "" {
		if opts.Algos, err = parseAlgos(*algos); err != nil {
			return err
		}
	}
	switch {
	case *rounds < 0:
		return fmt.Errorf("-rounds: %d, want >= 0", *rounds)
	case *hidden < 0:
		return fmt.Errorf("-hidden: %d, want >= 0", *hidden)
	case *workers < 0:
		return fmt.Errorf("-workers: %d, want >= 0", *workers)
	}
	// The algorithms' own settings apply only when given, as in 'fedaux run'.
	opts.Tune = func(c *sim.Config) {
		fs.Visit(func(fl *flag.Flag) {
			switch fl.Name {
			case "mu":
				c.Mu = *mu
			case "tau":
				c.Tau = *tau
			case "eps1":
				c.GCFLEps1 = *eps1
			case "eps2":
				c.GCFLEps2 = *eps2
			}
		})
	}
	checked := d
	opts.Tune(&checked)
	if err := checked.Validate(); err != nil {
		return flagError(err)
	}
	if opts.Out == "" {
		opts.Out = filepath.Join("runs", "table-"+*kind)
	}
	it := study.CatchInterrupts(stderr)
	defer it.Release()
	opts.Interrupts = it
	st, err := table.Run(it.Context(), opts)
	md := filepath.Join(opts.Out, table.MarkdownFile(*kind))
	if interrupted(err, stderr, "table", md) {
		return nil
	}
	if err != nil {
		return flagError(err)
	}
	fmt.Fprintf(stdout, "%s: %d runs%s (%d reused, %d run now), results in %s\n", md, st.Mine, shardNote(sh), st.Reused, st.Ran, opts.Out)
	return nil
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
	return out, nil
}
