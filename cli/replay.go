package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/tui"
)

// replayFlags are the flags a replay takes beside -replay; every other
// setting comes from the log.
var replayFlags = []string{"replay", "replay-run", "workers", "log", "data", "json"}

// replayCmd is `fedaux run -replay LOG [-replay-run N]`: it runs again,
// headless, the run of a run log (the last one, or the N-th), applying
// its knob changes before the rounds they were made for, and checks that
// every round's metrics equal the round line's, bit for bit.
func replayCmd(f *runFlags, path string, which int, stdout, stderr io.Writer) error {
	var other []string
	f.fs.Visit(func(fl *flag.Flag) {
		if !slices.Contains(replayFlags, fl.Name) {
			other = append(other, "-"+fl.Name)
		}
	})
	if len(other) > 0 {
		return fmt.Errorf("-replay: a replay takes its settings from the log; leave out %s (allowed: -workers, -log, -data, -json)", strings.Join(other, ", "))
	}
	runs, torn, err := sim.ReadRunLog(path)
	if err != nil {
		return fmt.Errorf("-replay: %w", err)
	}
	if torn > 0 {
		fmt.Fprintf(stderr, "%s:%d: the last line is cut short (its process stopped while writing it); left out\n", path, torn)
	}
	if which == 0 {
		which = len(runs)
	}
	if which < 1 || which > len(runs) {
		return fmt.Errorf("-replay-run: %d, want 1..%d (the runs in %s)", which, len(runs), path)
	}
	r := runs[which-1]
	if len(r.Reports) == 0 {
		return fmt.Errorf("-replay: run %d of %s (line %d) has no round to replay", which, path, r.Line)
	}
	p, cfg, err := replayConfig(r, path)
	if err != nil {
		return fmt.Errorf("-replay: %w", err)
	}
	cfg.Workers = f.workers
	var log *sim.RunLog
	if f.logPath != "" {
		if log, err = sim.OpenRunLog(f.logPath); err != nil {
			return err
		}
		defer log.Close()
	}
	// The engine without the log first: its run line, written below,
	// must hold the client dropout, which is set after New.
	e, sc, err := presets.NewEngine(p, f.env(), cfg, nil)
	if err != nil {
		return fmt.Errorf("-replay: %w", err)
	}
	if got, want := len(e.Data().Clients), r.Header.Clients; got != want {
		return fmt.Errorf("-replay: %s:%d: the run line says %d clients, but its scenario makes %d", path, r.Line, want, got)
	}
	if v := r.Header.Version; v != presets.Version {
		fmt.Fprintf(stderr, "logged by fedaux %s, replayed by %s\n", v, presets.Version)
	}
	if d := r.Header.ClientDropout; d > 0 {
		if err := e.SetFaults(sim.Faults{Dropout: d}); err != nil {
			return fmt.Errorf("-replay: %w", err)
		}
	}
	if log != nil {
		h := presets.Header(p, sc, e, time.Now())
		b, err := json.Marshal(h)
		if err != nil {
			return err
		}
		if err := log.Write(h); err != nil {
			return err
		}
		e.SetLog(log)
		e.SetMeta(sim.Meta{Header: b})
	}
	fmt.Fprintf(stderr, "replaying run %d of %d in %s: %s %s, seed %d, %d rounds, %d knob changes%s\n",
		which, len(runs), path, p.Name, cfg.Algo, cfg.Seed, len(r.Reports), len(r.Controls), switchNote(r.Switches))
	next := 0
	apply := func(round int) error {
		for ; next < len(r.Controls) && r.Controls[next].Round <= round; next++ {
			c := r.Controls[next]
			if err := e.SetKnob(c.Name, c.To); err != nil {
				return fmt.Errorf("-replay: %s: the change of %s before round %d: %w", path, c.Name, c.Round, err)
			}
		}
		return nil
	}
	ctx := context.Background()
	sw := 0
	for i, want := range r.Reports {
		for ; sw < len(r.Switches) && r.Switches[sw].Round <= want.Round; sw++ {
			if e, err = switchAlgorithm(e, r.Switches[sw], fmt.Sprintf("%s:%d", path, r.SwitchLines[sw]), log); err != nil {
				return err
			}
		}
		if err := apply(want.Round); err != nil {
			return err
		}
		rep, err := e.Step(ctx)
		if err != nil {
			return fmt.Errorf("-replay: round %d: %w", want.Round, err)
		}
		if d := roundDiff(rep, want); d != "" {
			return fmt.Errorf("-replay: round %d differs from %s:%d: %s", want.Round, path, r.RoundLines[i], d)
		}
		fmt.Fprintf(stderr, "round %d: mean val %.2f, mean test %.2f, as logged\n", rep.Round, rep.MeanVal, rep.MeanTest)
	}
	if err := apply(len(r.Reports) + 1); err != nil {
		return err
	}
	if next < len(r.Controls) {
		c := r.Controls[next]
		return fmt.Errorf("-replay: %s: a change of %s for round %d, but the run ends at round %d", path, c.Name, c.Round, len(r.Reports))
	}
	s := e.Summary()
	if log != nil {
		if err := log.Write(struct {
			Type string `json:"type"`
			sim.Summary
		}{"summary", s}); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "seed %d: test at best val %.2f (round %d, val %.2f), final test %.2f\n", cfg.Seed, s.TestAtBestVal, s.BestRound, s.BestVal, s.FinalTest)
	fmt.Fprintf(stdout, "replayed %d rounds and %d knob changes%s of %s: every round's metrics equal the log's, bit for bit\n", len(r.Reports), len(r.Controls), switchNote(r.Switches), path)
	if f.asJSON {
		b, err := json.Marshal(map[string]any{"replay": path, "run": which, "rounds": len(r.Reports), "controls": len(r.Controls),
			"equal": true, "test_at_best_val": s.TestAtBestVal, "best_round": s.BestRound})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
	}
	return nil
}

// replayConfig rebuilds the scenario and the settings of a logged run:
// the preset by name, or the scenario the run line holds; the preset's
// settings, then the run line's fields, then every setting it holds
// (sim.RunHeader.Settings, or tui.SettingsKey in a console log written
// before the run line held them).
func replayConfig(r *sim.LoggedRun, path string) (*presets.Preset, sim.Config, error) {
	h := r.Header
	where := fmt.Sprintf("%s:%d", path, r.Line)
	var p *presets.Preset
	var err error
	if text, ok := h.Extra["scenario"].(string); ok {
		file, _ := h.Extra["scenario_file"].(string)
		p, err = presets.FromSource(h.Preset, file, text)
	} else {
		p, err = presets.Get(h.Preset)
	}
	if err != nil {
		return nil, sim.Config{}, fmt.Errorf("%s: %w", where, err)
	}
	cfg := p.Config()
	set := map[string]string{
		"algo": string(h.Algo), "rounds": fmt.Sprint(h.Rounds), "epochs": fmt.Sprint(h.Epochs), "hidden": fmt.Sprint(h.Hidden),
		"layers": fmt.Sprint(h.Layers), "lr": fmtG(h.LR), "wd": fmtG(h.WD), "dropout": fmtG(h.Dropout),
		"alpha": fmtG(h.Alpha), "sigma": fmtG(h.Sigma), "score": h.Score, "kernel": string(h.Kernel), "sim": string(h.Source),
		"apv_mix": map[bool]string{true: "on", false: "off"}[h.APVMix], "partners": fmtG(h.Partners), "seed": fmt.Sprint(h.Seed),
	}
	if s, ok := h.Extra[tui.SettingsKey].(map[string]any); ok { // a console log before h.Settings
		for k, v := range s {
			if str, ok := v.(string); ok {
				set[k] = str
			}
		}
	}
	maps.Copy(set, h.Settings)
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	known := sim.Settings()
	for _, k := range keys {
		if !slices.Contains(known, k) {
			continue // a method this build does not have, not the run's (else its algo is refused)
		}
		if err := cfg.Set(k, set[k]); err != nil {
			return nil, sim.Config{}, fmt.Errorf("%s: %w", where, err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, sim.Config{}, fmt.Errorf("%s: %w", where, err)
	}
	return p, cfg, nil
}

func fmtG(v float64) string { return fmt.Sprint(v) }

// roundDiff returns the first difference between a replayed round and
// its logged line ("" when they are equal): the knobs, every client's
// metrics, the means, the mixing weights and the per-client alphas.
func roundDiff(rep, want *sim.RoundReport) string {
	ne := func(what string, a, b any) string { return fmt.Sprintf("%s %v here, %v in the log", what, a, b) }
	switch {
	case rep.Alpha != want.Alpha:
		return ne("alpha", rep.Alpha, want.Alpha)
	case rep.Sigma != want.Sigma:
		return ne("sigma", rep.Sigma, want.Sigma)
	case rep.MeanVal != want.MeanVal:
		return ne("mean_val", rep.MeanVal, want.MeanVal)
	case rep.MeanTest != want.MeanTest:
		return ne("mean_test", rep.MeanTest, want.MeanTest)
	case len(rep.Clients) != len(want.Clients):
		return ne("clients", len(rep.Clients), len(want.Clients))
	}
	for i, c := range rep.Clients {
		w := want.Clients[i]
		c.Probe, w.Probe = nil, nil
		c.Alignment, w.Alignment, c.AlignmentInit, w.AlignmentInit = nil, nil, nil, nil
		if c != w {
			return ne(fmt.Sprintf("client %d", c.ID), fmt.Sprintf("%+v", c), fmt.Sprintf("%+v", w))
		}
	}
	if !slices.EqualFunc(rep.Weights, want.Weights, slices.Equal) {
		return "the mixing weights differ"
	}
	if !slices.Equal(rep.Alphas, want.Alphas) {
		return ne("alphas", rep.Alphas, want.Alphas)
	}
	return ""
}

// switchAlgorithm replays an algorithm line: the run goes on under the
// line's algorithm in e's state (sim.Engine.ForkAs), in e's log, where
// the line is written again.
func switchAlgorithm(e *sim.Engine, s sim.AlgorithmChange, where string, log *sim.RunLog) (*sim.Engine, error) {
	if a := e.Config().Algo; a != s.From {
		return nil, fmt.Errorf("-replay: %s: a switch from %s, but the run's algorithm is %s", where, s.From, a)
	}
	f, err := e.ForkAs(nil, s.To)
	if err != nil {
		return nil, fmt.Errorf("-replay: %s: %w", where, err)
	}
	if log != nil {
		if err := log.Write(s.Line()); err != nil {
			return nil, err
		}
		f.SetLog(log)
	}
	return f, nil
}

// switchNote names a run's algorithm changes for the replay's messages.
func switchNote(s []sim.AlgorithmChange) string {
	var out []string
	for _, c := range s {
		out = append(out, fmt.Sprintf("%s from round %d", c.To, c.Round))
	}
	if len(out) == 0 {
		return ""
	}
	return " (algorithm " + strings.Join(out, ", ") + ")"
}
