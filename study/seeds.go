package study

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// A SeedRun runs one scenario and settings for seeds Seed, Seed+1, ...,
// Seed+Seeds-1 (fedaux run), checkpointed to one file: every Every
// rounds when Every > 0, and at an interrupt. A resumed SeedRun
// (ResumeSeedRun) carries on with the seed in flight and the seeds after
// it, and knows the records of the seeds finished before.
type SeedRun struct {
	// Cell is the first seed's cell.
	Cell  Cell
	Seeds int
	// Checkpoint is the checkpoint file.
	Checkpoint string
	// Asked says that the caller asked for checkpoints in Checkpoint
	// (fedaux run -checkpoint), not only at an interrupt: a run whose
	// state cannot be saved is then refused before its first round, as
	// it is with Every.
	Asked bool
	Every int
	// LogPath is the run log's path, kept in checkpoints so that a
	// resumed run appends to it ("" for none).
	LogPath string

	done       []*Record // finished seeds, from the checkpoint resumed
	resumed    string    // the checkpoint resumed ("" for a new run)
	resumedKey string    // the key of the cell it holds
}

// seedRunState is a SeedRun's progress, kept in every checkpoint.
type seedRunState struct {
	Seeds    int       `json:"seeds"`
	BaseSeed uint64    `json:"base_seed"`
	Every    int       `json:"checkpoint_every"`
	Log      string    `json:"log,omitempty"` // absolute
	Dropout  float64   `json:"dropout"`
	Done     []*Record `json:"done"`
}

// Cells returns the run's cells, one per seed.
func (s *SeedRun) Cells() []*Cell {
	cells := make([]*Cell, s.Seeds)
	for i := range cells {
		c := s.Cell
		c.Config.Seed = s.Cell.Config.Seed + uint64(i)
		cells[i] = &c
	}
	return cells
}

// Done returns the records of the seeds finished before the run was resumed.
func (s *SeedRun) Done() []*Record { return s.done }

// Run runs the seeds not finished yet on r (its Store, Checkpoint, Every
// and State are set here) and returns the records of every seed, in seed
// order.
func (s *SeedRun) Run(ctx context.Context, r *Runner) ([]*Record, error) {
	store := MemoryStore(s.done...)
	r.Store = store
	r.Checkpoint = func(*Cell) string { return s.Checkpoint }
	// Only a run resumed with ResumeSeedRun picks up a checkpoint: a new
	// run starts afresh even where an older one left its checkpoint.
	// Only the cell the checkpoint holds reads it: the seeds after it do
	// not load the file again to find it is not theirs.
	r.Resume = func(c *Cell) string {
		if c.Key() != s.resumedKey {
			return ""
		}
		return s.resumed
	}
	r.Every = s.Every
	r.CheckpointsAsked = s.Asked
	r.KeepCheckpoints = true
	logAbs := ""
	if s.LogPath != "" {
		var err error
		if logAbs, err = filepath.Abs(s.LogPath); err != nil {
			return nil, err
		}
	}
	r.State = func() (json.RawMessage, error) {
		return json.Marshal(seedRunState{Seeds: s.Seeds, BaseSeed: s.Cell.Config.Seed, Every: s.Every, Log: logAbs,
			Dropout: s.Cell.Dropout, Done: store.Records()})
	}
	cells := s.Cells()
	if _, err := r.Run(ctx, cells); err != nil {
		return nil, err
	}
	out := make([]*Record, len(cells))
	for i, c := range cells {
		rec, ok := store.Get(c.Key())
		if !ok {
			return nil, fmt.Errorf("study: seed %d has no record", c.Config.Seed)
		}
		out[i] = rec
	}
	return out, nil
}

// ResumeSeedRun reads a checkpoint written by a SeedRun and returns the
// run it continues and the data directory it read. lookup finds the
// scenario by name; nil means presets.Get.
func ResumeSeedRun(path string, lookup func(string) (*presets.Preset, error)) (*SeedRun, presets.Env, error) {
	if lookup == nil {
		lookup = presets.Get
	}
	ck, err := sim.LoadCheckpoint(path)
	if err != nil {
		return nil, presets.Env{}, err
	}
	var st checkpointState
	var prog seedRunState
	if err := json.Unmarshal(ck.Meta.App, &st); err != nil || json.Unmarshal(st.Study, &prog) != nil || prog.Seeds < 1 {
		return nil, presets.Env{}, fmt.Errorf("%s was not written by 'fedaux run'", path)
	}
	var p *presets.Preset
	if st.ScenarioText != "" {
		p, err = presets.FromSource(st.Scenario, st.ScenarioFile, st.ScenarioText)
	} else {
		p, err = lookup(st.Scenario)
	}
	if err != nil {
		return nil, presets.Env{}, fmt.Errorf("%s: %w", path, err)
	}
	cfg := ck.Config
	cfg.Seed = prog.BaseSeed
	s := &SeedRun{
		Cell:  Cell{Scenario: p, Partition: st.Partition, Config: cfg, Dropout: prog.Dropout, Labels: st.Labels},
		Seeds: prog.Seeds, Checkpoint: path, Every: prog.Every, LogPath: prog.Log, done: prog.Done, resumed: path, resumedKey: st.Key,
	}
	return s, presets.Env{DataDir: st.DataDir, Partition: st.Partition}, nil
}

// SeedSummary sums up a SeedRun's records (the -json line of fedaux run).
type SeedSummary struct {
	Preset             string        `json:"preset"`
	Algo               sim.Algorithm `json:"algo"`
	Seeds              []uint64      `json:"seeds"`
	TestAtBestVal      []float64     `json:"test_at_best_val"`
	Mean               float64       `json:"mean"`
	Std                float64       `json:"std"`
	BestRound          []int         `json:"best_round"`
	Seconds            []float64     `json:"seconds"`
	MedianRoundSeconds []float64     `json:"median_round_seconds"`
	// Groups holds, per seed, how well the last round's matrices separate
	// the true client groups (the records' Extra; synthetic presets only).
	Groups [][]GroupScore `json:"groups,omitempty"`
	// Metric is what the scores are (omitted for accuracy).
	Metric sim.Metric `json:"metric,omitempty"`
	// Precision is the arithmetic of the clients' layers (f64 or f32).
	Precision gnn.Precision `json:"precision"`
}

// Summarize sums up the records of the run's seeds.
func (s *SeedRun) Summarize(recs []*Record) SeedSummary {
	out := SeedSummary{Preset: s.Cell.Scenario.Name, Algo: s.Cell.Config.Algo, Precision: s.Cell.Config.Precision}
	for _, rec := range recs {
		out.Seeds = append(out.Seeds, rec.Seed)
		out.TestAtBestVal = append(out.TestAtBestVal, rec.TestAtBestVal)
		out.BestRound = append(out.BestRound, rec.BestRound)
		out.Seconds = append(out.Seconds, rec.Seconds)
		out.MedianRoundSeconds = append(out.MedianRoundSeconds, rec.MedianRoundSeconds)
		out.Metric = rec.Metric
		var g []GroupScore
		if Extra(rec, &g) == nil && g != nil {
			out.Groups = append(out.Groups, g)
		}
	}
	out.Mean, out.Std = MeanStd(out.TestAtBestVal)
	return out
}
