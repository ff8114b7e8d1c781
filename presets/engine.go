package presets

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/fedaux/fedaux/sim"
)

// Version is the program version written into run logs and table
// results: the release, and the commit the binary was built from when the
// build recorded one ("0.1.0+abbd2dc"; "+abbd2dc.dirty" when the working
// tree had uncommitted changes).
var Version = buildVersion("0.1.0")

// buildVersion appends the build's VCS revision, if any, to release.
func buildVersion(release string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return release
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return release
	}
	v := release + "+" + rev[:min(7, len(rev))]
	if dirty {
		v += ".dirty"
	}
	return v
}

// NewEngine builds the preset's scenario for cfg.Seed and an engine on it.
// When log is non-nil the run line (Header: every setting, the data files
// and their checksums, the scenario's facts) is written to it first. The
// engine's Meta holds the run line, Header's with a log and BriefHeader's
// without, so that its checkpoints and forks start their logs with it.
func NewEngine(p *Preset, env Env, cfg sim.Config, log *sim.RunLog) (*sim.Engine, *Scenario, error) {
	sc, err := p.Build(env, cfg.Seed)
	if err != nil {
		return nil, nil, fmt.Errorf("preset %s: %w", p.Name, err)
	}
	e, err := sim.New(cfg, sc.Data, log)
	if err != nil {
		return nil, nil, fmt.Errorf("preset %s: %w", p.Name, err)
	}
	var h sim.RunHeader
	if log == nil {
		h = BriefHeader(p, sc, e, time.Now()) // the facts only for a log
	} else {
		h = Header(p, sc, e, time.Now())
		if err := log.Write(h); err != nil {
			return nil, nil, err
		}
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, nil, err
	}
	e.SetMeta(sim.Meta{Header: b})
	return e, sc, nil
}

// Header returns the run line of an engine on preset p: the engine's
// settings with the version, the preset, and the scenario's partition,
// data files and facts (when sc is not nil; see Scenario.Facts, computed
// on the first call for a scenario), started at t. Facts that cannot be
// computed are named in the line ("noniid_error") rather than stop the
// run. The run line of a scenario that is not a preset as shipped also
// holds the scenario's file text ("scenario") and path ("scenario_file").
func Header(p *Preset, sc *Scenario, e *sim.Engine, t time.Time) sim.RunHeader {
	h := BriefHeader(p, sc, e, t)
	if sc == nil {
		return h
	}
	f, err := sc.Facts()
	if err != nil {
		f = map[string]any{"noniid_error": err.Error()}
	}
	if len(f) == 0 {
		return h
	}
	extra := make(map[string]any, len(h.Extra)+len(f))
	for k, v := range h.Extra {
		extra[k] = v
	}
	for k, v := range f {
		extra[k] = v
	}
	h.Extra = extra
	return h
}

// BriefHeader is Header without the scenario's facts, for a run that
// writes no log: it computes nothing.
func BriefHeader(p *Preset, sc *Scenario, e *sim.Engine, t time.Time) sim.RunHeader {
	h := e.Header()
	h.Version, h.Preset = Version, p.Name
	if sc != nil {
		h.Partition, h.Data = sc.Partition, sc.Files
	}
	if p.Fingerprint() != "" { // not a preset as shipped: log the scenario itself
		extra := map[string]any{"scenario": p.Spec.Render(), "scenario_file": p.File}
		for k, v := range h.Extra {
			extra[k] = v
		}
		h.Extra = extra
	}
	h.Started = t.UTC().Format(time.RFC3339)
	return h
}
