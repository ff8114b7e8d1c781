package study

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// A Cell is one run of an experiment: a scenario, the settings (the
// algorithm and the seed among them) and the faults injected.
type Cell struct {
	// Scenario is the preset the cell runs on.
	Scenario *presets.Preset
	// Partition is how real-data clients are formed: "ref", "multilevel"
	// or "" (ref when the reference file is present).
	Partition string
	// Config holds every setting; Config.Seed is the cell's seed.
	Config sim.Config
	// Dropout is the probability that a client misses a round (sim.Faults).
	Dropout float64
	// Labels place the cell in its study (dataset, clients, a sweep's
	// values, a variant's name). They are stored with the result and do
	// not enter its key.
	Labels map[string]string
}

// Key identifies the numbers a cell computes: a hash of the scenario (its
// name, and its content unless it is a preset as shipped), the
// partition, every setting its algorithm reads (sim.Config.Fingerprint),
// the fault rate and the numerics version of its precision
// (sim.Numerics). Two cells with one key give the
// same result, so a stored result with the cell's key is the cell's.
func (c *Cell) Key() string {
	name := c.Scenario.Name
	if fp := c.Scenario.Fingerprint(); fp != "" {
		name += "@" + fp
	}
	s := fmt.Sprintf("numerics=%d;scenario=%s;partition=%s;dropout=%g;%s",
		sim.Numerics(c.Config.Precision), name, c.Partition, c.Dropout, c.Config.Fingerprint())
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// String names the cell for progress lines: scenario, algorithm, labels
// that are not already said, seed.
func (c *Cell) String() string {
	s := c.Scenario.Name + " " + string(c.Config.Algo)
	if v := c.Labels[LabelVariant]; v != "" {
		s += " [" + v + "]"
	}
	return fmt.Sprintf("%s seed %d", s, c.Config.Seed)
}

// Labels of a study's cells.
const (
	// LabelPreset names a cell's preset (a Grid's, a sweep's).
	LabelPreset = "preset"
	// LabelVariant names a cell's variant of the base settings (a sweep's
	// combination, a similarity variant).
	LabelVariant = "variant"
)

// A Grid is every algorithm on every preset with every seed: the runs of
// a study whose rows are presets (convergence, privacy). Each cell is
// labelled with its preset (LabelPreset).
type Grid struct {
	Presets []*presets.Preset
	Env     presets.Env
	// Base adjusts each preset's settings (the run flags the user set)
	// before the algorithm and the seed are set; nil keeps the preset's.
	Base    func(*sim.Config) error
	Algos   []sim.Algorithm
	Seeds   int
	Seed    uint64 // the first seed: seeds Seed..Seed+Seeds-1
	Workers int    // when positive, every run's workers
	// SkipMissing skips the runs whose data files are absent instead of
	// failing before any runs (see MissingDataError).
	SkipMissing bool
}

// Cells returns the grid's cells, seed-major, then preset, then
// algorithm, each run's settings validated. A grid without a preset, an
// algorithm or a seed is an error.
func (g *Grid) Cells() ([]*Cell, error) {
	switch {
	case len(g.Presets) == 0:
		return nil, fmt.Errorf("no preset")
	case len(g.Algos) == 0:
		return nil, fmt.Errorf("no algorithm")
	}
	if err := CheckSeeds(g.Seed, g.Seeds); err != nil {
		return nil, err
	}
	var out []*Cell
	for s := 0; s < g.Seeds; s++ {
		for _, p := range g.Presets {
			for _, a := range g.Algos {
				c := p.Config()
				if g.Base != nil {
					if err := g.Base(&c); err != nil {
						return nil, err
					}
				}
				c.Algo, c.Seed = a, g.Seed+uint64(s)
				if g.Workers > 0 {
					c.Workers = g.Workers
				}
				if err := c.Validate(); err != nil {
					return nil, fmt.Errorf("%s %s: %w", p.Name, a, err)
				}
				out = append(out, &Cell{Scenario: p, Partition: p.ResolvePartition(g.Env), Config: c,
					Labels: map[string]string{LabelPreset: p.Name}})
			}
		}
	}
	return out, nil
}
