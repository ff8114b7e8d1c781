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
// the fault rate and sim.NumericsVersion. Two cells with one key give the
// same result, so a stored result with the cell's key is the cell's.
func (c *Cell) Key() string {
	name := c.Scenario.Name
	if fp := c.Scenario.Fingerprint(); fp != "" {
		name += "@" + fp
	}
	s := fmt.Sprintf("numerics=%d;scenario=%s;partition=%s;dropout=%g;%s",
		sim.NumericsVersion, name, c.Partition, c.Dropout, c.Config.Fingerprint())
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

// LabelVariant is the label naming a cell's variant of the base settings
// (a sweep's combination, a similarity variant).
const LabelVariant = "variant"
