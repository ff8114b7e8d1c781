package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// logLines parses every line of a run log, failing on one that does not
// parse, and drops the wall-clock fields.
func logLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("%s: last line has no newline", path)
	}
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s: line does not parse: %v: %.80s", path, err, line)
		}
		delete(m, "seconds")
		delete(m, "workers")
		out = append(out, m)
	}
	return out
}

// scenario is a run to checkpoint: its settings, faults and knob changes.
type scenario struct {
	name    string
	cfg     sim.Config
	dropout float64
	knobs   map[int]float64 // round before which the knob changes, and its value
	knob    sim.Knob        // the knob: alpha when ""
}

func (s scenario) engine(t *testing.T, workers int, log *sim.RunLog) *sim.Engine {
	t.Helper()
	c := s.cfg
	c.Workers = workers
	e, err := sim.New(c, sim.SmallData(t, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetFaults(sim.Faults{Dropout: s.dropout}); err != nil {
		t.Fatal(err)
	}
	e.SetLog(log)
	if err := log.Write(e.Header()); err != nil {
		t.Fatal(err)
	}
	e.SetMeta(sim.Meta{Header: mustJSON(t, e.Header()), App: []byte(`{"scenario":"small"}`)})
	return e
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runTo steps e until it has run n rounds, applying the scenario's knob changes.
func (s scenario) runTo(t *testing.T, e *sim.Engine, n int) {
	t.Helper()
	for e.Round() < n {
		if a, ok := s.knobs[e.Round()+1]; ok {
			knob := s.knob
			if knob == "" {
				knob = "alpha"
			}
			if err := e.SetKnob(knob, a); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func openLog(t *testing.T, path string) *sim.RunLog {
	t.Helper()
	l, err := sim.OpenRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func scenarios() []scenario {
	var out []scenario
	for _, algo := range []sim.Algorithm{"fedaux", "fedavg", "local"} {
		c := sim.SmallConfig(algo)
		c.Rounds = 6
		out = append(out, scenario{name: string(algo), cfg: c, knobs: map[int]float64{3: 4}})
	}
	c := sim.SmallConfig("fedaux")
	c.Rounds = 6
	out = append(out, scenario{name: "fedaux-dropout", cfg: c, dropout: 0.35, knobs: map[int]float64{2: 20, 5: 1}})
	// The baselines with state in their clients (docs/method.md#baselines):
	// FedGTA's personalised mixing, FedGNN's LDP noise (the clients'
	// streams) and its expansion with clients missing; the APV variant of
	// FedGTA (docs/method.md#the-apv-variants; FedSage+APV's clients are
	// FedSage+'s: TestFedSagePlusCheckpoint). FedProx with a change of its
	// live mu: a rebuilt strategy and client side.
	for _, algo := range []sim.Algorithm{methods.FedGTA, methods.FedGNN, methods.FedGTAAPV} {
		c := sim.SmallConfig(algo)
		c.Rounds = 6
		out = append(out, scenario{name: string(algo), cfg: c, knobs: map[int]float64{3: 4}})
	}
	c = sim.SmallConfig(methods.FedGNN)
	c.Rounds = 6
	out = append(out, scenario{name: "fedgnn-dropout", cfg: c, dropout: 0.35, knobs: map[int]float64{2: 20}})
	c = sim.SmallConfig(methods.FedProx)
	c.Rounds, c.Epochs = 6, 2
	out = append(out, scenario{name: "fedprox-live-mu", cfg: c, knob: "mu", knobs: map[int]float64{3: 0.5}})
	return out
}

// TestCheckpointResumeBitIdentical interrupts a run after round 3, runs one
// more round that the checkpoint does not know of (as a killed process
// would), resumes from the checkpoint into the same log with another
// worker count, and compares reports, summary and log with an
// uninterrupted run.
func TestCheckpointResumeBitIdentical(t *testing.T) {
	for _, s := range scenarios() {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			refLog := filepath.Join(dir, "ref.jsonl")
			ref := s.engine(t, 2, openLog(t, refLog))
			s.runTo(t, ref, s.cfg.Rounds)
			refSum, err := ref.Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}

			logPath := filepath.Join(dir, "run.jsonl")
			ck := filepath.Join(dir, "run.ckpt")
			a := s.engine(t, 1, openLog(t, logPath))
			s.runTo(t, a, 3)
			if err := a.SaveCheckpoint(ck); err != nil {
				t.Fatal(err)
			}
			knobs := a.Knobs()
			s.runTo(t, a, 4) // lost with the process

			b, err := sim.ResumeFile(ck, sim.SmallData(t, 7), openLog(t, logPath))
			if err != nil {
				t.Fatal(err)
			}
			if b.Round() != 3 || !reflect.DeepEqual(b.Knobs(), knobs) || len(b.KnobHistory()) != len(s.knobs)-boolInt(s.knobs[5] != 0) {
				t.Fatalf("resumed at round %d with knobs %+v, history %v", b.Round(), b.Knobs(), b.KnobHistory())
			}
			s.runTo(t, b, s.cfg.Rounds)
			sum, err := b.Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if sum != refSum {
				t.Errorf("summary %+v, uninterrupted %+v", sum, refSum)
			}
			if !reflect.DeepEqual(sim.StripTimes(b.Reports()), sim.StripTimes(ref.Reports())) {
				t.Errorf("reports differ from the uninterrupted run's")
			}
			if got, want := logLines(t, logPath), logLines(t, refLog); !reflect.DeepEqual(got, want) {
				t.Errorf("log differs from the uninterrupted run's:\n%d lines vs %d", len(got), len(want))
			}
			if s.dropout > 0 {
				missing := 0
				for _, r := range ref.Reports() {
					missing += len(r.Missing)
				}
				if missing == 0 {
					t.Errorf("no client ever missed a round with dropout %v", s.dropout)
				}
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestResumeIntoNewLog resumes into a new (and then a half-written) log:
// it receives the run line and the rounds so far, rebuilt from the
// checkpoint, and ends equal to the uninterrupted log.
func TestResumeIntoNewLog(t *testing.T) {
	s := scenarios()[3]
	dir := t.TempDir()
	refLog := filepath.Join(dir, "ref.jsonl")
	ref := s.engine(t, 2, openLog(t, refLog))
	s.runTo(t, ref, s.cfg.Rounds)
	if _, err := ref.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	a := s.engine(t, 2, openLog(t, filepath.Join(dir, "old.jsonl")))
	s.runTo(t, a, 3)
	ck := filepath.Join(dir, "c.ckpt")
	if err := a.SaveCheckpoint(ck); err != nil {
		t.Fatal(err)
	}
	newLog := filepath.Join(dir, "new.jsonl")
	// A first resume into the new log is killed after one round...
	b, err := sim.ResumeFile(ck, sim.SmallData(t, 7), openLog(t, newLog))
	if err != nil {
		t.Fatal(err)
	}
	s.runTo(t, b, 4)
	// ... and a second one continues from the same checkpoint.
	c, err := sim.ResumeFile(ck, sim.SmallData(t, 7), openLog(t, newLog))
	if err != nil {
		t.Fatal(err)
	}
	s.runTo(t, c, s.cfg.Rounds)
	if _, err := c.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got, want := logLines(t, newLog), logLines(t, refLog)
	for _, l := range [][]map[string]any{got, want} {
		delete(l[0], "started")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("new log (%d lines) differs from the uninterrupted log (%d lines)", len(got), len(want))
	}
	// A log holding something else is refused.
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte("{\"type\":\"run\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.ResumeFile(ck, sim.SmallData(t, 7), openLog(t, other)); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("resume into an unrelated log: %v", err)
	}
}

func TestResumeRefusesMismatch(t *testing.T) {
	s := scenarios()[0]
	dir := t.TempDir()
	logPath := filepath.Join(dir, "run.jsonl")
	a := s.engine(t, 2, openLog(t, logPath))
	s.runTo(t, a, 2)
	ck := filepath.Join(dir, "c.ckpt")
	if err := a.SaveCheckpoint(ck); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.ResumeFile(ck, sim.SmallData(t, 8), nil); err == nil || !strings.Contains(err.Error(), "data differ") {
		t.Errorf("resume on other data: %v", err)
	}
	// The log lost its last lines.
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
	if err := os.WriteFile(logPath, b[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.ResumeFile(ck, sim.SmallData(t, 7), openLog(t, logPath)); err == nil || !strings.Contains(err.Error(), "lost lines") {
		t.Errorf("resume with a shortened log: %v", err)
	}
	// The log's last line changed.
	b[cut+10] ^= 1
	if err := os.WriteFile(logPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.ResumeFile(ck, sim.SmallData(t, 7), openLog(t, logPath)); err == nil || !strings.Contains(err.Error(), "not the one the checkpoint recorded") {
		t.Errorf("resume with a changed log: %v", err)
	}
}

func TestLoadCheckpointBadFiles(t *testing.T) {
	s := scenarios()[1]
	dir := t.TempDir()
	a := s.engine(t, 2, nil)
	s.runTo(t, a, 1)
	ck := filepath.Join(dir, "c.ckpt")
	if err := a.SaveCheckpoint(ck); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0x40
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"magic only", good[:10], "truncated"},
		{"half", good[:len(good)/2], "truncated"},
		{"last byte missing", good[:len(good)-1], "truncated"},
		{"trailing garbage", append(bytes.Clone(good), 0), "corrupt"},
		{"flipped byte", flipped, "checksum"},
		{"other file", []byte("{\"type\":\"run\"}\n"), "not a fedaux checkpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := sim.LoadCheckpoint(p)
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one naming %s and saying %q", err, p, c.want)
			}
		})
	}
	if _, err := sim.LoadCheckpoint(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(ck), "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
}

func TestDiffConfig(t *testing.T) {
	a := sim.SmallConfig("fedaux")
	b := a
	b.Workers = 7
	if d := sim.DiffConfig(a, b); d != nil {
		t.Errorf("workers should not count: %v", d)
	}
	b.Alpha, b.Dropout = 3, 0.1
	d := sim.DiffConfig(a, b)
	if len(d) != 2 || !strings.HasPrefix(d[0], "dropout: 0.5, not 0.1") || !strings.HasPrefix(d[1], "alpha: 10, not 3") {
		t.Errorf("diff %q", d)
	}
}

// TestCheckpointAtRoundZero: a checkpoint taken before the first round
// (an interrupt between two seeds) resumes into the whole run.
func TestCheckpointAtRoundZero(t *testing.T) {
	s := scenarios()[3]
	dir := t.TempDir()
	ref := s.engine(t, 2, nil)
	ref.Want(sim.MatrixGroundTruth) // as b computes it for its log
	s.runTo(t, ref, s.cfg.Rounds)
	logPath := filepath.Join(dir, "run.jsonl")
	a := s.engine(t, 2, openLog(t, logPath))
	ck := filepath.Join(dir, "c.ckpt")
	if err := a.SaveCheckpoint(ck); err != nil {
		t.Fatal(err)
	}
	b, err := sim.ResumeFile(ck, sim.SmallData(t, 7), openLog(t, logPath))
	if err != nil {
		t.Fatal(err)
	}
	s.runTo(t, b, s.cfg.Rounds)
	if !reflect.DeepEqual(sim.StripTimes(b.Reports()), sim.StripTimes(ref.Reports())) {
		t.Error("reports differ from the uninterrupted run's")
	}
	if n := len(logLines(t, logPath)); n != 1+s.cfg.Rounds+len(s.knobs) {
		t.Errorf("log has %d lines, want the run line, %d rounds and %d knob changes", n, s.cfg.Rounds, len(s.knobs))
	}
}
