package sim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

func TestEngineDeterministicAcrossWorkers(t *testing.T) {
	for _, algo := range sim.Algorithms() {
		t.Run(string(algo), func(t *testing.T) {
			var runs [][]sim.RoundReport
			for _, workers := range []int{1, 3, 8} {
				c := sim.SmallConfig(algo)
				c.Workers = workers
				if slices.Contains(sim.AlgorithmSettings(algo), "gen_rounds") {
					// FedSage+: two generator rounds, then two of the
					// classifier on the mended graphs (the default, 10,
					// would leave all four in the generator phase).
					if err := c.Set("gen_rounds", "2"); err != nil {
						t.Fatal(err)
					}
				}
				e := sim.RunEngine(t, c, sim.SmallData(t, 7), sim.WantAll)
				runs = append(runs, sim.StripTimes(e.Reports()))
			}
			for i := 1; i < len(runs); i++ {
				if !reflect.DeepEqual(runs[0], runs[i]) {
					t.Fatalf("reports differ between worker counts")
				}
			}
			if len(runs[0]) != 4 {
				t.Fatalf("%d reports, want 4", len(runs[0]))
			}
		})
	}
}

func TestEngineSeedChangesResult(t *testing.T) {
	run := func(seed uint64) []sim.RoundReport {
		c := sim.SmallConfig("fedaux")
		c.Seed = seed
		e := sim.RunEngine(t, c, sim.SmallData(t, 7))
		return sim.StripTimes(e.Reports())
	}
	if reflect.DeepEqual(run(1), run(2)) {
		t.Error("seeds 1 and 2 gave identical runs")
	}
}

func TestStrategyWeights(t *testing.T) {
	tests := []struct {
		algo    sim.Algorithm
		uniform bool
		none    bool
		hasSim  bool
	}{
		{"fedaux", false, false, true},
		{"fedavg", true, false, false},
		{"local", false, true, false},
	}
	for _, tt := range tests {
		e, err := sim.New(sim.SmallConfig(tt.algo), sim.SmallData(t, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Want(sim.MatrixGroundTruth)
		rep, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if tt.none != (rep.Weights == nil) || tt.hasSim != (rep.Similarity != nil) {
			t.Fatalf("%s: weights nil %v, similarity nil %v", tt.algo, rep.Weights == nil, rep.Similarity == nil)
		}
		if rep.GroundTruth == nil || len(rep.GroundTruth) != 8 {
			t.Errorf("%s: ground truth similarity missing", tt.algo)
		}
		for i, row := range rep.Weights {
			for j, v := range row {
				if tt.uniform && v != 1.0/8 {
					t.Fatalf("%s: w[%d][%d] = %v, want 1/8", tt.algo, i, j, v)
				}
			}
			if !tt.uniform && row[i] <= row[(i+1)%8]-1e-12 && rep.Similarity[i][(i+1)%8] < 1 {
				t.Errorf("%s: self weight %v below another %v", tt.algo, row[i], row[(i+1)%8])
			}
		}
	}
}

func TestKnobsAndLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	log, err := sim.OpenRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	c := sim.SmallConfig("fedaux")
	c.Rounds = 3
	e, err := sim.New(c, sim.SmallData(t, 5), log)
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Write(e.Header()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.Step(ctx); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		name sim.Knob
		v    float64
	}{{"alpha", -1}, {"sigma", 0}, {"gamma", 1}} {
		if err := e.SetKnob(bad.name, bad.v); err == nil {
			t.Errorf("SetKnob(%s, %v) accepted", bad.name, bad.v)
		}
	}
	if err := e.SetKnob("alpha", 2.5); err != nil {
		t.Fatal(err)
	}
	if err := e.SetKnob("sigma", 0.5); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	reps := e.Reports()
	if reps[0].Alpha != 10 || reps[1].Alpha != 2.5 || reps[1].Sigma != 0.5 {
		t.Errorf("knobs in reports: round 1 alpha %v, round 2 alpha %v sigma %v", reps[0].Alpha, reps[1].Alpha, reps[1].Sigma)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var types []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line does not parse: %v", err)
		}
		types = append(types, m["type"].(string))
		if m["type"] == "control" && m["round"].(float64) != 2 {
			t.Errorf("control line %v: want round 2 (the first round using the new value)", m)
		}
	}
	got := strings.Join(types, ",")
	if want := "run,round,control,control,round,round,summary"; got != want {
		t.Errorf("log line types %s, want %s", got, want)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		mod  func(*sim.Config)
		flag string
	}{
		{func(c *sim.Config) { c.Algo = "fedsgd" }, "algo"},
		{func(c *sim.Config) { c.Rounds = 0 }, "rounds"},
		{func(c *sim.Config) { c.LR = -1 }, "lr"},
		{func(c *sim.Config) { c.Alpha = -1 }, "alpha"},
		{func(c *sim.Config) { c.Sigma = 0 }, "sigma"},
		{func(c *sim.Config) { c.Kernel = "gpu" }, "kernel"},
		{func(c *sim.Config) { c.Dropout = 1 }, "dropout"},
		{func(c *sim.Config) { c.Score = 9 }, "score"},
		{func(c *sim.Config) { c.Score = -1 }, "score"},
		{func(c *sim.Config) { c.Source = "cosine" }, "sim"},
		{func(c *sim.Config) { c.Precision = 7 }, "precision"},
	}
	for _, tt := range tests {
		c := sim.DefaultConfig()
		tt.mod(&c)
		err := c.Validate()
		if sim.SettingKey(err) != tt.flag {
			t.Errorf("Validate = %v, want a SettingError naming %s", err, tt.flag)
		}
	}
	c := sim.DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Errorf("default config invalid: %v", err)
	}
}

// newOf returns the New of the registered method algo.
func newOf(algo sim.Algorithm) func(*sim.Config) (sim.Strategy, error) {
	m, ok := sim.LookupMethod(algo)
	if !ok {
		panic("no method " + algo)
	}
	return m.New
}

// newStrategy returns the strategy of method algo for DefaultConfig.
func newStrategy(t testing.TB, algo sim.Algorithm) sim.Strategy {
	t.Helper()
	c := sim.DefaultConfig()
	c.Algo = algo
	st, err := newOf(algo)(&c)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestReportsAndKnobHistoryAreCopies checks that a caller's edits of the
// slices Reports and KnobHistory return do not reach the engine.
func TestReportsAndKnobHistoryAreCopies(t *testing.T) {
	c := sim.SmallConfig("fedavg")
	c.Rounds = 3
	e, err := sim.New(c, sim.SmallData(t, 5), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.SetKnob("alpha", 2.5); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	want, first := e.Summary(), e.Reports()[0]
	reps := e.Reports()
	reps[0] = &sim.RoundReport{Round: 1, MeanVal: 100, MeanTest: 100}
	slices.Reverse(reps)
	if got := e.Summary(); !reflect.DeepEqual(got, want) || e.Reports()[0] != first {
		t.Errorf("editing Reports' slice changed the engine: summary %+v, want %+v", got, want)
	}
	h := e.KnobHistory()
	h[0].To = 99
	if got := e.KnobHistory()[0].To; got != 2.5 {
		t.Errorf("editing KnobHistory's slice changed the engine's history: alpha to %v, want 2.5", got)
	}
}

// TestConcurrentStepRefused runs a Step while another is in its round:
// the second returns ErrBusy instead of racing with the first, which
// goes on, and so does the engine.
func TestConcurrentStepRefused(t *testing.T) {
	c := sim.SmallConfig("fedavg")
	c.Rounds = 3
	e, err := sim.New(c, sim.SmallData(t, 5), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	inRound, second := make(chan struct{}), make(chan error)
	var once sync.Once
	e.OnProgress = func(done, total int) {
		once.Do(func() {
			close(inRound)
			<-second // wait until the second call has returned
		})
	}
	first := make(chan error)
	go func() {
		_, err := e.Step(ctx)
		first <- err
	}()
	<-inRound
	var errs [2]error
	_, errs[0] = e.Step(ctx)
	_, errs[1] = e.Run(ctx, nil)
	close(second)
	if err := <-first; err != nil {
		t.Fatalf("first Step: %v", err)
	}
	for i, name := range []string{"Step", "Run"} {
		if !errors.Is(errs[i], sim.ErrBusy) {
			t.Errorf("%s during a Step = %v, want ErrBusy", name, errs[i])
		}
	}
	if _, err := e.Run(ctx, nil); err != nil || e.Round() != 3 {
		t.Errorf("Run after: %v at round %d, want 3 rounds", err, e.Round())
	}
}

// rawLogLines returns the lines of the run log at path, and the type of
// each.
func rawLogLines(t *testing.T, path string) (lines []string, types []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var v struct{ Type string }
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%s: %q: %v", path, l, err)
		}
		lines, types = append(lines, l), append(types, v.Type)
	}
	return lines, types
}

// TestLogStartsWithRunLine: a run log given to New, Fork or
// Checkpoint.Resume starts with a run line whether or not the caller
// wrote one (the caller's, once, when it did; the fork's and the resumed
// run's the same), so that OpenRunLog takes it back.
func TestLogStartsWithRunLine(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	c := sim.SmallConfig("fedaux")
	c.Rounds = 2
	open := func(name string) (*sim.RunLog, string) {
		path := filepath.Join(dir, name)
		log, err := sim.OpenRunLog(path)
		if err != nil {
			t.Fatal(err)
		}
		return log, path
	}
	for _, own := range []bool{false, true} {
		log, path := open(fmt.Sprintf("run-%v.jsonl", own))
		e, err := sim.New(c, sim.SmallData(t, 5), log)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.SetFaults(sim.Faults{Dropout: 0.25}); err != nil {
			t.Fatal(err)
		}
		h := e.Header()
		if own { // as presets.NewEngine does
			h.Preset = "mine"
			if err := log.Write(h); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			e.SetMeta(sim.Meta{Header: b})
		}
		if _, err := e.Step(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.SaveCheckpoint(filepath.Join(dir, fmt.Sprintf("ck-%v", own))); err != nil {
			t.Fatal(err)
		}
		// A fork into a new log, its source without SetMeta.
		forkLog, forkPath := open(fmt.Sprintf("fork-%v.jsonl", own))
		f, err := e.Fork(forkLog)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Run(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Run(ctx, nil); err != nil {
			t.Fatal(err)
		}
		// The checkpoint resumed into a new log.
		ck, err := sim.LoadCheckpoint(filepath.Join(dir, fmt.Sprintf("ck-%v", own)))
		if err != nil {
			t.Fatal(err)
		}
		resLog, resPath := open(fmt.Sprintf("resumed-%v.jsonl", own))
		r, err := ck.Resume(sim.SmallData(t, 5), resLog)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for _, l := range []*sim.RunLog{log, forkLog, resLog} {
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}
		lines, types := rawLogLines(t, path)
		if want := []string{"run", "round", "round", "summary"}; !slices.Equal(types, want) {
			t.Errorf("own run line %v: lines %v, want %v", own, types, want)
		}
		var got sim.RunHeader
		if err := json.Unmarshal([]byte(lines[0]), &got); err != nil || got.ClientDropout != 0.25 || (got.Preset == "mine") != own {
			t.Errorf("own run line %v: run line %s (%v), want client_dropout 0.25 and the caller's when it wrote one", own, lines[0], err)
		}
		for _, p := range []string{forkPath, resPath} {
			flines, ftypes := rawLogLines(t, p)
			if want := []string{"run", "round", "round", "summary"}; !slices.Equal(ftypes, want) {
				t.Errorf("own run line %v: %s: lines %v, want %v", own, filepath.Base(p), ftypes, want)
			}
			if flines[1] != lines[1] {
				t.Errorf("own run line %v: %s: round 1 differs", own, filepath.Base(p))
			}
			if flines[0] != lines[0] {
				t.Errorf("own run line %v: %s: run line %s, want the original's %s", own, filepath.Base(p), flines[0], lines[0])
			}
		}
		for _, p := range []string{path, forkPath, resPath} {
			l, err := sim.OpenRunLog(p)
			if err != nil {
				t.Errorf("OpenRunLog(%s): %v", filepath.Base(p), err)
				continue
			}
			l.Close()
		}
	}
}
