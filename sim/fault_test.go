package sim_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestNonFiniteStopsRun injects NaN into a loss and Inf into a gradient:
// the run stops with an error naming the client and the round, every log
// line still parses, no summary is written and the engine refuses to go on.
func TestNonFiniteStopsRun(t *testing.T) {
	cases := []struct {
		name    string
		corrupt func(loss *float64, params []*gnn.Param)
		want    string
	}{
		{"nan loss", func(loss *float64, _ []*gnn.Param) { *loss = math.NaN() }, "training loss is NaN"},
		{"inf gradient", func(_ *float64, ps []*gnn.Param) { ps[0].Grad[5] = math.Inf(1) }, "gradient of conv1.weight entry 5 is +Inf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			log := openLog(t, path)
			s := scenarios()[0]
			e := s.engine(t, 3, log)
			hooks := &sim.FaultHooks{Corrupt: func(round, client, epoch int, loss *float64, ps []*gnn.Param) {
				if round == 3 && client == 2 {
					c.corrupt(loss, ps)
				}
			}}
			if err := e.SetFaults(sim.Faults{Hooks: hooks}); err != nil {
				t.Fatal(err)
			}
			_, err := e.Run(context.Background(), nil)
			if err == nil {
				t.Fatal("no error")
			}
			var nf *sim.NonFiniteError
			if !errors.As(err, &nf) || nf.Client != 2 || nf.Round != 3 || nf.Epoch != 1 {
				t.Errorf("error %v (%#v), want a NonFiniteError of client 2, round 3", err, nf)
			}
			for _, w := range []string{"round 3", "client 2", c.want} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			lines := logLines(t, path)
			if len(lines) != 3 || lines[2]["round"] != 2.0 {
				t.Errorf("log has %d lines, want the run line and rounds 1 and 2", len(lines))
			}
			if _, err := e.Step(context.Background()); err == nil {
				t.Error("the engine ran another round after the error")
			}
			if err := e.SaveCheckpoint(filepath.Join(t.TempDir(), "c")); err == nil {
				t.Error("a stopped engine saved a checkpoint")
			}
		})
	}
}

// TestAbsentClient makes client 3 miss round 2 (absent) and client 5 fail
// round 3: each is left out of its round, keeps its parameters, gets no
// message, and the report and log say who was missing.
func TestAbsentClient(t *testing.T) {
	for _, algo := range []sim.Algorithm{"fedaux", "fedavg"} {
		t.Run(string(algo), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			s := scenario{cfg: sim.SmallConfig(algo)}
			e := s.engine(t, 3, openLog(t, path))
			hooks := &sim.FaultHooks{
				Absent: func(round, client int) bool { return round == 2 && client == 3 },
				Fail:   func(round, client int) bool { return round == 3 && client == 5 },
			}
			if err := e.SetFaults(sim.Faults{Hooks: hooks}); err != nil {
				t.Fatal(err)
			}
			step := func() *sim.RoundReport {
				r, err := e.Step(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			state := func(k int) sim.ClientState {
				st, err := sim.ClientOf(e, k).State()
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
			r1 := step()
			before := state(3)
			r2 := step()
			if !reflect.DeepEqual(state(3), before) {
				t.Error("absent client 3 changed in round 2")
			}
			if e.Pending()[3] != nil {
				t.Error("absent client 3 got a message for round 3")
			}
			r3 := step()
			checkMissing(t, r2, 3, r1)
			checkMissing(t, r3, 5, r2)
			if r1.Missing != nil {
				t.Errorf("round 1 missing %v", r1.Missing)
			}
			if algo == "fedavg" {
				for k, row := range r2.Weights {
					for l, w := range row {
						want := 1.0 / 7
						switch {
						case k == 3:
							want = 0
							if l == 3 {
								want = 1
							}
						case l == 3:
							want = 0
						}
						if math.Abs(w-want) > 1e-15 {
							t.Fatalf("round 2 weight %d,%d = %v, want %v", k, l, w, want)
						}
					}
				}
			}
			lines := logLines(t, path)
			if m := lines[2]["missing"]; !reflect.DeepEqual(m, []any{3.0}) {
				t.Errorf("round 2 log line: missing %v, want [3]", m)
			}
			if _, ok := lines[1]["missing"]; ok {
				t.Error("round 1 log line has a missing field")
			}
		})
	}
}

// checkMissing checks a report in which client k alone was missing.
func checkMissing(t *testing.T, r *sim.RoundReport, k int, prev *sim.RoundReport) {
	t.Helper()
	if !slices.Equal(r.Missing, []int{k}) {
		t.Fatalf("round %d missing %v, want [%d]", r.Round, r.Missing, k)
	}
	if len(r.Clients) != 8 {
		t.Fatalf("round %d lists %d clients", r.Round, len(r.Clients))
	}
	var val float64
	for i, c := range r.Clients {
		if c.ID != i || c.Absent != (i == k) {
			t.Errorf("round %d client entry %d: %+v", r.Round, i, c)
		}
		if i != k {
			val += c.ValAcc / 7
		}
	}
	want := prev.Clients[k]
	want.Absent = true
	if r.Clients[k] != want {
		t.Errorf("absent client's entry %+v, want its last %+v", r.Clients[k], want)
	}
	if math.Abs(val-r.MeanVal) > 1e-9 {
		t.Errorf("mean val %v, want the mean over the clients present %v", r.MeanVal, val)
	}
	for _, m := range [][][]float64{r.Weights, r.Similarity, r.GroundTruth, r.Views[sim.SourceAPV]} {
		if m == nil { // fedavg has no similarity and no APV
			continue
		}
		if len(m) != 8 || m[k][k] != 1 || m[k][(k+1)%8] != 0 || m[(k+1)%8][k] != 0 {
			t.Errorf("round %d: absent client's matrix row/column not 0 with 1 on the diagonal", r.Round)
		}
	}
}

// TestEveryoneAbsent: a round nobody takes part in still completes.
func TestEveryoneAbsent(t *testing.T) {
	e := scenarios()[0].engine(t, 2, nil)
	if err := e.SetFaults(sim.Faults{Hooks: &sim.FaultHooks{Absent: func(r, _ int) bool { return r == 2 }}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r1, r2 := e.Reports()[0], e.Reports()[1]
	if len(r2.Missing) != 8 || r2.MeanVal != r1.MeanVal || r2.MeanTest != r1.MeanTest {
		t.Errorf("round 2: missing %v, means %v %v (round 1: %v %v)", r2.Missing, r2.MeanVal, r2.MeanTest, r1.MeanVal, r1.MeanTest)
	}
}

// TestDropoutDeterministic: who misses which round depends on the seed
// only, not on the number of workers.
func TestDropoutDeterministic(t *testing.T) {
	var runs [][]sim.RoundReport
	for _, w := range []int{1, 4} {
		c := sim.SmallConfig("fedaux")
		c.Rounds, c.Workers = 6, w
		e, err := sim.New(c, sim.SmallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.SetFaults(sim.Faults{Dropout: 0.3}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Run(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, sim.StripTimes(e.Reports()))
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Error("reports differ between 1 and 4 workers")
	}
	n := 0
	for _, r := range runs[0] {
		n += len(r.Missing)
	}
	if n == 0 || n == 48 {
		t.Errorf("%d of 48 client-rounds missed with dropout 0.3", n)
	}
}

// TestNonFiniteUpdate: a parameter set to +Inf in the local step (its
// gradient finite; Adam's step makes it NaN) fails the round, naming the
// client and the entry.
func TestNonFiniteUpdate(t *testing.T) {
	e := scenarios()[1].engine(t, 1, nil) // fedavg
	hooks := &sim.FaultHooks{Corrupt: func(round, client, epoch int, loss *float64, ps []*gnn.Param) {
		if client == 2 {
			ps[0].Value[5] = math.Inf(1)
		}
	}}
	if err := e.SetFaults(sim.Faults{Hooks: hooks}); err != nil {
		t.Fatal(err)
	}
	_, err := e.Step(context.Background())
	if err == nil || !strings.Contains(err.Error(), "client 2: parameter entry 5 is ") || !strings.Contains(err.Error(), " after training") {
		t.Errorf("Step = %v, want client 2's parameter entry 5 named", err)
	}
}

func TestSetFaultsValidates(t *testing.T) {
	e := scenarios()[0].engine(t, 1, nil)
	for _, p := range []float64{-0.1, 1, math.NaN()} {
		err := e.SetFaults(sim.Faults{Dropout: p})
		if sim.SettingKey(err) != "client_dropout" || !strings.HasPrefix(err.Error(), "sim: client_dropout = ") || !strings.HasSuffix(err.Error(), ", want 0 <= p < 1") {
			t.Errorf("dropout %v: %v, want a SettingError naming client_dropout", p, err)
		}
	}
}

// TestNewValidatesData checks that malformed data is refused with an
// error naming the client and the problem.
func TestNewValidatesData(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(d *sim.Data)
		want   string
	}{
		{"label out of range", func(d *sim.Data) { d.Clients[2].Graph.Labels[4] = d.NumClasses }, "client 2: label 3 of node 4 out of range [0,3)"},
		{"negative label", func(d *sim.Data) { d.Clients[1].Graph.Labels[0] = -1 }, "client 1: label -1"},
		{"nan feature", func(d *sim.Data) { d.Clients[3].Graph.Features.Values[0] = math.NaN() }, "client 3: a feature value is NaN"},
		{"inf feature", func(d *sim.Data) { d.Clients[3].Graph.Features.Values[1] = math.Inf(-1) }, "client 3: a feature value is -Inf"},
		{"empty client", func(d *sim.Data) {
			d.Clients[4] = &graphio.Client{ID: 4, Graph: &graphio.Graph{Adj: &graphio.CSR{Indptr: []int{0}},
				Features: &graphio.CSR{Cols: d.NumFeatures, Indptr: []int{0}}}}
		}, "client 4 is empty"},
		{"roles", func(d *sim.Data) { d.Clients[5].Roles = d.Clients[5].Roles[1:] }, "client 5 has"},
		{"feature width", func(d *sim.Data) { d.NumFeatures++ }, "features, the data declares"},
		{"bad adjacency", func(d *sim.Data) { d.Clients[6].Graph.Adj.Indices[0] = 10000 }, "client 6 adjacency"},
		{"no features", func(d *sim.Data) { d.Clients[2].Graph.Features, d.Clients[2].Graph.Dense = nil, nil }, "client 2 has no features (Graph.Features and Graph.Dense are nil)"},
		{"metric", func(d *sim.Data) { d.Metric = 7 }, "sim: Data.Metric = 7, want Accuracy or ROCAUC"},
		{"role", func(d *sim.Data) { d.Clients[3].Roles[5] = 3 }, "sim: client 3: Roles[5] = 3, want Train, Val or Test"},
		{"negative role", func(d *sim.Data) { d.Clients[3].Roles[0] = -1 }, "sim: client 3: Roles[0] = -1"},
		{"duplicate id", func(d *sim.Data) { d.Clients[5].ID = 2 }, "sim: client 2 twice: Clients[2].ID and Clients[5].ID are both 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := sim.SmallData(t, 7)
			c.break_(d)
			_, err := sim.New(sim.SmallConfig("fedaux"), d, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestNilData checks that nil data is an error, not a panic.
func TestNilData(t *testing.T) {
	if err := (*sim.Data)(nil).Validate(); err == nil || err.Error() != "sim: nil Data" {
		t.Errorf("Validate = %v, want sim: nil Data", err)
	}
	if _, err := sim.New(sim.SmallConfig("fedaux"), nil, nil); err == nil || err.Error() != "sim: nil Data" {
		t.Errorf("New = %v, want sim: nil Data", err)
	}
}

// TestOpenRunLogCutsPartialLine: a log whose last line was cut short by
// a kill is repaired before appending.
func TestOpenRunLogCutsPartialLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, []byte("{\"type\":\"run\"}\n{\"type\":\"round\",\"rou"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := openLog(t, path)
	if err := l.Write(map[string]string{"type": "summary"}); err != nil {
		t.Fatal(err)
	}
	if got := logLines(t, path); len(got) != 2 || got[1]["type"] != "summary" {
		t.Errorf("log %v", got)
	}
}

// statefulAvg is FedAvg behind a pointer, as a strategy that may keep
// state across rounds.
type statefulAvg struct{ sim.Strategy }

// TestStatefulStrategyGuards: a strategy that may keep state must declare
// how to save it before a checkpoint, and that it can mix partial rounds
// before clients may drop out.
func TestStatefulStrategyGuards(t *testing.T) {
	if sim.MayKeepState(newStrategy(t, methods.FedAux)) || sim.MayKeepState(newStrategy(t, methods.FedAvg)) || !sim.MayKeepState(&statefulAvg{newStrategy(t, methods.FedAvg)}) {
		t.Fatal("mayKeepState misjudges")
	}
	e := scenarios()[1].engine(t, 1, nil)
	e.SetStrategy(&statefulAvg{newStrategy(t, methods.FedAvg)})
	if err := e.SetFaults(sim.Faults{Dropout: 0.2}); sim.SettingKey(err) != "client_dropout" || !strings.HasPrefix(err.Error(), "sim: client_dropout = 0.2, want 0: strategy fedavg keeps per-client state") {
		t.Errorf("dropout with a stateful strategy: %v", err)
	}
	absent := &sim.FaultHooks{Absent: func(round, client int) bool { return false }}
	if err := e.SetFaults(sim.Faults{Hooks: absent}); err == nil || !strings.HasPrefix(err.Error(), "sim: Faults.Hooks: strategy fedavg keeps per-client state") {
		t.Errorf("absences with a stateful strategy: %v", err)
	}
	if err := e.SaveCheckpoint(filepath.Join(t.TempDir(), "c")); err == nil || !strings.Contains(err.Error(), "MarshalState") {
		t.Errorf("checkpoint of a stateful strategy: %v", err)
	}
}

// TestOpenRunLogRefusesOtherFiles: a file that is not a run log (a
// scenario, binary data, a device) is refused and left as it was; a run
// line cut short, and an empty file, are taken.
func TestOpenRunLogRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"scenario.toml": "graph = \"sbm\"\nclients = 4\n",
		"binary.npz":    "PK\x03\x04\x00\x00\nrest",
		"other.jsonl":   "{\"type\":\"round\",\"round\":1}\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if l, err := sim.OpenRunLog(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a fedaux run log") {
			l.Close()
			t.Errorf("%s: error %v, want one naming the file and saying it is not a run log", name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("%s changed to %q", name, b)
		}
	}
	if l, err := sim.OpenRunLog(dir); err == nil {
		l.Close()
		t.Error("a directory was taken as a run log")
	}
	for _, content := range []string{"", "{\"ty"} {
		path := filepath.Join(dir, "ok.jsonl")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := sim.OpenRunLog(path)
		if err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		l.Close()
		if b, _ := os.ReadFile(path); len(b) != 0 {
			t.Errorf("%q: after opening the log holds %q, want it empty", content, b)
		}
	}
}

// TestSaveCheckpointRefusesOtherFiles: a checkpoint replaces only a
// checkpoint, never a scenario or a device that is at its path.
func TestSaveCheckpointRefusesOtherFiles(t *testing.T) {
	e := scenarios()[1].engine(t, 1, nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "s.toml")
	const scenario = "graph = \"sbm\"\n"
	if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.SaveCheckpoint(path); err == nil || !strings.Contains(err.Error(), "not a fedaux checkpoint") {
		t.Errorf("over a scenario: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != scenario {
		t.Errorf("the scenario changed to %q", b)
	}
	if err := e.SaveCheckpoint(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("over a directory: %v", err)
	}
	if err := e.SaveCheckpoint(os.DevNull); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("over %s: %v", os.DevNull, err)
	}
	ck := filepath.Join(dir, "run.ckpt")
	for i := range 2 { // a new file, then the checkpoint replaced
		if err := e.SaveCheckpoint(ck); err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
	}
	if _, err := sim.LoadCheckpoint(ck); err != nil {
		t.Fatal(err)
	}
}
