package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/fedaux/fedaux/convergence"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// convergenceCmd runs the convergence study: `fedaux convergence -preset
// cora-10,cora-20 -algos fedaux,fedavg [-seeds 3] [-out DIR] [-reuse DIR,...]`.
func convergenceCmd(args []string, stdout, stderr io.Writer) error {
	f := newRunFlags("convergence", "", stderr)
	algos := f.fs.String("algos", "fedaux,fedavg", "comma-separated algorithms")
	out := f.fs.String("out", "", "output `dir`: results, convergence.md and a figure per preset (default ./runs/convergence-<presets>)")
	reuse := f.fs.String("reuse", "", "comma-separated `dirs` of other studies (table, sweep) whose results of the same runs are copied instead of run again")
	within := f.fs.Float64("within", 0.5, "converged round: the first within this many `points` of the mean curve's maximum")
	render := f.fs.Bool("render", false, "only write convergence.md and the figures from the results in -out")
	skipMissing := f.fs.Bool("skip-missing", false, "run the runs whose data files are present and skip the others, instead of failing before any runs")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("convergence: unexpected argument %q", f.fs.Arg(0))
	}
	if f.preset == "" && f.scenario == "" {
		return fmt.Errorf("convergence: -preset is required (one or several, comma-separated; see 'fedaux presets')")
	}
	if !(*within > 0 && *within <= 100) {
		return fmt.Errorf("-within: %g, want points in (0, 100]", *within)
	}
	ps, err := f.scenarios()
	if err != nil {
		return err
	}
	base, err := f.apply(sim.DefaultConfig())
	if err != nil {
		return err
	}
	as, err := parseAlgos(*algos)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = defaultOut("convergence", ps)
	}
	opts := convergence.Options{
		Grid: f.grid(ps, as, base.Seed, *skipMissing),
		Out:  dir, Reuse: splitList(*reuse), Within: *within, Recorder: study.Progress(stderr, "convergence: "),
	}
	md := filepath.Join(dir, convergence.MarkdownFile)
	if *render {
		if err := renderDir(dir); err != nil {
			return err
		}
		res, err := convergence.Load(opts)
		if err != nil {
			return flagError(err)
		}
		if err := renderable(res, stderr, "convergence: ", dir, md); err != nil {
			return err
		}
		if err := res.WriteFiles(); err != nil {
			return flagError(err)
		}
		fmt.Fprintln(stdout, md)
		return nil
	}
	it := study.CatchInterrupts(stderr)
	defer it.Release()
	opts.Interrupts = it
	st, err := convergence.Run(it.Context(), opts)
	if ierr := interrupted(err, it, stderr, "convergence", md); ierr != nil {
		return ierr
	}
	if err != nil {
		return flagError(studyError(err))
	}
	fmt.Fprintf(stdout, "%s: %d runs (%d reused, %d run now%s), results in %s\n", md, st.Mine, st.Reused, st.Ran, skippedNote(st.Stats), dir)
	return nil
}
