package presets

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/sim"
)

// Spec states a scenario completely: the graph (a generated SBM or a graph
// file), how its nodes are formed into clients, the train/validation/test
// split, and optional run settings. A scenario file is a Spec written in
// TOML (see ParseSpec); every preset is one, embedded in the program.
//
// Every field has a key ("clients", "sbm.intra", "run.rounds"), listed by
// Fields, through which files, `-set key=value` and the console's form all
// set it, with one set of rules.
type Spec struct {
	// Name names the scenario in logs and results: the file's base name,
	// or the preset's.
	Name        string
	Description string
	// Graph is "sbm" (generated from SBM for every run seed) or the path of
	// a graph: a .npz file in the gnn-benchmark schema or an OGB raw-CSV
	// directory (holding raw/edge.csv.gz, raw/node-feat.csv.gz and
	// raw/node-label.csv.gz). A relative path is looked up beside the
	// scenario file, then in the data directory.
	Graph string
	// Clients is the number of clients K (for an SBM, of blocks).
	Clients int
	// Normalize row-normalises the features of a graph file.
	Normalize bool
	// MemLimit is the Go soft memory limit a run sets ("" for none), as in
	// "1700MiB".
	MemLimit string
	// Metric is what clients report: "accuracy", "rocauc" (binary tasks),
	// or "" for the dataset's own (ROC AUC for minesweeper and tolokers,
	// as their paper reports them; accuracy otherwise).
	Metric string

	Partition PartitionSpec
	SBM       SBMSpec
	// Train and Test are the split fractions (the rest is validation).
	Train, Test float64
	// Run holds run settings by key (sim.Settings), as written.
	Run map[string]string

	dir      string         // directory of the file, for relative paths ("" when embedded)
	file     string         // file name for errors ("" when embedded or built)
	lines    map[string]int // line of each key set in the file
	explicit map[string]bool
}

// PartitionSpec says how a graph file's nodes are formed into clients.
type PartitionSpec struct {
	// Method is "blocks" (an SBM's blocks, its only method), "multilevel",
	// "louvain", "label-skew", "random" or "file".
	Method string
	// Beta is label skew's Dirichlet concentration.
	Beta float64
	// File is the partition file of method "file" (nodes, client and
	// split arrays over the graph's largest component).
	File string
	// Fallback is the method used when File is absent ("" for none).
	Fallback string
	// Seed seeds the partitioner and the split of a graph file: the
	// clients are made once, and every run seed trains on them.
	Seed uint64
}

// SBMSpec holds the numbers of a generated stochastic block model
// (graphio.SBMConfig without the client count and the seed, which are the
// scenario's and the run's).
type SBMSpec struct {
	Nodes      int
	Groups     int
	Intra      []float64
	Inter      float64
	Classes    int
	Purity     float64
	Features   string // "onehot" or "gaussian"
	FeatureDim int
	Noise      float64
	MeanScale  float64
}

// maxSBMEdges bounds the expected number of edges of a generated SBM: the
// generator stores every edge, 16 bytes each at least.
const maxSBMEdges = 1e8

// maxSBMFeatureValues bounds the gaussian features of a generated SBM,
// nodes x feature_dim dense float64 values (2 GiB).
const maxSBMFeatureValues = 1 << 28

// A Field is one key of a scenario.
type Field struct {
	Key string // "clients", "sbm.intra", ...
	// Type is what the key takes: "integer", "number", "string", "bool",
	// "numbers" (a list) or "setting" (a run setting, as its flag takes).
	Type string
	Doc  string
	get  func(*Spec) string
	set  func(*Spec, string) error
}

// Section returns the table a key is written in ("" for the top level).
func (f *Field) Section() string {
	s, _, ok := strings.Cut(f.Key, ".")
	if !ok {
		return ""
	}
	return s
}

// Get returns the field's value in s, spelled as -set takes it.
func (f *Field) Get(s *Spec) string { return f.get(s) }

func intField(key, doc string, p func(*Spec) *int) Field {
	return Field{Key: key, Type: "integer", Doc: doc,
		get: func(s *Spec) string { return strconv.Itoa(*p(s)) },
		set: func(s *Spec, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%q is not an integer", v)
			}
			*p(s) = n
			return nil
		}}
}

func floatField(key, doc string, p func(*Spec) *float64) Field {
	return Field{Key: key, Type: "number", Doc: doc,
		get: func(s *Spec) string { return strconv.FormatFloat(*p(s), 'g', -1, 64) },
		set: func(s *Spec, v string) error {
			x, err := parseNumber(v)
			if err != nil {
				return err
			}
			*p(s) = x
			return nil
		}}
}

func stringField(key, doc string, p func(*Spec) *string) Field {
	return Field{Key: key, Type: "string", Doc: doc,
		get: func(s *Spec) string { return *p(s) },
		set: func(s *Spec, v string) error { *p(s) = v; return nil }}
}

// parseNumber parses a finite number (sim.ParseFloat: one that rounds to
// 0 is refused).
func parseNumber(v string) (float64, error) {
	x, err := sim.ParseFloat(v)
	if errors.Is(err, sim.ErrUnderflow) {
		return 0, fmt.Errorf("%q is %v", v, sim.ErrUnderflow)
	}
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a finite number", v)
	}
	return x, nil
}

// specFields is a scenario's own keys, in the order a file lists them;
// fields adds the run settings.
var specFields = []Field{
	stringField("description", "what the scenario is, one line", func(s *Spec) *string { return &s.Description }),
	stringField("graph", `"sbm" (generated from [sbm] for every run seed), or the path of a graph: a .npz file in the gnn-benchmark schema or an OGB raw-CSV directory; a relative path is looked up beside this file, then in the data directory`, func(s *Spec) *string { return &s.Graph }),
	intField("clients", "number of clients K (for an SBM: its blocks, one client each)", func(s *Spec) *int { return &s.Clients }),
	{Key: "normalize", Type: "bool", Doc: "row-normalise the features of a graph file (the protocol for Planetoid and Amazon graphs)",
		get: func(s *Spec) string { return strconv.FormatBool(s.Normalize) },
		set: func(s *Spec, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%q is not true or false", v)
			}
			s.Normalize = b
			return nil
		}},
	stringField("metric", `what clients report: accuracy, rocauc (ROC AUC, binary tasks), or "" for the dataset's own (rocauc for minesweeper and tolokers, accuracy otherwise)`, func(s *Spec) *string { return &s.Metric }),
	stringField("memlimit", `Go soft memory limit of a run, as "1700MiB" or "2GiB" ("" for none; -memlimit and $GOMEMLIMIT win)`, func(s *Spec) *string { return &s.MemLimit }),

	{Key: "partition.method", Type: "string", Doc: "how a graph file's nodes become clients: multilevel (METIS-quality), louvain (communities merged or split to K as OpenFGL does), label-skew (Dirichlet over labels), random, or file (partition.file); an SBM's clients are its blocks",
		get: func(s *Spec) string { return s.method() },
		set: func(s *Spec, v string) error { s.Partition.Method = v; return nil }},
	floatField("partition.beta", "label-skew: Dirichlet concentration beta > 0 (small: few labels per client)", func(s *Spec) *float64 { return &s.Partition.Beta }),
	stringField("partition.file", "file: a partition .npz with nodes, client and split arrays over the graph's largest component; it also gives the split", func(s *Spec) *string { return &s.Partition.File }),
	stringField("partition.fallback", `the method used when partition.file is absent ("" for none: its absence is an error)`, func(s *Spec) *string { return &s.Partition.Fallback }),
	{Key: "partition.seed", Type: "integer", Doc: "seed of the partitioner and of the split of a graph file (fixed: every run seed trains on the same clients)",
		get: func(s *Spec) string { return strconv.FormatUint(s.Partition.Seed, 10) },
		set: func(s *Spec, v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a non-negative integer", v)
			}
			s.Partition.Seed = n
			return nil
		}},

	intField("sbm.nodes", "number of nodes, in K equal consecutive blocks", func(s *Spec) *int { return &s.SBM.Nodes }),
	intField("sbm.groups", "number of client groups (consecutive clients; 1 <= groups <= clients)", func(s *Spec) *int { return &s.SBM.Groups }),
	{Key: "sbm.intra", Type: "numbers", Doc: "edge probability inside a block, one per group, each in [0, 1]",
		get: func(s *Spec) string { return joinFloats(s.SBM.Intra) },
		set: func(s *Spec, v string) error {
			xs, err := parseFloats(v)
			if err != nil {
				return err
			}
			s.SBM.Intra = xs
			return nil
		}},
	floatField("sbm.inter", "edge probability between two different blocks, in [0, 1]", func(s *Spec) *float64 { return &s.SBM.Inter }),
	intField("sbm.classes", "number of labels (group g's label is g mod classes)", func(s *Spec) *int { return &s.SBM.Classes }),
	floatField("sbm.purity", "probability that a node has its group's label, in [0, 1]", func(s *Spec) *float64 { return &s.SBM.Purity }),
	stringField("sbm.features", "onehot (the node's label, one-hot) or gaussian (class mean + noise)", func(s *Spec) *string { return &s.SBM.Features }),
	intField("sbm.feature_dim", "gaussian: feature dimension", func(s *Spec) *int { return &s.SBM.FeatureDim }),
	floatField("sbm.noise", "gaussian: standard deviation of the noise around the class mean", func(s *Spec) *float64 { return &s.SBM.Noise }),
	floatField("sbm.mean_scale", "gaussian: standard deviation of the class means", func(s *Spec) *float64 { return &s.SBM.MeanScale }),

	floatField("split.train", "fraction of nodes for training", func(s *Spec) *float64 { return &s.Train }),
	floatField("split.test", "fraction of nodes for testing (the rest validates)", func(s *Spec) *float64 { return &s.Test }),
}

// fields returns every key of a scenario in file order: its own, then
// run.KEY for each setting registered with package sim. It is built on
// each call, not once at init, so that a method registered after this
// package's init (one whose import path sorts after it, or one registered
// by package main) has its settings in scenario files as well.
func fields() []Field {
	keys := sim.Settings()
	out := make([]Field, len(specFields), len(specFields)+len(keys))
	copy(out, specFields)
	for _, key := range keys {
		if key == "seed" {
			continue // a run's seed comes from -seed
		}
		out = append(out, runField(key))
	}
	return out
}

// runField is the scenario key run.KEY of setting key.
func runField(key string) Field {
	doc := sim.Describe(key)
	if key == "algo" {
		doc = "algorithm: " + strings.Trim(fmt.Sprint(sim.Algorithms()), "[]")
	}
	return Field{Key: "run." + key, Type: "setting", Doc: doc,
		get: func(s *Spec) string { return s.Run[key] },
		set: func(s *Spec, v string) error {
			var c sim.Config
			if err := c.Set(key, v); err != nil {
				var se *sim.SettingError
				if errors.As(err, &se) {
					return fmt.Errorf("%q: want %s", v, se.Want)
				}
				return err
			}
			if s.Run == nil {
				s.Run = map[string]string{}
			}
			s.Run[key] = v
			return nil
		}}
}

// Fields returns every key of a scenario, in file order.
func Fields() []Field { return fields() }

// field finds a key: its full name ("sbm.intra"), or its name within its
// table ("intra") when no other table has that name.
func field(key string) (*Field, error) {
	if key == "seed" {
		return nil, fmt.Errorf("a run's seed is -seed; the partitioner's is partition.seed")
	}
	var found []*Field
	all := fields()
	for i := range all {
		f := &all[i]
		if f.Key == key {
			return f, nil
		}
		if _, short, ok := strings.Cut(f.Key, "."); ok && short == key {
			found = append(found, f)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("unknown key (see 'fedaux scenario keys')")
	}
	var names []string
	for _, f := range found {
		names = append(names, f.Key)
	}
	return nil, fmt.Errorf("ambiguous key: say %s", strings.Join(names, " or "))
}

// A SpecError is a scenario that cannot be: a key, its file and line
// when it came from a file, and what is wrong.
type SpecError struct {
	File string // "" when not from a file
	Line int    // 0 when unknown
	Key  string // "" for the file as a whole
	Err  error
}

func (e *SpecError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *SpecError) Unwrap() error { return e.Err }

// errAt returns a SpecError for key, at the key's line when the file set it.
func (s *Spec) errAt(key string, format string, args ...any) error {
	return &SpecError{File: s.file, Line: s.lines[key], Key: key, Err: fmt.Errorf(format, args...)}
}

// Set sets one key ("clients", "sbm.intra" or "intra", "run.rounds") from
// its text, as `-set key=value` gives it. It checks the value's form;
// Validate checks the scenario as a whole.
func (s *Spec) Set(key, value string) error {
	f, err := field(key)
	if err != nil {
		return &SpecError{Key: key, Err: err}
	}
	if err := f.set(s, value); err != nil {
		return &SpecError{Key: f.Key, Err: err}
	}
	if s.explicit == nil {
		s.explicit = map[string]bool{}
	}
	s.explicit[f.Key] = true
	delete(s.lines, f.Key)
	return nil
}

// Get returns a key's value, spelled as Set takes it.
func (s *Spec) Get(key string) (string, error) {
	f, err := field(key)
	if err != nil {
		return "", &SpecError{Key: key, Err: err}
	}
	return f.get(s), nil
}

// IsSBM reports whether the scenario generates its graph.
func (s *Spec) IsSBM() bool { return s.Graph == "sbm" }

// Validate checks the scenario as a whole: every error names the key (and
// the file and line it was set at) and what is allowed. Checks that need
// the graph (K against its nodes, a partition file's clients) are made
// when it is built.
func (s *Spec) Validate() error {
	if s.Graph == "" {
		return s.errAt("graph", `missing: want "sbm" or the path of a .npz file or OGB directory`)
	}
	if s.Clients < 2 {
		return s.errAt("clients", "%d, want >= 2 (a federation)", s.Clients)
	}
	if s.IsSBM() {
		if err := s.validateSBM(); err != nil {
			return err
		}
	} else {
		for key := range s.explicit {
			if strings.HasPrefix(key, "sbm.") {
				return s.errAt(key, `set, but graph = %q: [sbm] keys need graph = "sbm"`, s.Graph)
			}
		}
	}
	if err := s.validatePartition(); err != nil {
		return err
	}
	if s.method() != "file" || s.Partition.Fallback != "" {
		if !(s.Train > 0 && s.Train < 1) {
			return s.errAt("split.train", "%g, want in (0, 1)", s.Train)
		}
		if !(s.Test > 0 && s.Test < 1) {
			return s.errAt("split.test", "%g, want in (0, 1)", s.Test)
		}
		if !(s.Train+s.Test < 1) {
			return s.errAt("split.test", "train %g + test %g = %g, want < 1 (the rest validates)", s.Train, s.Test, s.Train+s.Test)
		}
	}
	if s.MemLimit != "" {
		if _, err := ParseBytes(s.MemLimit); err != nil {
			return s.errAt("memlimit", "%v", err)
		}
	}
	if s.Metric != "" {
		if _, err := sim.ParseMetric(s.Metric); err != nil {
			return s.errAt("metric", "%q, want accuracy, rocauc or \"\" (the dataset's own)", s.Metric)
		}
	}
	c := s.Config()
	if err := c.Validate(); err != nil {
		var se *sim.SettingError
		if errors.As(err, &se) {
			return s.errAt("run."+se.Key, "%s, want %s", se.Value, se.Want)
		}
		return &SpecError{File: s.file, Key: "run", Err: err}
	}
	return nil
}

func (s *Spec) validateSBM() error {
	b := &s.SBM
	switch {
	case b.Nodes < s.Clients:
		return s.errAt("sbm.nodes", "%d, want >= clients = %d (one block of nodes per client)", b.Nodes, s.Clients)
	case b.Nodes > math.MaxInt32:
		return s.errAt("sbm.nodes", "%d, want <= %d", b.Nodes, math.MaxInt32)
	case b.Groups < 1 || b.Groups > s.Clients:
		return s.errAt("sbm.groups", "%d, want 1..clients = %d (every group holds at least one client)", b.Groups, s.Clients)
	case len(b.Intra) != b.Groups:
		return s.errAt("sbm.intra", "%d values, want one per group (groups = %d)", len(b.Intra), b.Groups)
	case !(b.Inter >= 0 && b.Inter <= 1):
		return s.errAt("sbm.inter", "%g, want a probability in [0, 1]", b.Inter)
	case b.Classes < 2 || b.Classes > b.Nodes:
		return s.errAt("sbm.classes", "%d, want 2..nodes = %d", b.Classes, b.Nodes)
	case !(b.Purity >= 0 && b.Purity <= 1):
		return s.errAt("sbm.purity", "%g, want a probability in [0, 1]", b.Purity)
	}
	for g, p := range b.Intra {
		if !(p >= 0 && p <= 1) {
			return s.errAt("sbm.intra", "value %d (group %d) is %g, want a probability in [0, 1]", g+1, g+1, p)
		}
	}
	switch b.Features {
	case "onehot":
	case "gaussian":
		if b.FeatureDim < 1 {
			return s.errAt("sbm.feature_dim", "%d, want >= 1 with gaussian features", b.FeatureDim)
		}
		if v := float64(b.Nodes) * float64(b.FeatureDim); v > maxSBMFeatureValues {
			return s.errAt("sbm.feature_dim", "%d: the %d nodes' features would be %.3g values, more than the %d the generator holds; lower sbm.feature_dim or sbm.nodes", b.FeatureDim, b.Nodes, v, maxSBMFeatureValues)
		}
		if !(b.Noise >= 0) {
			return s.errAt("sbm.noise", "%g, want >= 0", b.Noise)
		}
		if !(b.MeanScale >= 0) {
			return s.errAt("sbm.mean_scale", "%g, want >= 0", b.MeanScale)
		}
	default:
		return s.errAt("sbm.features", "%q, want onehot or gaussian", b.Features)
	}
	if e := s.expectedEdges(); e > maxSBMEdges {
		return s.errAt("sbm.intra", "the SBM would have about %.3g edges, more than the %.0g the generator holds; lower sbm.nodes or the probabilities", e, float64(maxSBMEdges))
	}
	if m := s.Partition.Method; m != "" && m != "blocks" {
		return s.errAt("partition.method", "%q, but an SBM's clients are its blocks: want blocks", m)
	}
	return nil
}

// expectedEdges is the expected number of undirected edges of the SBM.
func (s *Spec) expectedEdges() float64 {
	b := &s.SBM
	n, k := float64(b.Nodes), float64(s.Clients)
	per := n / k
	var intra float64
	for i, sz := range evenSplitCounts(s.Clients, b.Groups) {
		intra += float64(sz) * b.Intra[i] * per * (per - 1) / 2
	}
	inter := b.Inter * (n*(n-1)/2 - k*per*(per-1)/2)
	return intra + inter
}

// evenSplitCounts splits total into parts as equal as possible, the
// first ones one larger (as graphio's SBM does).
func evenSplitCounts(total, parts int) []int {
	out := make([]int, parts)
	for i := range out {
		out[i] = total / parts
		if i < total%parts {
			out[i]++
		}
	}
	return out
}

func (s *Spec) validatePartition() error {
	p := &s.Partition
	if s.IsSBM() {
		return nil
	}
	ok := func(m string) bool { return slices.Contains(Partitioners(), m) }
	switch {
	case s.method() == "file":
		if p.File == "" {
			return s.errAt("partition.file", `missing: method "file" needs a partition file`)
		}
		if p.Fallback != "" && !ok(p.Fallback) {
			return s.errAt("partition.fallback", "%q, want %s or \"\"", p.Fallback, strings.Join(Partitioners(), ", "))
		}
	case ok(s.method()):
	default:
		return s.errAt("partition.method", "%q, want %s or file", s.method(), strings.Join(Partitioners(), ", "))
	}
	if s.method() == "label-skew" || p.Fallback == "label-skew" {
		if !(p.Beta > 0) {
			return s.errAt("partition.beta", "%g, want > 0", p.Beta)
		}
	}
	return nil
}

// Config returns the scenario's run settings: the defaults of docs/method.md#hyperparameters, section
// 6 with the file's [run] keys applied. Call it on a validated Spec.
func (s *Spec) Config() sim.Config {
	c := sim.DefaultConfig()
	for _, key := range sim.Settings() {
		if v, ok := s.Run[key]; ok {
			_ = c.Set(key, v) // checked by Set
		}
	}
	return c
}

// sbmConfig is the generator's configuration for a run seed.
func (s *Spec) sbmConfig(seed uint64) graphio.SBMConfig {
	b := s.SBM
	c := graphio.SBMConfig{
		Nodes: b.Nodes, Clients: s.Clients, Groups: b.Groups,
		IntraProb: slices.Clone(b.Intra), InterProb: b.Inter,
		Classes: b.Classes, Purity: b.Purity,
		FeatureDim: b.FeatureDim, Noise: b.Noise, MeanScale: b.MeanScale,
		Seed: seed,
	}
	if b.Features == "gaussian" {
		c.Features = graphio.GaussianFeatures
	}
	return c
}

// Clone returns a deep copy of s.
func (s *Spec) Clone() *Spec {
	c := *s
	c.SBM.Intra = slices.Clone(s.SBM.Intra)
	c.Run = map[string]string{}
	for k, v := range s.Run {
		c.Run[k] = v
	}
	c.lines = map[string]int{}
	for k, v := range s.lines {
		c.lines[k] = v
	}
	c.explicit = map[string]bool{}
	for k, v := range s.explicit {
		c.explicit[k] = v
	}
	return &c
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func parseFloats(v string) ([]float64, error) {
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "["), "]"))
	if v == "" {
		return nil, fmt.Errorf("empty list, want numbers separated by commas")
	}
	var xs []float64
	for _, p := range strings.Split(v, ",") {
		x, err := parseNumber(p)
		if err != nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	return xs, nil
}
