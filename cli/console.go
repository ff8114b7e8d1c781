package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
	"github.com/fedaux/fedaux/tui"
)

// tuiCmd opens the console: `fedaux tui [-preset NAME] [run flags]`, and
// plain `fedaux` on presets.Default. -export names the directory the
// export prompt proposes, -scenarios the directory of scenario files the
// preset list shows.
func tuiCmd(args []string, stderr io.Writer) (err error) {
	f := newRunFlags("tui", presets.Default, stderr)
	scenarioDir := f.fs.String("scenarios", tui.DefaultScenarioDir, "`dir`ectory whose scenario files (*.toml) the console's preset list (P) shows beside the built-in presets")
	start := f.fs.Int("start", 10, "run the first `n` rounds as the console opens, then pause (0: open paused at round 0)")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("tui: unexpected argument %q", f.fs.Arg(0))
	}
	p, cfg, err := f.config()
	if err != nil {
		return err
	}
	if *start < 0 {
		return fmt.Errorf("tui: -start: %d, want >= 0", *start)
	}
	if f.seeds != 1 {
		return errors.New("tui: -seeds: the console runs one seed at a time (r resets with the next seed)")
	}
	if err := f.setMemLimit(p); err != nil {
		return err
	}
	if !study.IsTerminal(os.Stdout) || !study.IsTerminal(os.Stdin) {
		return errors.New("tui: the console needs a terminal; use 'fedaux run' for a headless run")
	}
	stop, err := f.profiles()
	if err != nil {
		return err
	}
	defer stop(&err)
	// Every session keeps its run log (-log, else runs/<preset>-<time>.jsonl),
	// so that a steered session can be replayed (run -replay).
	logPath := f.logPath
	if logPath == "" {
		logPath = sessionLog(p.Name, time.Now())
		if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
			return fmt.Errorf("tui: the session's run log: %w", err)
		}
	}
	log, err := sim.OpenRunLog(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	dir := f.exportDir
	if dir == "auto" {
		dir = ""
	}
	return tui.Run(tui.Options{
		Preset: p, Config: cfg, Env: f.env(), Log: log, ExportDir: dir, ScenarioDir: *scenarioDir,
		NoColor: os.Getenv("NO_COLOR") != "", Stderr: stderr, StartRounds: *start,
	})
}

// sessionLog is the run log a console session keeps when -log does not
// name one: runs/<preset>-<YYYYMMDD-HHMMSS>.jsonl, beside the exports.
func sessionLog(preset string, t time.Time) string {
	return export.DefaultDir(preset, t) + ".jsonl"
}

// exportRun writes a headless run's export for `fedaux run -export DIR`:
// into DIR (./runs/<preset>-<timestamp> for "auto"), or DIR/seed-<seed>
// when several seeds run.
func exportRun(dir string, several bool, p *presets.Preset, sc *presets.Scenario, e *sim.Engine, stderr io.Writer) error {
	started := time.Now()
	if dir == "auto" {
		dir = export.DefaultDir(p.Name, started)
	}
	if several {
		dir = filepath.Join(dir, fmt.Sprintf("seed-%d", e.Config().Seed))
	}
	files, err := export.Write(dir, &export.Run{
		Header:  presets.Header(p, sc, e, started),
		Reports: e.Reports(),
		Groups:  e.Data().Groups,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported %d files to %s\n", len(files), dir)
	return nil
}
