package presets

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/fedaux/fedaux/datasets"
	"github.com/fedaux/fedaux/graphio"
	_ "github.com/fedaux/fedaux/methods" // the built-in methods the embedded scenarios name
	"github.com/fedaux/fedaux/sim"
)

// embedded holds every preset as a scenario file.
//
//go:embed scenarios/*.toml
var embedded embed.FS

func init() {
	entries, err := embedded.ReadDir("scenarios")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		data, err := embedded.ReadFile("scenarios/" + e.Name())
		if err != nil {
			panic(err)
		}
		name := strings.TrimSuffix(e.Name(), ".toml")
		s, err := ParseSpec(name, "", data)
		if err != nil {
			panic(fmt.Sprintf("presets: embedded scenario %s: %v", e.Name(), err))
		}
		p := FromSpec(s)
		p.Source, p.builtin = string(data), true
		register(p)
	}
}

// FromSpec returns the preset of a validated scenario.
func FromSpec(s *Spec) *Preset {
	p := &Preset{Name: s.Name, Description: s.Description, Spec: s, Config: s.Config, Build: s.build}
	if s.MemLimit != "" {
		p.MemLimit, _ = ParseBytes(s.MemLimit) // checked by Validate
	}
	if !s.IsSBM() {
		p.Needs = s.Graph
		if !strings.HasSuffix(s.Graph, ".npz") {
			p.Needs += "/raw/*.csv.gz"
		}
		if _, built := embeddedRef(s.Partition.File); s.method() == "file" && s.Partition.Fallback == "" && !built {
			p.Needs += ", " + s.Partition.File
		}
	}
	return p
}

// Load reads a scenario file; its name is the file's base name without
// .toml.
func Load(path string) (*Preset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	s, err := ParseSpec(name, path, data)
	if err != nil {
		return nil, err
	}
	p := FromSpec(s)
	p.Source, p.File = string(data), path
	return p, nil
}

// FromSource makes the preset of a scenario file's text, as a checkpoint
// keeps it: named name, with relative paths looked up beside file ("" for
// none) and in the data directory.
func FromSource(name, file, text string) (*Preset, error) {
	s, err := ParseSpec(name, file, []byte(text))
	if err != nil {
		return nil, err
	}
	p := FromSpec(s)
	p.Source, p.File, p.changed = text, file, true
	return p, nil
}

// Lookup returns a preset by name, or the scenario file name names when
// it ends in .toml.
func Lookup(name string) (*Preset, error) {
	if strings.HasSuffix(name, ".toml") {
		return Load(name)
	}
	return Get(name)
}

// LoadDir reads every *.toml scenario file in dir, in name order. A file
// that does not parse is left out and its error returned with the
// others'; a missing dir gives no presets and no error.
func LoadDir(dir string) ([]*Preset, []error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
	sort.Strings(paths)
	var ps []*Preset
	var errs []error
	for _, path := range paths {
		p, err := Load(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ps = append(ps, p)
	}
	return ps, errs
}

// With returns the preset with some keys of its scenario changed, each
// "key=value" as -set takes it (see Spec.Set). The result is validated;
// its Fingerprint differs from p's when the scenario does.
func (p *Preset) With(sets []string) (*Preset, error) {
	if len(sets) == 0 {
		return p, nil
	}
	if p.Spec == nil {
		return nil, fmt.Errorf("scenario %s is built in code and has no keys to set", p.Name)
	}
	s := p.Spec.Clone()
	for _, kv := range sets {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(key) == "" {
			return nil, fmt.Errorf("%q: want key=value (keys: 'fedaux scenario keys')", kv)
		}
		if err := s.Set(strings.TrimSpace(key), strings.TrimSpace(value)); err != nil {
			return nil, err
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s.Description = strings.TrimSpace(s.Description + " [-set " + strings.Join(sets, " ") + "]")
	q := FromSpec(s)
	q.Source, q.File, q.changed = s.Render(), p.File, true
	return q, nil
}

// Label is the name to show: the name, with a star when -set or the
// console's scenario panel changed the scenario ("sbm*").
func (p *Preset) Label() string {
	if p.changed {
		return p.Name + "*"
	}
	return p.Name
}

// Fingerprint identifies the scenario's content for result keys: "" for
// a built-in preset as shipped, else a hash of its canonical file, so
// that an edited file or a -set never shares results with the original.
func (p *Preset) Fingerprint() string {
	if p.Spec == nil || (p.builtin && !p.changed) {
		return ""
	}
	h := sha256.Sum256([]byte(p.Spec.Render()))
	return hex.EncodeToString(h[:6])
}

// resolve returns where a path of the scenario is: as is when absolute,
// beside the scenario file when there, else in the data directory.
func (s *Spec) resolve(path string, env Env) string {
	if filepath.IsAbs(path) {
		return path
	}
	if s.dir != "" {
		if q := filepath.Join(s.dir, path); exists(q) {
			return q
		}
	}
	q := filepath.Join(env.DataDir, path)
	if !exists(q) {
		if _, ok := embeddedRef(path); ok {
			return embeddedPrefix + path
		}
	}
	return q
}

// graphPath returns the path of the scenario's graph, or an error that
// says where it looked and how to get it.
func (s *Spec) graphPath(env Env) (string, error) {
	p := s.resolve(s.Graph, env)
	if exists(p) {
		return p, nil
	}
	if q := alternate(s.Graph, env); q != "" && (s.dir == "" || !filepath.IsAbs(s.Graph)) && exists(q) {
		return q, nil
	}
	// Not found in the data directory: an EnvError on DataDir; beside a
	// scenario file too: the places looked in.
	err := error(&EnvError{Field: "DataDir", Value: env.DataDir, Err: fmt.Errorf("graph %s not found", p)})
	if s.dir != "" && !filepath.IsAbs(s.Graph) {
		err = fmt.Errorf("graph %s not found (looked beside %s and in the data directory %s)", p, s.file, env.DataDir)
	}
	if d := datasets.ForGraph(s.Graph); d != nil {
		hint := fmt.Sprintf("Get it with `fedaux data get %s` (docs/data.md says how to place it by hand or use a mirror).", d.Name)
		err = fmt.Errorf("%w. %s", err, hint)
	}
	return "", &SpecError{File: s.file, Line: s.lines["graph"], Key: "graph", Err: err}
}

// mode returns how clients are formed under env: "ref" (the partition
// file), or a Partition mode ("multilevel", "label-skew=0.5", ...).
func (s *Spec) mode(env Env) (string, error) {
	file := ""
	if s.method() == "file" {
		file = s.resolve(s.Partition.File, env)
	}
	switch env.Partition {
	case "":
	case "ref":
		if file == "" {
			return "", partitionError("ref", "scenario %s has no partition file", s.Name)
		}
		if !exists(file) {
			return "", partitionError("ref", "reference partition %s not found", file)
		}
		return "ref", nil
	default:
		if _, err := partitioner(env.Partition); err != nil {
			return "", err
		}
		return env.Partition, nil
	}
	m := s.method()
	if m == "file" {
		if exists(file) || s.Partition.Fallback == "" {
			return "ref", nil
		}
		m = s.Partition.Fallback
	}
	if m == "label-skew" {
		m = fmt.Sprintf("label-skew=%g", s.Partition.Beta)
	}
	return m, nil
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*Scenario{}
)

// build makes the scenario for a run seed. A graph file does not depend
// on the seed, so its scenario is cached.
func (s *Spec) build(env Env, seed uint64) (*Scenario, error) {
	sc, err := s.buildData(env, seed)
	if err != nil {
		return nil, err
	}
	if m := s.metric(); m != sc.Data.Metric {
		// A copy: the cached scenario may be shared.
		c := *sc
		d := *sc.Data
		d.Metric, c.Data = m, &d
		sc = &c
	}
	return sc, nil
}

// metric returns the metric the scenario's clients report: its metric
// key, else the dataset's own, else accuracy.
func (s *Spec) metric() sim.Metric {
	name := s.Metric
	if d := datasets.ForGraph(s.Graph); name == "" && d != nil {
		name = d.Metric
	}
	m, _ := sim.ParseMetric(name) // checked by Validate; "" is accuracy
	return m
}

// MetricFor returns the metric a preset's clients report (accuracy for
// a preset built in code).
func (p *Preset) MetricFor() sim.Metric {
	if p.Spec == nil {
		return sim.Accuracy
	}
	return p.Spec.metric()
}

// checkEnv reports an env the scenario cannot take: a Partition mode
// for an SBM, whose clients are its blocks.
func (s *Spec) checkEnv(env Env) error {
	if s.IsSBM() && env.Partition != "" {
		return partitionError(env.Partition, "scenario %s is an SBM, whose clients are its blocks", s.Name)
	}
	return nil
}

func (s *Spec) buildData(env Env, seed uint64) (*Scenario, error) {
	if s.IsSBM() {
		if err := s.checkEnv(env); err != nil {
			return nil, err
		}
		return buildSBM(s.sbmConfig(seed), seed, s.Train, s.Test)
	}
	gp, err := s.graphPath(env)
	if err != nil {
		return nil, err
	}
	mode, err := s.mode(env)
	if err != nil {
		return nil, err
	}
	key := strings.Join([]string{gp, mode, s.Render()}, "\x00")
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if sc, ok := cache[key]; ok {
		return sc, nil
	}
	sums := startChecksums(gp) // while the graph is read and partitioned
	full, err := loadGraph(gp)
	if err != nil {
		return nil, err
	}
	var sc *Scenario
	if mode == "ref" {
		sc, err = s.withPartitionFile(full, gp, s.resolve(s.Partition.File, env), sums)
	} else {
		sc, err = s.partitioned(full, gp, mode, sums)
	}
	if err != nil {
		return nil, err
	}
	sc.facts = newFacts(sc.Data)
	cache[key] = sc
	return sc, nil
}

// loadGraph reads a graph in any format graphio.Load reads.
func loadGraph(path string) (*graphio.Graph, error) {
	return graphio.Load(path)
}

// component keeps the largest connected component of g, row-normalised
// when the scenario says so, and the indices of the kept nodes in g.
func (s *Spec) component(full *graphio.Graph) (*graphio.Graph, []int) {
	g, kept := graphio.LargestComponent(full)
	if s.Normalize {
		g = graphio.RowNormalize(g)
	}
	return g, kept
}

// partitioned forms the clients of the largest component with a
// partitioner after drawing the split (docs/method.md#data-and-splits).
// graphSums returns the checksums of the graph's files.
func (s *Spec) partitioned(full *graphio.Graph, path, mode string, graphSums func() ([]sim.DataFile, error)) (*Scenario, error) {
	part, err := partitioner(mode)
	if err != nil {
		return nil, err
	}
	g, _ := s.component(full)
	if s.Clients > g.N() {
		return nil, s.errAt("clients", "%d, but the largest component of %s has %d nodes", s.Clients, path, g.N())
	}
	roles, err := graphio.SplitSeeded(g.N(), s.Partition.Seed, s.Train, s.Test)
	if err != nil {
		return nil, err
	}
	assign, how, err := part(g, s.Clients, s.Partition.Seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	clients, err := graphio.Partition(g, assign, roles, s.Clients)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc := &Scenario{
		Data:      &sim.Data{Clients: clients, NumFeatures: g.NumFeatures(), NumClasses: g.NumClasses},
		Partition: fmt.Sprintf("%s, edge cut %d", how, graphio.EdgeCut(g, assign)),
	}
	if sc.Files, err = graphSums(); err != nil {
		return nil, err
	}
	return sc, nil
}

// withPartitionFile forms the clients from a partition file (nodes,
// client, split) over the graph's largest component; graphSums returns
// the checksums of the graph's files.
func (s *Spec) withPartitionFile(full *graphio.Graph, graphPath, partPath string, graphSums func() ([]sim.DataFile, error)) (*Scenario, error) {
	g, kept := s.component(full)
	var nodes, assign []int
	var roles []graphio.Role
	var err error
	if rest, ok := strings.CutPrefix(partPath, embeddedPrefix); ok {
		b, _ := embeddedRef(rest)
		nodes, assign, roles, err = graphio.LoadPartitionBytes(partPath, b, full)
	} else {
		nodes, assign, roles, err = graphio.LoadPartition(partPath, full)
	}
	if err != nil {
		return nil, err
	}
	if len(nodes) != len(kept) {
		return nil, fmt.Errorf("%s: %d nodes, but the largest component of %s has %d", partPath, len(nodes), graphPath, len(kept))
	}
	for i := range nodes {
		if nodes[i] != kept[i] {
			return nil, fmt.Errorf("%s: node %d is %d, but the largest component of %s has %d there", partPath, i, nodes[i], graphPath, kept[i])
		}
	}
	k := 0
	for _, c := range assign {
		k = max(k, c+1)
	}
	if k != s.Clients {
		return nil, s.errAt("clients", "%d, but partition file %s has %d clients", s.Clients, partPath, k)
	}
	clients, err := graphio.Partition(g, assign, roles, k)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", partPath, err)
	}
	sc := &Scenario{
		Data:      &sim.Data{Clients: clients, NumFeatures: g.NumFeatures(), NumClasses: g.NumClasses},
		Partition: fmt.Sprintf("ref %s, edge cut %d", partPath, graphio.EdgeCut(g, assign)),
	}
	if sc.Files, err = graphSums(); err != nil {
		return nil, err
	}
	fs, err := checksums(partPath)
	if err != nil {
		return nil, err
	}
	sc.Files = append(sc.Files, fs...)
	return sc, nil
}
