package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/internal/proctime"
	"github.com/fedaux/fedaux/internal/tiny"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// cells returns n tiny cells: fedavg and fedaux on seeds 1, 2, ...
func cells(n int) []*Cell {
	p := tiny.Preset("tiny-4", 4)
	var out []*Cell
	for i := 0; len(out) < n; i++ {
		for _, a := range []sim.Algorithm{methods.FedAvg, methods.FedAux} {
			c := p.Config()
			c.Algo, c.Seed, c.Workers = a, uint64(1+i), 1
			out = append(out, &Cell{Scenario: p, Config: c, Labels: map[string]string{"i": fmt.Sprint(len(out))}})
		}
	}
	return out[:n]
}

func TestKey(t *testing.T) {
	a := cells(1)[0]
	b := *a
	b.Config.Workers, b.Labels = 7, nil
	if a.Key() != b.Key() {
		t.Error("the key depends on workers or labels")
	}
	for name, mod := range map[string]func(c *Cell){
		"seed":      func(c *Cell) { c.Config.Seed++ },
		"lr":        func(c *Cell) { c.Config.LR *= 2 },
		"partition": func(c *Cell) { c.Partition = "multilevel" },
		"dropout":   func(c *Cell) { c.Dropout = 0.1 },
		"layers":    func(c *Cell) { c.Config.Layers = 3 },
	} {
		c := *a
		mod(&c)
		if c.Key() == a.Key() {
			t.Errorf("the key ignores %s", name)
		}
	}
}

func TestStoreTornLinesAndConcurrentAppends(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ResultsFile)
	if err := os.WriteFile(path, []byte(`{"key":"a","scenario":"s","algo":"fedavg","settings":{"rounds":"1"},"val":[1],"test":[1],"best_round":1,"best_val":1,"test_at_best_val":1,"final_test":1}`+"\n"+`{"key":"b","scen`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(dir, ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Records()) != 1 || s.Skipped[ResultsFile].Torn != 1 {
		t.Fatalf("%d records, %d torn; want 1 and 1", len(s.Records()), s.Skipped[ResultsFile].Torn)
	}
	// Writers with stores of their own append into one file at once.
	var wg sync.WaitGroup
	const writers, each = 8, 40
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := OpenStore(dir, ResultsFile)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range each {
				r := &Record{Key: fmt.Sprintf("w%d-%d", w, i), Scenario: "s", Algo: methods.FedAvg, Settings: map[string]string{"rounds": "200"},
					Val: make([]float64, 200), Test: make([]float64, 200), BestRound: 1}
				if err := st.Append(r); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	s, err = OpenStore(dir, ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Records()); got != 1+writers*each || s.Skipped[ResultsFile].Torn != 1 {
		t.Errorf("%d records and %d torn lines after concurrent appends, want %d and 1", got, s.Skipped[ResultsFile].Torn, 1+writers*each)
	}
}

func TestParseShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tt := range []struct {
		v     string
		count int
		env   func(string) string
		want  Shard
		err   string
	}{
		{"", 0, env(), Shard{}, ""},
		{"2/5", 0, env(), Shard{Index: 2, Count: 5}, ""},
		{"5/5", 0, env(), Shard{}, "index 5 of 5"},
		{"x", 0, env(), Shard{}, "want I/N"},
		{"a/b", 0, env(), Shard{}, "integers"},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "4"), Shard{Index: 3, Count: 4}, ""},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "1"), Shard{Index: 3, Count: 4}, ""},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "3"), Shard{}, "SLURM_ARRAY_TASK_COUNT is not"},
		// --array=0-4:2: tasks 0, 2 and 4, three of them.
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_STEP", "2"), Shard{Index: 2, Count: 3}, ""},
		// --array=1-7:3: tasks 1, 4 and 7.
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_STEP", "3"), Shard{Index: 1, Count: 3}, ""},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_STEP", "2"), Shard{}, "not on the array's step"},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_STEP", "0"), Shard{}, "want >= 1"},
		{"auto", 0, env("JOB_COMPLETION_INDEX", "1", EnvShardCount, "3"), Shard{Index: 1, Count: 3}, ""},
		{"auto", 6, env("JOB_COMPLETION_INDEX", "5"), Shard{Index: 5, Count: 6}, ""},
		{"auto", 0, env("JOB_COMPLETION_INDEX", "1"), Shard{}, EnvShardCount},
		{"auto", 0, env(), Shard{}, "neither a Slurm job array"},
		{"", -1, env(), Shard{}, `study: shard "": a shard count (-1) is for shard "auto" only`},
		{"0/2", 2, env(), Shard{}, `study: shard "0/2": a shard count (2) is for shard "auto" only`},
	} {
		got, err := ParseShard(tt.v, tt.count, tt.env)
		if tt.err != "" {
			var se *ShardError
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &se) {
				t.Errorf("ParseShard(%q) = %v, %v; want an error with %q", tt.v, got, err, tt.err)
			}
			continue
		}
		if err != nil || got.Index != tt.want.Index || got.Count != tt.want.Count {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tt.v, got, err, tt.want)
		}
	}
	if f := (Shard{Index: 1, Count: 3}).File(); f != "results-shard-1-of-3.jsonl" {
		t.Errorf("file %s", f)
	}
}

// numbers strips what differs between two runs of one cell.
func numbers(r *Record) Record {
	c := *r
	c.Seconds, c.MedianRoundSeconds, c.CPUSeconds, c.Workers, c.Finished, c.Shard, c.Labels = 0, 0, 0, 0, "", "", nil
	return c
}

// TestRunnerShardsResumeAndCheckpoints runs six cells whole, as three
// shards into one directory, and interrupted in its second cell and
// resumed from the checkpoint: every way stores the same numbers, and
// nothing finished is computed twice.
func TestRunnerShardsResumeAndCheckpoints(t *testing.T) {
	cs := cells(6)
	ctx := context.Background()
	whole, err := OpenStore(t.TempDir(), ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	st, err := (&Runner{Store: whole}).Run(ctx, cs)
	if err != nil || st.Ran != 6 {
		t.Fatalf("whole: %+v, %v", st, err)
	}
	if st, _ := (&Runner{Store: whole}).Run(ctx, cs); st.Ran != 0 || st.Reused != 6 {
		t.Errorf("rerun: %+v, want everything reused", st)
	}

	dir := t.TempDir()
	for i := range 3 {
		s, err := OpenStore(dir, Shard{Index: i, Count: 3}.File())
		if err != nil {
			t.Fatal(err)
		}
		st, err := (&Runner{Store: s, Shard: Shard{Index: i, Count: 3}}).Run(ctx, cs)
		if err != nil || st.Ran != 2 || st.Mine != 2 {
			t.Fatalf("shard %d: %+v, %v", i, st, err)
		}
	}
	merged, err := OpenStore(dir, ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		a, _ := whole.Get(c.Key())
		b, ok := merged.Get(c.Key())
		if !ok || !reflect.DeepEqual(numbers(a), numbers(b)) {
			t.Errorf("%s: sharded result differs or is missing", c)
		}
	}

	dir = t.TempDir()
	s, err := OpenStore(dir, ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	it := NewInterrupts()
	stopAt := &stopper{it: it, cell: cs[1], round: 2}
	r := &Runner{Store: s, Interrupts: it, Recorder: stopAt,
		Checkpoint: func(c *Cell) string { return filepath.Join(dir, "checkpoints", c.Key()+".ckpt") }}
	_, err = r.Run(ctx, cs)
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Round != 2 || ie.Cell != cs[1] || ie.Checkpoint == "" {
		t.Fatalf("interrupted run: %v", err)
	}
	if len(s.Records()) != 1 {
		t.Fatalf("%d records after the interrupt, want 1", len(s.Records()))
	}
	counter := &starts{}
	r = &Runner{Store: s, Recorder: counter, Checkpoint: r.Checkpoint}
	st, err = r.Run(ctx, cs)
	if err != nil || st.Ran != 5 || st.Reused != 1 {
		t.Fatalf("resumed: %+v, %v", st, err)
	}
	if counter.from[cs[1].String()] != 2 {
		t.Errorf("the interrupted cell started at round %d, want 2 (its checkpoint)", counter.from[cs[1].String()])
	}
	if _, err := os.Stat(ie.Checkpoint); !os.IsNotExist(err) {
		t.Errorf("the finished cell's checkpoint is still there: %v", err)
	}
	for _, c := range cs {
		a, _ := whole.Get(c.Key())
		b, _ := s.Get(c.Key())
		if !reflect.DeepEqual(numbers(a), numbers(b)) {
			t.Errorf("%s: interrupted and resumed result differs from the uninterrupted one", c)
		}
		if _, ok := proctime.CPU(); ok && (b.CPUSeconds <= 0 || b.CPUSeconds > b.Seconds*float64(runtime.NumCPU())+1) {
			t.Errorf("%s: cpu_seconds %g for %g s of wall time on %d CPUs", c, b.CPUSeconds, b.Seconds, runtime.NumCPU())
		}
		if b.Workers < 1 {
			t.Errorf("%s: workers %d", c, b.Workers)
		}
	}
}

// TestClockCarriesCPU checks what a cell's clock reports across a
// checkpoint: the CPU time spent before it is added to this process's,
// and a checkpoint that did not keep it leaves the cell's CPU unknown
// rather than counting only the part after the resume.
func TestClockCarriesCPU(t *testing.T) {
	if _, ok := proctime.CPU(); !ok {
		t.Skip("no CPU clock on this system")
	}
	var x float64
	spin := func() {
		for i := range 5_000_000 {
			x += float64(i)
		}
	}
	c := startClock(spent{wall: 2 * time.Second, cpu: 3 * time.Second, cpuOK: true})
	spin()
	s := c.spent()
	if !s.cpuOK || s.cpu <= 3*time.Second || s.wall <= 2*time.Second {
		t.Errorf("resumed with 3 s of CPU: %+v (x %g)", s, x)
	}
	c = startClock(spent{wall: 2 * time.Second})
	spin()
	if s := c.spent(); s.cpuOK || s.cpu != 0 || s.wall <= 2*time.Second {
		t.Errorf("resumed from a checkpoint without CPU time: %+v, want the CPU unknown", s)
	}
}

// stopper asks for a stop after a given round of a given cell (nil: the first).
type stopper struct {
	Nop
	it    *Interrupts
	cell  *Cell
	round int
}

func (s *stopper) Round(c *Cell, r *sim.RoundReport, _ sim.Summary) {
	if (s.cell == nil || c == s.cell) && r.Round == s.round {
		s.it.Stop()
	}
}

// starts records the round each cell started at.
type starts struct {
	Nop
	from map[string]int
}

func (s *starts) Start(_, _ int, c *Cell, from int) {
	if s.from == nil {
		s.from = map[string]int{}
	}
	s.from[c.String()] = from
}

// TestSeedRunResumesOnlyWhenAsked interrupts a two-seed run, checks that
// a new run with the same checkpoint path starts afresh, and that the
// resumed one carries on where the checkpoint stopped with the same
// numbers as an uninterrupted run.
func TestSeedRunResumesOnlyWhenAsked(t *testing.T) {
	c := cells(1)[0]
	ck := filepath.Join(t.TempDir(), "run.ckpt")
	whole, err := (&SeedRun{Cell: *c, Seeds: 2, Checkpoint: filepath.Join(t.TempDir(), "w.ckpt")}).Run(context.Background(), &Runner{})
	if err != nil {
		t.Fatal(err)
	}
	it := NewInterrupts()
	_, err = (&SeedRun{Cell: *c, Seeds: 2, Checkpoint: ck}).Run(context.Background(),
		&Runner{Interrupts: it, Recorder: &stopper{it: it, cell: nil, round: 2}})
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Checkpoint != ck {
		t.Fatalf("interrupted run: %v", err)
	}
	fresh := &starts{}
	if _, err := (&SeedRun{Cell: *c, Seeds: 2, Checkpoint: ck}).Run(context.Background(), &Runner{Recorder: fresh}); err != nil {
		t.Fatal(err)
	}
	for name, from := range fresh.from {
		if from != 0 {
			t.Errorf("a new run started %s at round %d, want 0", name, from)
		}
	}
	sr, _, err := ResumeSeedRun(ck, func(string) (*presets.Preset, error) { return c.Scenario, nil })
	if err != nil {
		t.Fatal(err)
	}
	resumed := &starts{}
	got, err := sr.Run(context.Background(), &Runner{Recorder: resumed})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(numbers(got[0]), numbers(whole[0])) || !reflect.DeepEqual(numbers(got[1]), numbers(whole[1])) {
		t.Errorf("resumed records differ from the uninterrupted run's")
	}
	if from := resumed.from[got[0].Scenario+" "+string(got[0].Algo)+fmt.Sprintf(" seed %d", got[0].Seed)]; from != 2 {
		t.Errorf("the resumed run started seed %d at round %d, want 2", got[0].Seed, from)
	}
}

// TestKeyNumerics pins the keys of a float64 and a float32 cell: a float64
// key moves only with sim.NumericsVersion, a float32 key with
// sim.NumericsVersion32, so that a change of one precision's arithmetic
// leaves the other's stored results in place. (At NumericsVersion32 1
// the float32 key was 4edd00c10ee8685c.)
func TestKeyNumerics(t *testing.T) {
	c := cells(1)[0]
	c32 := *c
	c32.Config.Precision = gnn.F32
	if sim.Numerics(gnn.F64) != sim.NumericsVersion || sim.Numerics(gnn.F32) != sim.NumericsVersion32 {
		t.Fatalf("Numerics: %d and %d, want %d and %d", sim.Numerics(gnn.F64), sim.Numerics(gnn.F32), sim.NumericsVersion, sim.NumericsVersion32)
	}
	for _, tc := range []struct {
		c    *Cell
		want string
	}{{c, "da5818750fda971f"}, {&c32, "3482ec6d52b2538f"}} {
		if got := tc.c.Key(); got != tc.want {
			t.Errorf("%s key %s, want %s", tc.c.Config.Precision, got, tc.want)
		}
	}
}
