package presets

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/internal/datadir"
	"github.com/fedaux/fedaux/sim"
)

// dataEnv returns an Env on the shared data directory, or skips the test
// (fails it when CI is set) if cora.npz is not there.
func dataEnv(t *testing.T) Env {
	t.Helper()
	return Env{DataDir: filepath.Dir(datadir.File(t, "cora.npz"))}
}

func TestGetUnknownListsPresets(t *testing.T) {
	_, err := Get("cora-11")
	if err == nil || !strings.Contains(err.Error(), "cora-10-ref") || !strings.Contains(err.Error(), "sbm") {
		t.Errorf("Get(cora-11) = %v, want an error listing the presets", err)
	}
	// A file that is not a .toml: the error says what its name lacks.
	for _, name := range []string{"/tmp/scenario.txt", "my-scenario.yaml", "dir/sbm"} {
		if _, err := Get(name); err == nil || !strings.Contains(err.Error(), "a scenario file's name ends in .toml") {
			t.Errorf("Get(%q) = %v, want an error saying a scenario file ends in .toml", name, err)
		}
	}
	for _, name := range []string{"sbm", "cora-10-ref", "cora-5", "citeseer-20", "computer-10", "photo-5", "pubmed-10", "arxiv-20"} {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Description == "" {
			t.Errorf("%s has no description", name)
		}
		c := p.Config()
		if err := c.Validate(); err != nil {
			t.Errorf("%s: default config invalid: %v", name, err)
		}
	}
	if c, _ := Get("computer-10"); c.Config().Rounds != 200 || c.Config().Epochs != 2 {
		t.Errorf("computer-10 schedule %d x %d, want 200 x 2 (docs/method.md#hyperparameters)", c.Config().Rounds, c.Config().Epochs)
	}
}

func TestCoraRefMatchesFixture(t *testing.T) {
	env := dataEnv(t)
	p, _ := Get("cora-10-ref")
	sc, err := p.Build(env, 1)
	if err != nil {
		t.Fatal(err)
	}
	wantNodes := []int{244, 247, 241, 244, 254, 253, 253, 253, 248, 248}
	wantTrain := []int{48, 41, 51, 55, 48, 46, 61, 44, 48, 55}
	for k, c := range sc.Data.Clients {
		tr, _, _ := graphio.CountRoles(c.Roles)
		if c.Graph.N() != wantNodes[k] || tr != wantTrain[k] {
			t.Errorf("client %d: %d nodes, %d train; want %d, %d", k, c.Graph.N(), tr, wantNodes[k], wantTrain[k])
		}
	}
	if len(sc.Files) != 2 || sc.Files[0].SHA256 != "f7ad17c72a69b342eeff5c9f64b5d41893720269132c8e479960a011f5cd674a" {
		t.Errorf("data files %v: want cora.npz with its README checksum", sc.Files)
	}
	if sc.Data.NumClasses != 7 || sc.Data.NumFeatures != 1433 {
		t.Errorf("classes %d features %d", sc.Data.NumClasses, sc.Data.NumFeatures)
	}
	f, err := sc.Facts()
	if err != nil {
		t.Fatal(err)
	}
	if xi := f["noniid"].(map[string]any)["xi"].(float64); !(xi > 0 && xi < 1) {
		t.Errorf("xi = %v", xi)
	}
}

func TestDatasetPartitionModes(t *testing.T) {
	env := dataEnv(t)
	for _, mode := range []string{"ref", "multilevel", "louvain", "label-skew", "label-skew=0.1", "random"} {
		env.Partition = mode
		p, _ := Get("cora-5")
		sc, err := p.Build(env, 1)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		word := strings.ReplaceAll(strings.Split(mode, "=")[0], "-", " ")
		if len(sc.Data.Clients) != 5 || !strings.HasPrefix(sc.Partition, word) || !strings.Contains(sc.Partition, "edge cut") {
			t.Errorf("%s: %d clients, partition %q", mode, len(sc.Data.Clients), sc.Partition)
		}
		n := 0
		for _, c := range sc.Data.Clients {
			n += c.Graph.N()
		}
		if n != 2485 {
			t.Errorf("%s: clients hold %d nodes, want the 2485 of Cora's largest component", mode, n)
		}
	}
	for _, bad := range []string{"metis", "label-skew=0", "label-skew=x", "louvain=2"} {
		env.Partition = bad
		p, _ := Get("cora-5")
		_, err := p.Build(env, 1)
		if ee := (*EnvError)(nil); !errors.As(err, &ee) || ee.Field != "Partition" || ee.Value != bad || !strings.Contains(err.Error(), "presets: Env.Partition = "+strconv.Quote(bad)+": want ") {
			t.Errorf("partition mode %q: err %v, want an EnvError naming Env.Partition", bad, err)
		}
	}
}

// TestEnvErrors checks that an Env a scenario cannot take is said as an
// EnvError naming the field: a partition mode for an SBM, ref for a
// scenario without a partition file or with its file absent, a graph
// absent from the data directory.
func TestEnvErrors(t *testing.T) {
	check := func(name string, err error, field, value, text string) {
		t.Helper()
		var ee *EnvError
		if !errors.As(err, &ee) || ee.Field != field || ee.Value != value || !strings.Contains(err.Error(), text) {
			t.Errorf("%s: %v, want an EnvError on %s = %q saying %q", name, err, field, value, text)
		}
	}
	sbm, _ := Get("sbm")
	env := Env{Partition: "louvain"}
	check("sbm", sbm.CheckEnv(env), "Partition", "louvain", `presets: Env.Partition = "louvain": scenario sbm is an SBM, whose clients are its blocks`)
	_, err := sbm.Build(env, 1)
	check("sbm build", err, "Partition", "louvain", "scenario sbm is an SBM")

	empty := t.TempDir()
	pubmed, _ := Get("pubmed-5")
	_, err = pubmed.Build(Env{DataDir: empty}, 1)
	check("pubmed-5", err, "DataDir", empty, "presets: Env.DataDir = "+strconv.Quote(empty)+": graph "+filepath.Join(empty, "pubmed.npz")+" not found")
	if !strings.HasSuffix(err.Error(), "Get it with `fedaux data get pubmed` (docs/data.md says how to place it by hand or use a mirror).") {
		t.Errorf("pubmed-5: %v, want the hint after it", err)
	}

	env = dataEnv(t)
	env.Partition = "ref"
	actor, _ := Get("actor-5")
	if actor.Available(env) {
		_, err = actor.Build(env, 1)
		check("actor-5", err, "Partition", "ref", `presets: Env.Partition = "ref": scenario actor-5 has no partition file`)
	}
	// A scenario whose partition file is absent.
	file := filepath.Join(t.TempDir(), "mine.toml")
	toml := "graph = \"cora.npz\"\nclients = 5\n[partition]\nmethod = \"file\"\nfile = \"mine.npz\"\nfallback = \"multilevel\"\n"
	if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	mine, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	_, err = mine.Build(env, 1)
	check("mine", err, "Partition", "ref", `presets: Env.Partition = "ref": reference partition `+filepath.Join(env.DataDir, "mine.npz")+" not found")
}

func TestMissingDatasetExplains(t *testing.T) {
	env := Env{DataDir: t.TempDir()}
	for name, get := range map[string]string{"pubmed-10": "pubmed", "arxiv-5": "arxiv", "cora-10-ref": "cora", "photo-20": "photo", "tolokers-5": "tolokers"} {
		p, _ := Get(name)
		_, err := p.Build(env, 1)
		if err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), "`fedaux data get "+get+"`") {
			t.Errorf("%s without data: %v; want an error naming the file and where to get it", name, err)
		}
		if p.Available(env) {
			t.Errorf("%s reported available in an empty directory", name)
		}
	}
}

func TestNamesNaturalOrder(t *testing.T) {
	names := strings.Join(Names(), " ")
	for _, pair := range [][2]string{{"cora-5", "cora-10"}, {"cora-10", "cora-10-ref"}, {"cora-10-ref", "cora-20"}, {"sbm", "sbm-arxiv"}} {
		if strings.Index(names, pair[0]+" ") > strings.Index(names, pair[1]+" ") && strings.Contains(names, pair[1]+" ") {
			t.Errorf("%s listed after %s: %s", pair[0], pair[1], names)
		}
	}
}

// TestBuildVersion checks the version's form: the release, then the
// commit when the build recorded one.
func TestBuildVersion(t *testing.T) {
	v := buildVersion("9.9.9")
	if !regexp.MustCompile(`^9\.9\.9(\+[0-9a-f]{1,7}(\.dirty)?)?$`).MatchString(v) {
		t.Errorf("buildVersion = %q, want 9.9.9 or 9.9.9+<commit>[.dirty]", v)
	}
	if !strings.HasPrefix(Version, "0.1.0") {
		t.Errorf("Version = %q", Version)
	}
}

// TestNewEngineMeta: the run line NewEngine writes is the engine's Meta
// too, so that a fork's log starts with it (it started with the rounds);
// without a log the Meta is the brief run line, computed without facts.
func TestNewEngineMeta(t *testing.T) {
	p, err := Get("sbm")
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config()
	cfg.Seed, cfg.Rounds, cfg.Hidden, cfg.Workers = 98765, 2, 8, 1
	dir := t.TempDir()
	path, forkPath := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "fork.jsonl")
	log, err := sim.OpenRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := NewEngine(p, Env{}, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	forkLog, err := sim.OpenRunLog(forkPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Fork(forkLog); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*sim.RunLog{log, forkLog} {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	first := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return line
	}
	if got, want := first(forkPath), first(path); got != want {
		t.Errorf("the fork's log starts with %.200s, want the run line %.200s", got, want)
	}
	if got := strings.TrimSpace(string(e.Meta().Header)); got != first(path) {
		t.Errorf("Meta's Header %.200s, want the run line %.200s", got, first(path))
	}

	e, sc, err := NewEngine(p, Env{}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var h sim.RunHeader
	if err := json.Unmarshal(e.Meta().Header, &h); err != nil || h.Type != "run" || h.Preset != "sbm" || h.Version != Version {
		t.Errorf("Meta's Header without a log: %s (%v), want the brief run line", e.Meta().Header, err)
	}
	if sc.facts != nil && sc.facts.m != nil {
		t.Error("facts computed for an engine without a log")
	}
}

// TestEmptyOGBDirMissing: the ogbn_arxiv directory that a failed `fedaux
// data get arxiv` leaves empty is no dataset: the arxiv presets are not
// available (`fedaux data` listed them ready) and building one says how
// to get the data; with the edge file there, the preset is available.
func TestEmptyOGBDirMissing(t *testing.T) {
	env := Env{DataDir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(env.DataDir, "ogbn_arxiv"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Get("arxiv-10")
	if err != nil {
		t.Fatal(err)
	}
	if p.Available(env) {
		t.Errorf("arxiv-10 available with an empty ogbn_arxiv; Missing = %v", p.Missing(env))
	}
	if _, err := p.Build(env, 1); err == nil || !strings.Contains(err.Error(), "`fedaux data get arxiv`") {
		t.Errorf("arxiv-10 on an empty ogbn_arxiv: %v; want the graph not found and how to get it", err)
	}
	raw := filepath.Join(env.DataDir, "ogbn_arxiv", "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(raw, "edge.csv.gz"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !p.Available(env) {
		t.Errorf("arxiv-10 not available with ogbn_arxiv/raw/edge.csv.gz; Missing = %v", p.Missing(env))
	}
}

// TestParseBytes: a size is at least one byte and an int64. NaN, Inf and
// 99999999999999999999GiB were taken (converted to a negative limit,
// which sets none) and 0.5 to a limit of 0 bytes; each is now refused,
// as -memlimit and a scenario's memlimit say.
func TestParseBytes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64 // 0: refused
	}{
		{"1700MiB", 1700 << 20}, {"2GiB", 2 << 30}, {"1.5GB", 1500000000}, {"500000000", 500000000}, {"1B", 1},
		{"0.5", 0}, {"0.5B", 0}, {"NaN", 0}, {"NaNGiB", 0}, {"Inf", 0}, {"+InfMiB", 0},
		{"99999999999999999999GiB", 0}, {"8589934592GiB", 0}, {"9223372036854775808", 0},
		{"0", 0}, {"-1GiB", 0}, {"lots", 0}, {"", 0},
	} {
		n, err := ParseBytes(tt.in)
		switch {
		case tt.want != 0 && (err != nil || n != tt.want):
			t.Errorf("ParseBytes(%q) = %d, %v, want %d", tt.in, n, err, tt.want)
		case tt.want == 0 && err == nil:
			t.Errorf("ParseBytes(%q) = %d, want an error", tt.in, n)
		case tt.want == 0 && !strings.Contains(err.Error(), "such as 1700MiB or 2GiB"):
			t.Errorf("ParseBytes(%q): %v, want what is allowed", tt.in, err)
		}
	}
}
