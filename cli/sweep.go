package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
	"github.com/fedaux/fedaux/sweep"
)

// knobsFlag is -grid, repeatable.
type knobsFlag []sweep.Knob

func (k *knobsFlag) String() string { return "" }
func (k *knobsFlag) Set(s string) error {
	kn, err := sweep.ParseKnob(s)
	if err != nil {
		return err
	}
	*k = append(*k, kn)
	return nil
}

// sweepCmd runs a parameter sweep: `fedaux sweep -preset P -grid
// 'alpha=0.1,1,10' [-grid ...] -algos fedaux,fedavg_mask -seeds 3 -out DIR`.
func sweepCmd(args []string, stdout, stderr io.Writer) error {
	f := newRunFlags("sweep", "", stderr)
	var knobs knobsFlag
	f.fs.Var(&knobs, "grid", "a swept setting and its values, `key=v1,v2,...` (repeat for a grid of several); keys: "+strings.Join(sweep.Keys(), ", "))
	algos := f.fs.String("algos", "", "comma-separated algorithms (default: -algo's)")
	out := f.fs.String("out", "", "output `dir`: results files, sweep.md and figures (default ./runs/sweep-<preset>)")
	shard := f.fs.String("shard", "", "run one share of the runs: `I/N` or auto (Slurm job array, Kubernetes Indexed Job)")
	shardCount := f.fs.Int("shard-count", 0, "with -shard auto on Kubernetes: the number of shards (default $"+study.EnvShardCount+")")
	render := f.fs.Bool("render", false, "only write sweep.md and the figures from the results in -out")
	reshard := f.fs.Bool("reshard", false, "re-plan -out for this -shard (or for a whole run without -shard) when its shards.json fixes others; only when none of its shards is running")
	skipMissing := f.fs.Bool("skip-missing", false, "run the runs whose data files are present and skip the others, instead of failing before any runs")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("sweep: unexpected argument %q", f.fs.Arg(0))
	}
	switch {
	case f.preset == "" && f.scenario == "":
		return fmt.Errorf("sweep: -preset or -scenario is required (one or several, comma-separated; see 'fedaux presets')")
	case len(knobs) == 0:
		return fmt.Errorf("sweep: -grid is required (for example -grid 'alpha=0.1,1,10')")
	}
	ps, err := f.scenarios()
	if err != nil {
		return err
	}
	base, err := f.apply(sim.DefaultConfig())
	if err != nil {
		return err
	}
	as := []sim.Algorithm{base.Algo}
	if *algos != "" {
		if as, err = parseAlgos(*algos); err != nil {
			return err
		}
	}
	sh, err := parseShard(*shard, *shardCount)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = defaultOut("sweep", ps)
	}
	opts := sweep.Options{
		Presets: ps, Env: f.env(), Knobs: knobs, Algos: as, Seeds: f.seeds, Seed: base.Seed, Workers: f.workers,
		Dropout: f.clientDropout, Out: dir, Shard: sh, Reshard: *reshard, SkipMissing: *skipMissing, Recorder: study.Progress(stderr, "sweep: "),
		Base: func(c *sim.Config) error {
			algo := c.Algo
			err := f.base(c)
			c.Algo = algo // -algos decides
			return err
		},
	}
	md := filepath.Join(dir, sweep.MarkdownFile)
	if *render {
		if err := renderDir(dir); err != nil {
			return err
		}
		res, err := sweep.Load(opts)
		if err != nil {
			return gridError(err, knobs)
		}
		if err := renderable(res, stderr, "sweep: ", dir, md); err != nil {
			return err
		}
		return gridError(res.WriteFiles(), knobs)
	}
	it := study.CatchInterrupts(stderr)
	defer it.Release()
	opts.Interrupts = it
	st, err := sweep.Run(it.Context(), opts)
	if ierr := interrupted(err, it, stderr, "sweep", md); ierr != nil {
		return ierr
	}
	if err != nil {
		return gridError(studyError(err), knobs)
	}
	fmt.Fprintf(stdout, "%s: %d runs%s (%d reused, %d run now%s), results in %s\n", md, st.Mine, shardNote(st.Shard), st.Reused, st.Ran, skippedNote(st.Stats), dir)
	return nil
}

// gridError names -grid for a swept setting out of range, and the flag
// for any other.
func gridError(err error, knobs []sweep.Knob) error {
	var se *sim.SettingError
	if errors.As(err, &se) && slices.ContainsFunc(knobs, func(k sweep.Knob) bool { return k.Key == se.Key }) {
		return fmt.Errorf("-grid %s: %s, want %s", se.Key, se.Value, se.Want)
	}
	return flagError(err)
}
