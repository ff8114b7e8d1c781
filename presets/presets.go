package presets

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/sim"
)

// Env is what a preset may read from outside: the data directory and
// how real data is cut into clients.
type Env struct {
	// DataDir is the directory of the data files. The zero Env's is ""
	// and reads none: DataDir("") gives the directory the command uses
	// ($FEDAUX_DATA, else the user's data directory).
	DataDir string
	// Partition chooses how real-data presets form clients: "ref" (the
	// reference METIS file), one of Partitioners ("multilevel", the
	// project's partitioner, "louvain", "label-skew" or
	// "label-skew=BETA", "random"), or "" (ref when the file is present,
	// else multilevel).
	Partition string
}

// An EnvError reports a field of Env that a scenario cannot take: a
// Partition mode it cannot use or that names no partitioner, or a
// DataDir without its graph.
type EnvError struct {
	Field string // "Partition" or "DataDir"
	Value string // the field's value
	Err   error  // what is wrong
}

func (e *EnvError) Error() string {
	return fmt.Sprintf("presets: Env.%s = %q: %v", e.Field, e.Value, e.Err)
}

func (e *EnvError) Unwrap() error { return e.Err }

// partitionError returns an EnvError on env's Partition.
func partitionError(mode, format string, args ...any) error {
	return &EnvError{Field: "Partition", Value: mode, Err: fmt.Errorf(format, args...)}
}

// Scenario is a preset made concrete for one seed.
type Scenario struct {
	Data *sim.Data
	// Files lists the data files read, with checksums, for the run log.
	Files []sim.DataFile
	// Partition says how clients were formed ("ref <file>", "sbm blocks", ...).
	Partition string
	// facts, when not nil, computes the scenario's facts for the run log
	// on first use (see Facts).
	facts *facts
}

// Preset is a named scenario: one of the scenario files embedded in the
// program, a file of the user's (Load), or one built in code.
type Preset struct {
	Name        string
	Description string
	// Needs names the data files the preset reads ("" when none).
	Needs string
	// Config returns the preset's default settings.
	Config func() sim.Config
	// Build makes the scenario for a seed.
	Build func(env Env, seed uint64) (*Scenario, error)
	// MemLimit, when positive, is the Go soft memory limit (bytes) that
	// `fedaux run` sets for the preset unless the user sets -memlimit or
	// GOMEMLIMIT.
	MemLimit int64
	// Spec is the scenario the preset was made from (nil when built in
	// code), and Source its file's text.
	Spec   *Spec
	Source string
	// File is the scenario file's path ("" for a preset).
	File string

	builtin bool // embedded in the program
	changed bool // changed by With
}

// ResolvePartition returns how the preset forms its clients under env:
// "ref" (its partition file) or the partitioner ("multilevel",
// "louvain", "label-skew=0.5", ...) for a scenario on a graph file that
// may form them more than one way, "" for one with a single way (an
// SBM's blocks, a partition file without fallback).
func (p *Preset) ResolvePartition(env Env) string {
	s := p.Spec
	if s == nil || s.IsSBM() || (s.method() == "file" && s.Partition.Fallback == "" && env.Partition == "") {
		return ""
	}
	m, err := s.mode(env)
	if err != nil {
		return env.Partition
	}
	return m
}

// CheckEnv reports an env the preset cannot take: a Partition mode for
// an SBM, whose clients are its blocks (an *EnvError).
func (p *Preset) CheckEnv(env Env) error {
	if p.Spec == nil {
		return nil
	}
	return p.Spec.checkEnv(env)
}

// Available reports whether every data file the preset needs is there.
func (p *Preset) Available(env Env) bool { return len(p.Missing(env)) == 0 }

// Missing returns the data files the preset needs that are not there,
// each as the path it looked for (none for a synthetic scenario).
func (p *Preset) Missing(env Env) []string {
	s := p.Spec
	if s == nil || s.IsSBM() {
		return nil
	}
	var out []string
	if g := s.resolve(s.Graph, env); !exists(g) {
		if q := alternate(s.Graph, env); q == "" || !exists(q) {
			out = append(out, g)
		}
	}
	if s.method() == "file" && s.Partition.Fallback == "" {
		if f := s.resolve(s.Partition.File, env); !exists(f) {
			out = append(out, f)
		}
	}
	return out
}

// Default is the preset the console opens on when none is named
// (`fedaux` with no arguments): a synthetic scenario, so no data file is
// needed, where the clients' groups show in the heat map and the
// algorithms differ in accuracy (README, "The console", has the
// measurements that chose it).
const Default = "sbm-gauss"

var registry = map[string]*Preset{}

func register(p *Preset) { registry[p.Name] = p }

// Get returns the preset with the given name, or an error that lists the
// presets there are.
func Get(name string) (*Preset, error) {
	if p, ok := registry[name]; ok {
		return p, nil
	}
	if strings.ContainsAny(name, `/\`) || filepath.Ext(name) != "" {
		// A file meant as a scenario: say what the name lacks.
		return nil, fmt.Errorf("unknown preset %q: a scenario file's name ends in .toml, and no preset's name has a path or an extension", name)
	}
	return nil, fmt.Errorf("unknown preset %q (have %s; or a scenario file ending in .toml)", name, strings.Join(Names(), ", "))
}

// Names returns the preset names in natural order (cora-5, cora-10, ...).
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	return names
}

// naturalLess orders names with their digit runs compared as numbers,
// so that cora-5 comes before cora-10.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da > 0 && db > 0 {
			na, _ := strconv.Atoi(a[:da])
			nb, _ := strconv.Atoi(b[:db])
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitPrefix(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// All returns every preset, sorted by name.
func All() []*Preset {
	var ps []*Preset
	for _, n := range Names() {
		ps = append(ps, registry[n])
	}
	return ps
}

func buildSBM(cfg graphio.SBMConfig, seed uint64, trainFr, testFr float64) (*Scenario, error) {
	cfg.Seed = seed
	g, block, groups, err := graphio.GenerateSBM(cfg)
	if err != nil {
		return nil, err
	}
	roles, err := graphio.SplitSeeded(g.N(), seed, trainFr, testFr)
	if err != nil {
		return nil, err
	}
	clients, err := graphio.Partition(g, block, roles, cfg.Clients)
	if err != nil {
		return nil, err
	}
	sc := &Scenario{
		Data: &sim.Data{
			Clients: clients, NumFeatures: g.NumFeatures(), NumClasses: g.NumClasses, Groups: groups,
		},
		Partition: "sbm blocks",
	}
	sc.facts = newFacts(sc.Data)
	return sc, nil
}
