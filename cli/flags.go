package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/datasets"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// runFlags are the flags shared by `run`, the console, `similarity` and
// `sweep`: one flag per setting of sim.Config (sim.Settings), named as
// flagName says, and the flags of the command line itself. A setting
// left unset keeps the preset's value.
type runFlags struct {
	fs        *flag.FlagSet
	preset    string
	scenario  string
	sets      []string // -set key=value, in order
	dataDir   string
	partition string
	settings  map[string]string // the settings given, by name
	alphaAuto bool              // -alpha auto
	partners  float64
	seeds     int
	workers   int
	logPath   string
	asJSON    bool
	matrix    bool
	cpuProf   string
	memLimit  string
	memProf   string
	traceOut  string
	exportDir string
	alignment bool // -alignment (run): log every client's |cos(APV, pc1)|

	// Reliability (`run` only): see study.SeedRun.
	clientDropout float64
	checkpoint    string
	ckEvery       int
	resume        string
}

// settingFlag is the flag of one setting: it checks the value's syntax
// and keeps it; runFlags.apply sets it.
type settingFlag struct {
	f        *runFlags
	key, def string
}

func (s settingFlag) String() string { return s.def }

func (s settingFlag) Set(v string) error {
	if s.key == "alpha" && v == "auto" {
		s.f.alphaAuto = true
		delete(s.f.settings, "alpha")
		return nil
	}
	c := sim.DefaultConfig()
	if err := c.Set(s.key, v); err != nil {
		var se *sim.SettingError
		if errors.As(err, &se) {
			return errors.New("want " + se.Want)
		}
		return err
	}
	if s.key == "alpha" {
		s.f.alphaAuto = false
	}
	s.f.settings[s.key] = v
	return nil
}

func newRunFlags(name, defaultPreset string, out io.Writer) *runFlags {
	f := &runFlags{fs: newFlagSet(name, out), settings: map[string]string{}}
	fs := f.fs
	if name != "table" {
		fs.StringVar(&f.preset, "preset", defaultPreset, "scenario `name` (see 'fedaux presets'); comma-separated for a sweep")
	}
	fs.StringVar(&f.scenario, "scenario", "", "scenario `file` (TOML; 'fedaux scenario show NAME' prints a preset's to start from); comma-separated for a sweep or a table")
	fs.Func("set", "change one key of the scenario, `key=value` (repeatable), e.g. -set groups=2 -set intra=0.2,0.6; keys: 'fedaux scenario keys'", func(v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("%q: want key=value", v)
		}
		f.sets = append(f.sets, v)
		return nil
	})
	fs.StringVar(&f.dataDir, "data", "", "data `dir` ("+dataDirDefault+")")
	fs.StringVar(&f.partition, "partition", "", "how to form clients on real data: ref (the reference METIS file, default when present), multilevel (our METIS-quality partitioner, default otherwise), louvain (communities merged or split to K as OpenFGL does), label-skew or label-skew=BETA (Dirichlet over labels, beta 0.5 by default), random")
	d := sim.DefaultConfig()
	own := methodSettings()
	for _, key := range sim.Settings() {
		if key == "partners" || own[key] != nil {
			continue // the methods' own settings are defined by parse
		}
		def, _ := d.Get(key)
		usage := sim.Describe(key)
		switch key {
		case "algo":
			usage = "algorithm: " + strings.Trim(fmt.Sprint(sim.Algorithms()), "[]")
		case "alpha":
			usage += ", or auto (per-client alpha for -partners effective partners)"
		}
		fs.Var(settingFlag{f, key, def}, flagName(key), usage)
	}
	fs.Float64Var(&f.partners, "partners", 4, "with -alpha auto: target effective number of partners per client (exp of the weights' entropy); setting it implies -alpha auto")
	seeds := 1
	switch name {
	case "table", "convergence":
		seeds = 3 // as the paper reports
	case "privacy":
		seeds = 5 // as the paper's attack table
	}
	fs.IntVar(&f.seeds, "seeds", seeds, "run seeds seed..seed+N-1 and report mean and std")
	fs.IntVar(&f.workers, "workers", 0, "clients trained at once (default: number of CPUs); results do not depend on it")
	if name == "run" || name == "sweep" {
		fs.Float64Var(&f.clientDropout, "dropout", 0, "probability that a client misses a round (left out of its aggregation), 0 <= p < 1")
	}
	if name == "run" {
		fs.StringVar(&f.checkpoint, "checkpoint", "", "save checkpoints to `file` (every -checkpoint-every rounds, and at an interrupt)")
		fs.IntVar(&f.ckEvery, "checkpoint-every", 0, "save a checkpoint every `N` rounds (0: only at an interrupt)")
		fs.StringVar(&f.resume, "resume", "", "continue the run checkpointed in `file` (its settings; -workers, -log, -data, -checkpoint may change)")
		fs.BoolVar(&f.alignment, "alignment", false, "compute every client's |cos(APV, leading eigenvector of its embedding covariance)| each round (Theorem 1), written as `alignment` in the log's client objects")
	}
	if name == "run" {
		fs.BoolVar(&f.matrix, "matrix", false, "print the last round's similarity and weight matrices, and every similarity view's agreement with the true groups")
		fs.BoolVar(&f.asJSON, "json", false, "print a JSON summary object as the last line of stdout")
	}
	if name == "run" || name == "tui" {
		fs.StringVar(&f.logPath, "log", "", "append the JSON Lines run log to `file`")
		fs.StringVar(&f.memLimit, "memlimit", "", "soft memory limit for the Go runtime, e.g. 1700MiB or 2GiB (default: $GOMEMLIMIT, else the preset's, else none)")
		fs.StringVar(&f.cpuProf, "cpuprofile", "", "write a CPU profile to `file` (go tool pprof)")
		fs.StringVar(&f.memProf, "memprofile", "", "write a heap profile to `file` at the end")
		fs.StringVar(&f.traceOut, "trace", "", "write Go's execution trace to `file` (go tool trace): what every goroutine did when, and when a core stood idle")
		fs.StringVar(&f.exportDir, "export", "", "write the run log, a metrics CSV and PNG plots (convergence; heat maps of the weights, the ground truth and every similarity view) into `dir` (auto: ./runs/<preset>-<timestamp>); in the console, the export prompt's default")
	}
	return f
}

// methodSettings returns the registered methods' own settings (not the
// shared ones), each with the methods that declare it.
func methodSettings() map[string][]sim.Algorithm {
	own := map[string][]sim.Algorithm{}
	for _, m := range sim.Methods() {
		for _, s := range m.Settings {
			own[s.Key] = append(own[s.Key], m.Name)
		}
	}
	return own
}

// parse defines a flag for each method's own setting, after every flag
// of the command, then parses args. A method setting with the name of one
// of the command's flags is refused, naming the method, instead of
// panicking (flag redefined) whatever the command.
func (f *runFlags) parse(args []string) error {
	own := methodSettings()
	d := sim.DefaultConfig()
	for _, key := range sim.Settings() { // in order, for -h
		if own[key] == nil {
			continue
		}
		name := flagName(key)
		if f.fs.Lookup(name) != nil {
			return fmt.Errorf("%s: the setting %q of %s has the name of the flag -%s: the method must rename it", f.fs.Name(), key, joinAlgos(own[key]), name)
		}
		def, _ := d.Get(key)
		f.fs.Var(settingFlag{f, key, def}, name, sim.Describe(key))
	}
	return parseFlags(f.fs, args)
}

// joinAlgos spells a list of methods "a, b".
func joinAlgos(as []sim.Algorithm) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// env returns where the preset reads its data.
func (f *runFlags) env() presets.Env {
	return presets.Env{DataDir: presets.DataDir(f.dataDir), Partition: f.partition}
}

// scenarios returns the scenarios that -preset and -scenario name, in that
// order, each changed by every -set.
func (f *runFlags) scenarios() ([]*presets.Preset, error) {
	var ps []*presets.Preset
	names := splitList(f.preset)
	if f.scenario != "" && !f.isSet("preset") {
		names = nil // the console's default preset gives way to a file
	}
	for _, name := range names {
		p, err := presets.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("-preset: %w", err)
		}
		ps = append(ps, p)
	}
	for _, path := range splitList(f.scenario) {
		p, err := presets.Load(path)
		if err != nil {
			return nil, fmt.Errorf("-scenario: %w", err)
		}
		ps = append(ps, p)
	}
	for i, p := range ps {
		q, err := p.With(f.sets)
		if err != nil {
			return nil, fmt.Errorf("-set: %w", err)
		}
		ps[i] = q
	}
	return ps, nil
}

// isSet reports whether the command line set the flag.
func (f *runFlags) isSet(name string) bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// scenarioOne returns the one scenario that -preset or -scenario names.
func (f *runFlags) scenarioOne() (*presets.Preset, error) {
	ps, err := f.scenarios()
	switch {
	case err != nil:
		return nil, err
	case len(ps) == 0:
		return nil, errors.New("-preset NAME or -scenario FILE is required (see 'fedaux presets')")
	case len(ps) > 1:
		return nil, fmt.Errorf("-preset and -scenario name %d scenarios, want one", len(ps))
	}
	return ps[0], nil
}

// config returns the scenario's settings overridden by the flags the user set.
func (f *runFlags) config() (*presets.Preset, sim.Config, error) {
	p, err := f.scenarioOne()
	if err != nil {
		return nil, sim.Config{}, err
	}
	c, err := f.apply(p.Config())
	if err != nil {
		return nil, c, err
	}
	return p, c, nil
}

// base overrides *c by the flags the user set (apply in place): the Base
// of a study's grid.
func (f *runFlags) base(c *sim.Config) error {
	applied, err := f.apply(*c)
	if err != nil {
		return err
	}
	*c = applied
	return nil
}

// grid returns a study's grid: presets ps, algorithms as, the seeds from
// seed on, each run's settings the preset's with the user's flags; runs
// without their data are skipped with skipMissing, else an error.
func (f *runFlags) grid(ps []*presets.Preset, as []sim.Algorithm, seed uint64, skipMissing bool) study.Grid {
	return study.Grid{Presets: ps, Env: f.env(), Base: f.base, Algos: as, Seeds: f.seeds, Seed: seed, Workers: f.workers,
		SkipMissing: skipMissing}
}

// apply returns c overridden by the flags the user set, validated.
func (f *runFlags) apply(c sim.Config) (sim.Config, error) {
	for _, key := range sim.Settings() {
		if v, ok := f.settings[key]; ok {
			if err := c.Set(key, v); err != nil {
				return c, flagError(err)
			}
		}
	}
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "partners": // a target implies auto alpha
			c.Partners = f.partners
		case "alpha":
			if f.alphaAuto {
				c.Partners = f.partners
			}
		}
	})
	c.Workers = f.workers
	if err := f.checkSeeds(c.Seed); err != nil {
		return c, err
	}
	return c, flagError(c.Validate())
}

// checkSeeds checks -seeds from the first seed, in the flags' words:
// "-seeds: 0, want 1..10000", and -seed named when the last seed would
// pass the largest.
func (f *runFlags) checkSeeds(first uint64) error {
	if study.CheckSeeds(first, f.seeds) == nil {
		return nil
	}
	if f.seeds < 1 || f.seeds > study.MaxSeeds {
		return fmt.Errorf("-seeds: %d, want 1..%d", f.seeds, study.MaxSeeds)
	}
	return fmt.Errorf("-seeds: %d from -seed %d would pass the largest seed, %d; lower -seed", f.seeds, first, uint64(math.MaxUint64))
}

// settingFlags maps the settings whose flag is not their name; sim's
// client_dropout (Faults.Dropout, which sim.Settings does not list) is
// -dropout.
var settingFlags = map[string]string{"dropout": "model-dropout", "apv_mix": "apv-mix", "client_dropout": "dropout"}

// flagName returns the flag of a setting (sim.Settings), or of the
// setting a "KEY: ..." message starts with, without its dash.
func flagName(s string) string {
	key, rest, _ := strings.Cut(s, ":")
	if f, ok := settingFlags[key]; ok {
		key = f
	}
	if rest != "" {
		return key + ":" + rest
	}
	return key
}

// flagError says a library's setting error in flag names: sim's "sim:
// rounds = 0, want >= 1" becomes "-rounds: 0, want >= 1".
func flagError(err error) error {
	var se *sim.SettingError
	if errors.As(err, &se) {
		return fmt.Errorf("-%s: %s, want %s", flagName(se.Key), se.Value, se.Want)
	}
	return err
}

// say returns err's message with the library's errors that name a field
// of the library reworded to name the flag that sets it, wherever they
// are in err's tree: presets' Env.Partition is -partition, Env.DataDir
// -data, and datasets' Options.Mirror and Unverified -mirror and
// -unverified.
func say(err error) string {
	msg := err.Error()
	var visit func(error)
	visit = func(e error) {
		var words string
		switch e := e.(type) {
		case nil:
			return
		case *presets.EnvError:
			switch e.Field {
			case "Partition":
				words = fmt.Sprintf("-partition %s: %v", e.Value, e.Err)
			case "DataDir":
				words = fmt.Sprintf("%v (data directory %s; set -data or FEDAUX_DATA)", e.Err, e.Value)
			}
		case *datasets.FileError:
			words = strings.NewReplacer("Options.Unverified set", "-unverified",
				"set Options.Mirror to", "set -mirror / $"+datasets.MirrorEnv+" to").Replace(e.Error())
		}
		if words != "" {
			msg = strings.Replace(msg, e.Error(), words, 1)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			visit(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				visit(e)
			}
		}
	}
	visit(err)
	return msg
}

// defaultOut is a study's output directory when -out is not given:
// ./runs/KIND-P1+P2... after the scenarios' names.
func defaultOut(kind string, ps []*presets.Preset) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return filepath.Join("runs", kind+"-"+strings.Join(names, "+"))
}

// seedFlag is a -seed of a command without run's settings: a
// non-negative integer, with run's words for anything else (flag's
// Uint64 says "parse error").
type seedFlag uint64

func (s *seedFlag) String() string { return strconv.FormatUint(uint64(*s), 10) }

func (s *seedFlag) Set(v string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return errors.New("want a non-negative integer")
	}
	*s = seedFlag(n)
	return nil
}

// dataDirDefault says where a command reads its data without -data, as
// presets.DataDir looks: the same words in every command's -h.
const dataDirDefault = "default $FEDAUX_DATA, else ~/.local/share/fedaux"
