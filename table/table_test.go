package table

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/internal/tiny"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

func tinyOptions(dir string, seeds int) Options {
	return Options{
		Kind: Main, Datasets: []string{"tiny"}, Clients: []int{4}, Algos: []sim.Algorithm{methods.FedAvg, methods.FedProx},
		Seeds: seeds, Seed: 1, Out: dir, Base: func(c *sim.Config) error { c.Workers = 1; return nil },
		Lookup: func(ds string, k int) (*presets.Preset, error) {
			return tiny.Preset(ds+"-"+strconv.Itoa(k), k), nil
		},
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
	}
	return n
}

// TestRunResumes runs a tiny table, runs it again (nothing recomputed),
// extends it by a seed (only the new runs), and survives a cut line.
func TestRunResumes(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := Run(ctx, tinyOptions(dir, 2))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mine != 4 || st.Ran != 4 || st.Reused != 0 {
		t.Fatalf("first run: %+v, want 4 planned, 4 run", st)
	}
	results := filepath.Join(dir, study.ResultsFile)
	md := filepath.Join(dir, MarkdownFile(Main))
	first, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if n := countLines(t, results); n != 4 {
		t.Fatalf("%d result lines, want 4", n)
	}

	st, err = Run(ctx, tinyOptions(dir, 2))
	if err != nil {
		t.Fatal(err)
	}
	if st.Ran != 0 || st.Reused != 4 {
		t.Fatalf("second run: %+v, want everything reused", st)
	}
	if n := countLines(t, results); n != 4 {
		t.Fatalf("second run appended: %d lines", n)
	}
	if again, _ := os.ReadFile(md); string(again) != string(first) {
		t.Errorf("the table changed without new runs:\n%s\nvs\n%s", first, again)
	}

	// A crash mid-write leaves a cut line: it is skipped, and the next
	// result starts on a line of its own.
	f, err := os.OpenFile(results, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"dataset":"tiny","clients":4,"al`)
	f.Close()
	st, err = Run(ctx, tinyOptions(dir, 3))
	if err != nil {
		t.Fatal(err)
	}
	if st.Ran != 2 || st.Reused != 4 {
		t.Fatalf("third seed: %+v, want 2 run and 4 reused", st)
	}
	store, err := study.OpenStore(dir, study.ResultsFile)
	if err != nil || store.Skipped[study.ResultsFile].Torn != 1 || len(store.Records()) != 6 {
		t.Fatalf("OpenStore: %d results, %d torn, %v; want 6 and 1", len(store.Records()), store.Skipped[study.ResultsFile].Torn, err)
	}
	for _, r := range store.Records() {
		c, err := r.Config()
		if err != nil || r.Scenario != "tiny-4" || c.Rounds != 3 || c.Hidden != 8 || r.TestAtBestVal <= 0 || c.Algo != r.Algo || c.Seed != r.Seed ||
			r.Labels[LabelDataset] != "tiny" || r.Labels[LabelClients] != "4" || len(r.Test) != 3 {
			t.Errorf("result %+v (%v)", r, err)
		}
	}
	text, _ := os.ReadFile(md)
	// The paper has no value for "tiny": the title and the settings line
	// say so and give the presets' rounds and epochs, not Table 1's.
	for _, want := range []string{"Runs finished: 6 of 6.", "| FedAvg |", "| FedProx |", "4 clients",
		"# FedAux and its baselines beyond the paper's datasets", "the FedAux paper has no value for these datasets",
		"Settings: rounds and epochs as the presets (3 x 1 for tiny);"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}

	// A rounds override is a different run.
	o := tinyOptions(dir, 1)
	o.Base = func(c *sim.Config) error { c.Rounds, c.Workers = 2, 1; return nil }
	if st, err = Run(ctx, o); err != nil || st.Ran != 2 {
		t.Fatalf("rounds override: %+v, %v; want 2 new runs", st, err)
	}
	if text, _ := os.ReadFile(md); !strings.Contains(string(text), "**overridden: rounds 2 (preset: 3)**") {
		t.Errorf("table does not state the rounds override:\n%s", text)
	}
	// Another mu re-runs FedProx only.
	o = tinyOptions(dir, 1)
	o.Base = func(c *sim.Config) error { c.Workers = 1; return c.Set("mu", "0.5") }
	if st, err = Run(ctx, o); err != nil || st.Ran != 1 || st.Reused != 1 {
		t.Fatalf("mu override: %+v, %v; want fedprox run, fedavg reused", st, err)
	}
	text, _ = os.ReadFile(md)
	if !strings.Contains(string(text), "FedProx mu=0.5") {
		t.Errorf("table does not state mu:\n%s", text)
	}
}

// TestRunReuses makes a table from another table's runs: the runs they
// share are copied, not run, and give the same table; a shard copies only
// its own; a missing directory is an error.
func TestRunReuses(t *testing.T) {
	ctx := context.Background()
	from := t.TempDir()
	if _, err := Run(ctx, tinyOptions(from, 1)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := tinyOptions(dir, 2)
	o.Reuse = []string{from}
	st, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reused != 2 || st.Ran != 2 {
		t.Fatalf("%+v, want the 2 runs of seed 1 reused and the 2 of seed 2 run", st)
	}
	whole := t.TempDir()
	if _, err := Run(ctx, tinyOptions(whole, 2)); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, MarkdownFile(Main)))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(whole, MarkdownFile(Main)))
	if err != nil {
		t.Fatal(err)
	}
	if withoutCompute(got) != withoutCompute(want) {
		t.Errorf("table with reused runs:\n%s\nwant (all run):\n%s", got, want)
	}
	if !strings.Contains(string(got), ComputeLine) {
		t.Errorf("table without its compute time:\n%s", got)
	}

	o = tinyOptions(t.TempDir(), 1)
	o.Reuse, o.Shard = []string{from}, study.Shard{Index: 1, Count: 2}
	if st, err := Run(ctx, o); err != nil || st.Mine != 1 || st.Reused != 1 || st.Ran != 0 {
		t.Errorf("shard 1/2: %+v, %v; want its 1 run reused", st, err)
	}
	o = tinyOptions(t.TempDir(), 1)
	o.Reuse = []string{filepath.Join(from, "none")}
	if _, err := Run(ctx, o); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing reuse directory: %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	o := tinyOptions(t.TempDir(), 1)
	o.Algos = []sim.Algorithm{"fedsgd"}
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "fedsgd") {
		t.Errorf("unknown algorithm: %v", err)
	}
	o = tinyOptions(t.TempDir(), 0)
	if _, err := Run(context.Background(), o); err == nil {
		t.Error("zero seeds accepted")
	}
	if _, _, _, err := Defaults("figure"); err == nil {
		t.Error("unknown table kind accepted")
	}
	for _, kind := range []string{"bogus", ""} {
		o = tinyOptions(t.TempDir(), 1)
		o.Kind = kind
		want := fmt.Sprintf("table: kind = %q, want main, ablation or transfer", kind)
		if _, err := Run(context.Background(), o); err == nil || err.Error() != want {
			t.Errorf("Run with kind %q: %v, want %q", kind, err, want)
		}
		if _, err := Load(o); err == nil || err.Error() != want {
			t.Errorf("Load with kind %q: %v, want %q", kind, err, want)
		}
	}
}

func TestFormatCell(t *testing.T) {
	tests := []struct {
		accs  []float64
		seeds int
		algo  sim.Algorithm
		ds    string
		k     int
		want  string
	}{
		{[]float64{82, 84}, 2, "fedaux", "cora", 10, "83.00 ± 1.00 (paper 82.05, +0.95)"},
		{[]float64{80}, 3, "fedavg_mask", "cora", 10, "80.00 ± 0.00 [1/3] (paper 78.98, +1.02)"},
		{nil, 3, "fedpub", "photo", 20, "— (paper 90.59)"},
		{[]float64{50}, 1, "fedaux", "tiny", 4, "50.00 ± 0.00"},
		// The +APV variants have no paper value.
		{[]float64{81, 83}, 2, "fedgta_apv", "cora", 10, "82.00 ± 1.00"},
		{nil, 3, "fedsage_apv", "cora", 10, "—"},
	}
	for _, tt := range tests {
		if got := formatCell(tt.accs, tt.seeds, tt.algo, tt.ds, tt.k); got != tt.want {
			t.Errorf("formatCell(%v, %s %s-%d) = %q, want %q", tt.accs, tt.algo, tt.ds, tt.k, got, tt.want)
		}
	}
}

// TestPaperMatchesSpec compares the transcribed values with the tables
// of the specification the project was built from, when it is at hand.
func TestPaperMatchesSpec(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "shared", "docs", "fedaux-spec.md"))
	if err != nil {
		t.Skip("spec not found:", err)
	}
	algoOf := map[string]string{
		"Local": "local", "FedAvg": "fedavg", "FedProx": "fedprox", "FedPer": "fedper", "GCFL": "gcfl",
		"FedGNN": "fedgnn", "FedGTA": "fedgta", "FedSage+": "fedsage_plus", "FED-PUB": "fedpub", "FedAux": "fedaux",
		"FedAux_hard": "fedaux_hard", "FedAvg_mask": "fedavg_mask",
	}
	var header []string
	checked := 0
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == "method" {
			header = cells[1:]
			continue
		}
		algo, ok := algoOf[cells[0]]
		if !ok || header == nil {
			continue
		}
		for i, c := range cells[1:] {
			f := strings.Fields(header[i]) // "Cora 5"
			k, _ := strconv.Atoi(f[1])
			want, _ := strconv.ParseFloat(c, 64)
			if got, ok := Paper(sim.Algorithm(algo), strings.ToLower(f[0]), k); !ok || got != want {
				t.Errorf("%s %s: Paper = %v (%v), spec %v", algo, header[i], got, ok, want)
			}
			checked++
		}
	}
	re := regexp.MustCompile(`(FedAux_hard|FedAvg_mask) ((?:[A-Za-z]+ [0-9.]+[, ]*)+)`)
	for _, m := range re.FindAllStringSubmatch(strings.ReplaceAll(string(b), "\n", " "), -1) {
		f := strings.Fields(strings.ReplaceAll(m[2], ",", " "))
		for i := 0; i+1 < len(f); i += 2 {
			want, _ := strconv.ParseFloat(strings.TrimSuffix(f[i+1], "."), 64)
			if got, ok := Paper(sim.Algorithm(algoOf[m[1]]), strings.ToLower(f[i]), 10); !ok || got != want {
				t.Errorf("%s %s: Paper = %v (%v), spec %v", m[1], f[i], got, ok, want)
			}
			checked++
		}
	}
	if checked != 180+8 {
		t.Errorf("checked %d values, want 188", checked)
	}
}

// TestDefaults checks the grids: Table 1's methods, in the paper's
// order, on four datasets, the ablations read against FedAux on 10
// clients, and each method beside its +APV variant on 10 clients.
func TestDefaults(t *testing.T) {
	tests := []struct {
		kind    string
		clients []int
		algos   []sim.Algorithm
	}{
		{Main, []int{5, 10, 20}, []sim.Algorithm{"local", "fedavg", "fedprox", "fedper", "gcfl", "fedgnn", "fedgta", "fedsage_plus", "fedpub", "fedaux"}},
		{Ablation, []int{10}, []sim.Algorithm{"fedaux", "fedaux_hard", "fedavg_mask"}},
		{Transfer, []int{10}, []sim.Algorithm{"fedpub", "fedpub_apv", "fedgta", "fedgta_apv", "fedsage_plus", "fedsage_apv"}},
	}
	for _, tt := range tests {
		ds, clients, algos, err := Defaults(tt.kind)
		if err != nil || len(ds) == 0 || !slices.Equal(clients, tt.clients) || !slices.Equal(algos, tt.algos) {
			t.Errorf("Defaults(%q) = %v, %v, %v, %v; want clients %v, algos %v", tt.kind, ds, clients, algos, err, tt.clients, tt.algos)
		}
	}
}

// TestRankLine ranks FedAux's mean among the table's methods, beside its
// paper rank among the same methods (none where the paper gives FedAux's
// value alone), and says nothing of an unfinished client count.
func TestRankLine(t *testing.T) {
	o := &Options{Algos: []sim.Algorithm{methods.Local, methods.FedAvg, methods.FedAux}, Clients: []int{5, 10}}
	means := map[int]map[sim.Algorithm]float64{
		5:  {methods.Local: 82, methods.FedAvg: 70, methods.FedAux: 81},
		10: {methods.Local: 80, methods.FedAux: 81}, // FedAvg unfinished
	}
	got := o.rankLine("cora", means)
	want := "FedAux's rank by mean: 5 clients 2 of 3 (paper 1 of 3).\n\n"
	if got != want {
		t.Errorf("rankLine = %q, want %q", got, want)
	}
	// The paper gives Amazon-Photo's value of FedAux alone among these.
	o.Algos = []sim.Algorithm{methods.FedAux, methods.FedAuxHard, methods.FedAvgMask}
	photo := map[int]map[sim.Algorithm]float64{10: {methods.FedAux: 93, methods.FedAuxHard: 92, methods.FedAvgMask: 94}}
	if got, want := o.rankLine("photo", photo), "FedAux's rank by mean: 10 clients 2 of 3.\n\n"; got != want {
		t.Errorf("photo: rankLine = %q, want %q", got, want)
	}
	o.Algos = []sim.Algorithm{methods.Local, methods.FedAvg}
	if got := o.rankLine("cora", means); got != "" {
		t.Errorf("without FedAux: %q, want nothing", got)
	}
}

// TestAlgoSettings states an algorithm's own settings once where every
// dataset ran it alike, and each dataset's where they differ (FedGTA's
// presets differ by dataset).
func TestAlgoSettings(t *testing.T) {
	o := &Options{Datasets: []string{"cora", "citeseer", "computer"}, Clients: []int{5, 10}, Seed: 42}
	g := &grid{byPos: map[pos]*study.Cell{}}
	mu := map[string]float64{"cora": 0.01, "citeseer": 0.5, "computer": 0.01}
	for _, ds := range o.Datasets {
		for _, a := range []sim.Algorithm{methods.FedProx, methods.FedPer} {
			cfg := sim.DefaultConfig()
			cfg.Algo = a
			if err := cfg.Set("mu", fmt.Sprint(mu[ds])); err != nil {
				t.Fatal(err)
			}
			g.byPos[pos{ds, 10, a, 42}] = &study.Cell{Config: cfg}
		}
	}
	if got, want := o.algoSettings(g, methods.FedProx), "mu=0.01 (Cora, Amazon-Computer) / mu=0.5 (CiteSeer)"; got != want {
		t.Errorf("FedProx: %q, want %q", got, want)
	}
	if err := g.byPos[pos{"citeseer", 10, methods.FedProx, 42}].Config.Set("mu", "0.01"); err != nil {
		t.Fatal(err)
	}
	if got, want := o.algoSettings(g, methods.FedProx), "mu=0.01"; got != want {
		t.Errorf("FedProx, one mu: %q, want %q", got, want)
	}
	if got := o.algoSettings(g, methods.FedPer); got != "" {
		t.Errorf("FedPer has no settings of its own: %q", got)
	}
}

// withoutCompute drops the compute time line, the one line that differs
// between tables of the same results computed at other times.
func withoutCompute(md []byte) string {
	var out []string
	for _, l := range strings.Split(string(md), "\n") {
		if !strings.HasPrefix(l, ComputeLine) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestHoursMinutes(t *testing.T) {
	for secs, want := range map[float64]string{40: "40 s", 59.4: "59 s", 60: "1 min", 719: "12 min", 13024: "3 h 37 min", 5735: "1 h 36 min"} {
		if got := hoursMinutes(secs); got != want {
			t.Errorf("hoursMinutes(%g) = %q, want %q", secs, got, want)
		}
	}
}

// TestCPUClause checks the compute line's statement of CPU time: absent
// when no run records it, "every run" when all do, and the count when
// only some do (records written before CPU time was kept).
func TestCPUClause(t *testing.T) {
	for _, c := range []struct {
		cpu            float64
		with, finished int
		want           string
	}{
		{0, 0, 4, ""},
		{7260, 4, 4, "; CPU time 2 h 1 min for every run"},
		{90, 1, 4, "; CPU time 2 min for the 1 of 4 runs that record it"},
	} {
		if got := cpuClause(c.cpu, c.with, c.finished); got != c.want {
			t.Errorf("cpuClause(%g, %d, %d) = %q, want %q", c.cpu, c.with, c.finished, got, c.want)
		}
	}
}

// TestRunLookupWithoutFirstClients runs a table whose Lookup has no
// preset for the first client count: its cells are dashes, the others
// run.
func TestRunLookupWithoutFirstClients(t *testing.T) {
	dir := t.TempDir()
	o := tinyOptions(dir, 1)
	o.Clients = []int{3, 4}
	o.Lookup = func(ds string, k int) (*presets.Preset, error) {
		if k == 3 {
			return nil, nil
		}
		return tiny.Preset(ds+"-"+strconv.Itoa(k), k), nil
	}
	st, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Ran != 2 {
		t.Errorf("%+v, want the 2 runs of 4 clients", st)
	}
	text, err := os.ReadFile(filepath.Join(dir, MarkdownFile(Main)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "| method | 3 clients | 4 clients |") || !strings.Contains(string(text), "| FedAvg | – |") {
		t.Errorf("table:\n%s", text)
	}
}
