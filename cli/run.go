package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/fedaux/fedaux/internal/dirs"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

func runCmd(args []string, stdout, stderr io.Writer) (err error) {
	f := newRunFlags("run", "", stderr)
	replay := f.fs.String("replay", "", "run again, headless, the run of a run `log` (a console session's, under runs/), knob change for knob change, and check that every round equals the log's, bit for bit")
	replayRun := f.fs.Int("replay-run", 0, "with -replay: the `n`-th run of the log (a session that restarted has several; default the last)")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("run: unexpected argument %q", f.fs.Arg(0))
	}
	if *replay != "" {
		return replayCmd(f, *replay, *replayRun, stdout, stderr)
	}
	if *replayRun != 0 {
		return errors.New("-replay-run: needs -replay LOG")
	}
	sr, env, err := f.seedRun() // a new run, or one resumed from -resume
	if err != nil {
		return err
	}
	if f.exportDir != "auto" {
		if err := writableDir(f.exportDir); err != nil {
			return fmt.Errorf("-export: %w", err)
		}
	}
	f.fs.Visit(func(fl *flag.Flag) { // a setting given that the run does not read
		if slices.Contains(sim.Settings(), fl.Name) && !sim.ReadBy(fl.Name, sr.Cell.Config.Algo) {
			fmt.Fprintf(stderr, "fedaux: %s does not read -%s; it has no effect on this run\n", sr.Cell.Config.Algo, fl.Name)
		}
	})
	p, cfg := sr.Cell.Scenario, sr.Cell.Config
	if err := f.setMemLimit(p); err != nil {
		return err
	}
	stop, err := f.profiles()
	if err != nil {
		return err
	}
	defer stop(&err)
	var log *sim.RunLog
	if sr.LogPath != "" {
		if log, err = sim.OpenRunLog(sr.LogPath); err != nil {
			return err
		}
		defer log.Close()
	}
	it := study.CatchInterrupts(stderr) // the first interrupt stops at the next round boundary
	defer it.Release()
	r := &study.Runner{Env: env, Recorder: study.Progress(stderr, ""), Interrupts: it, Log: log,
		Observe: func(c *study.Cell, e *sim.Engine, _ *sim.RoundReport) error {
			wants := runWants(e, c.Config.Rounds, f.exportDir != "" || f.matrix)
			if f.alignment {
				wants = append(wants, sim.WantAlignment)
			}
			e.Want(wants...)
			return nil
		},
		Finish: func(c *study.Cell, e *sim.Engine, sc *presets.Scenario, rec *study.Record) error {
			s := rec.Summary()
			metric := ""
			if rec.Metric != sim.Accuracy {
				metric = " (" + rec.Metric.Label() + ")"
			}
			fmt.Fprintf(stdout, "seed %d: test at best val %.2f%s (round %d, val %.2f), final test %.2f, %.1f s\n",
				c.Config.Seed, s.TestAtBestVal, metric, s.BestRound, s.BestVal, s.FinalTest, rec.Seconds)
			if g := study.LastRoundGroups(e); g != nil {
				if err := study.SetExtra(rec, g); err != nil {
					return err
				}
				printGroups(stdout, e.Round(), g)
				if f.matrix {
					last := e.Reports()[e.Round()-1]
					printMatrix(stdout, "APV similarity", last.Similarity)
					printMatrix(stdout, "mixing weights", last.Weights)
					printMatrix(stdout, "ground-truth similarity", last.GroundTruth)
				}
			}
			if f.exportDir != "" {
				return exportRun(f.exportDir, sr.Seeds > 1, p, sc, e, stderr)
			}
			return nil
		}}
	recs, err := sr.Run(it.Context(), r)
	if err != nil {
		return &exitError{err: runError(err, sr), code: exitCode(err, it)}
	}
	out := sr.Summarize(recs)
	metric := ""
	if out.Metric != sim.Accuracy {
		metric = " " + out.Metric.Label()
	}
	fmt.Fprintf(stdout, "%s %s: %.2f ± %.2f%s over %d seed(s)\n", p.Name, cfg.Algo, out.Mean, out.Std, metric, sr.Seeds)
	if f.asJSON {
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// runWants returns the optional matrices (see sim.Engine.Want) that a
// headless run reads in its next round. With all (-export, -matrix),
// the export's log writes every round's ground truth and its heat maps
// show every matrix of the last round; the group scores of a scenario
// with groups read the last round's matrices: every one with all, else
// every one but FED-PUB's functional view (costly; only -export and
// -matrix show it). A run log asks for what it writes by itself.
func runWants(e *sim.Engine, rounds int, all bool) []string {
	last := e.Round()+1 == rounds
	switch {
	case last && all:
		return []string{sim.WantAll}
	case last && e.Data().Groups != nil:
		var out []string
		for _, name := range e.Offered() {
			if name != string(sim.SourceFunctional) {
				out = append(out, name)
			}
		}
		return out
	case all:
		return []string{sim.MatrixGroundTruth}
	}
	return nil
}

// exitCode is the exit status of a run that ended with err: the
// interrupt's (it.ExitCode) when an interrupt stopped it, else 1.
func exitCode(err error, it *study.Interrupts) int {
	var ie *study.InterruptedError
	var ae *study.AbortedError
	if errors.As(err, &ie) || errors.As(err, &ae) {
		return it.ExitCode()
	}
	return 1
}

// runError says how to go on after an interrupted or aborted run.
func runError(err error, sr *study.SeedRun) error {
	var ie *study.InterruptedError
	var ae *study.AbortedError
	switch {
	case errors.As(err, &ie) && ie.SaveErr != nil:
		return fmt.Errorf("interrupted after round %d of %d (seed %d), but its checkpoint could not be saved: %w", ie.Round, ie.Cell.Config.Rounds, ie.Cell.Config.Seed, ie.SaveErr)
	case errors.As(err, &ie):
		return fmt.Errorf("interrupted after round %d of %d (seed %d); checkpoint saved to %s\nresume with: fedaux run -resume %s",
			ie.Round, ie.Cell.Config.Rounds, ie.Cell.Config.Seed, ie.Checkpoint, ie.Checkpoint)
	case errors.As(err, &ae):
		hint := "no checkpoint was saved"
		if ae.Checkpoint != "" {
			hint = fmt.Sprintf("resume from round %d with: fedaux run -resume %s", ae.Saved, ae.Checkpoint)
		}
		return fmt.Errorf("aborted during round %d by a second interrupt; the log holds the rounds before; %s", ae.Round, hint)
	}
	return flagError(err)
}

// setMemLimit sets the Go soft memory limit: -memlimit, else $GOMEMLIMIT,
// else the preset's.
func (f *runFlags) setMemLimit(p *presets.Preset) error {
	switch {
	case f.memLimit != "":
		n, err := presets.ParseBytes(f.memLimit)
		if err != nil {
			return fmt.Errorf("-memlimit: %w", err)
		}
		debug.SetMemoryLimit(n)
	case os.Getenv("GOMEMLIMIT") == "" && p.MemLimit > 0:
		debug.SetMemoryLimit(p.MemLimit)
	}
	return nil
}

// seedRun validates the flags of `fedaux run` and returns what to run: a
// new run, or the one checkpointed in -resume.
func (f *runFlags) seedRun() (*study.SeedRun, presets.Env, error) {
	env := f.env()
	if abs, err := filepath.Abs(env.DataDir); err == nil {
		env.DataDir = abs
	}
	if f.ckEvery < 0 {
		return nil, env, fmt.Errorf("-checkpoint-every: %d, want >= 0", f.ckEvery)
	}
	if !(f.clientDropout >= 0 && f.clientDropout < 1) {
		return nil, env, fmt.Errorf("-dropout: %v, want a client dropout probability 0 <= p < 1", f.clientDropout)
	}
	if f.resume != "" {
		return f.resumed(env)
	}
	if f.ckEvery > 0 && f.checkpoint == "" {
		return nil, env, errors.New("-checkpoint-every: needs -checkpoint FILE")
	}
	if f.checkpoint != "" {
		if err := dirs.Check(filepath.Dir(f.checkpoint)); err != nil {
			return nil, env, fmt.Errorf("-checkpoint: %w", err)
		}
		if err := sim.CheckCheckpointPath(f.checkpoint); err != nil {
			return nil, env, fmt.Errorf("-checkpoint: %w", err)
		}
	}
	p, cfg, err := f.config()
	if err != nil {
		return nil, env, err
	}
	if err := p.CheckEnv(env); err != nil {
		return nil, env, err
	}
	ck := f.checkpoint
	switch {
	case ck != "":
	case f.logPath != "":
		ck = f.logPath + ".ckpt" // used at an interrupt only
	default:
		ck = "fedaux-" + p.Name + ".ckpt"
	}
	return &study.SeedRun{
		Cell:  study.Cell{Scenario: p, Partition: p.ResolvePartition(env), Config: cfg, Dropout: f.clientDropout},
		Seeds: f.seeds, Checkpoint: ck, Asked: f.checkpoint != "", Every: f.ckEvery, LogPath: f.logPath,
	}, env, nil
}

// resumed loads the run checkpointed in -resume. Flags that set what is
// computed must agree with the checkpoint; -workers, -log, -data,
// -checkpoint, -checkpoint-every and the output flags may change.
func (f *runFlags) resumed(env presets.Env) (*study.SeedRun, presets.Env, error) {
	sr, ckEnv, err := study.ResumeSeedRun(f.resume, nil)
	if err != nil {
		return nil, env, fmt.Errorf("-resume: %w", err)
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	mismatch := func(what string, ckv, flagv any) error {
		return fmt.Errorf("-resume: %s was run with %s %v, not %v; a resumed run keeps its settings (leave the flag out)", f.resume, what, ckv, flagv)
	}
	switch {
	case set["preset"] && f.preset != sr.Cell.Scenario.Name:
		return nil, env, mismatch("-preset", sr.Cell.Scenario.Name, f.preset)
	case set["scenario"] || set["set"]:
		return nil, env, fmt.Errorf("-resume: %s holds its scenario; leave -scenario and -set out", f.resume)
	case set["seeds"] && f.seeds != sr.Seeds:
		return nil, env, mismatch("-seeds", sr.Seeds, f.seeds)
	case set["dropout"] && f.clientDropout != sr.Cell.Dropout:
		return nil, env, mismatch("-dropout", sr.Cell.Dropout, f.clientDropout)
	case set["partition"] && f.partition != sr.Cell.Partition:
		return nil, env, mismatch("-partition", sr.Cell.Partition, f.partition)
	}
	base := sr.Cell.Config
	want, err := f.apply(base)
	if err != nil {
		return nil, env, err
	}
	if d := sim.DiffConfig(base, want); d != nil {
		for i, s := range d {
			d[i] = "-" + flagName(s)
		}
		return nil, env, fmt.Errorf("-resume: %s was run with other settings (%s); a resumed run keeps its settings (leave the flags out)", f.resume, strings.Join(d, "; "))
	}
	sr.Cell.Config.Workers = want.Workers
	if !set["data"] {
		env.DataDir = ckEnv.DataDir
	}
	if set["log"] {
		sr.LogPath = f.logPath
	}
	if f.checkpoint != "" {
		sr.Checkpoint, sr.Asked = f.checkpoint, true
	}
	if set["checkpoint-every"] {
		sr.Every = f.ckEvery
	}
	return sr, env, nil
}

// printGroups prints each matrix's scores against the true groups; a
// score over no pair of clients (within, when every group has one client;
// across, with one group), and the clustering's ARI then, is n/a.
func printGroups(w io.Writer, round int, rs []study.GroupScore) {
	na := func(ok bool, format string, v float64) string {
		if !ok {
			return "n/a"
		}
		return fmt.Sprintf(format, v)
	}
	for _, r := range rs {
		within, across := r.WithinPairs > 0, r.AcrossPairs > 0
		fmt.Fprintf(w, "  round %d %-12s within-group %s  across %s  diff %s  off-diagonal range [%.6f, %.6f]  clustering ARI %s\n",
			round, r.Source, na(within, "%.6f", r.Within), na(across, "%.6f", r.Across), na(within && across, "%.3g", r.Within-r.Across),
			r.Min, r.Max, na(within && across, "%.3f", r.ARI))
	}
}

func printMatrix(w io.Writer, name string, s [][]float64) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "  %s:\n", name)
	for _, row := range s {
		fmt.Fprint(w, "   ")
		for _, v := range row {
			fmt.Fprintf(w, " %.6f", v)
		}
		fmt.Fprintln(w)
	}
}

func presetsCmd(w io.Writer) error {
	line := func(p *presets.Preset) {
		needs := "no data"
		if p.Needs != "" {
			needs = "needs " + p.Needs
		}
		fmt.Fprintf(w, "%-14s %s [%s]\n", p.Name, p.Description, needs)
	}
	for _, p := range presets.All() {
		line(p)
	}
	ps, errs := presets.LoadDir("scenarios")
	if len(ps)+len(errs) > 0 {
		fmt.Fprintln(w, "\nscenario files in scenarios/ (run with -scenario scenarios/NAME.toml):")
	}
	for _, p := range ps {
		line(p)
	}
	for _, err := range errs {
		fmt.Fprintf(w, "%-14s %v\n", "(unreadable)", err)
	}
	fmt.Fprintln(w, "\nmethods (-algo NAME):")
	for _, m := range sim.Methods() {
		fmt.Fprintf(w, "%-14s %s\n", m.Name, m.Describe)
	}
	return nil
}

// writableDir makes dir (when it is not "") and checks that a file can be
// written in it, so that an output directory that cannot take the output
// is an error before a run, not after it.
func writableDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".fedaux-write-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
