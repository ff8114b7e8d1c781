package study

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

// TestStoreTakesCompleteRecordsOnly: a line holding only a key and a
// scenario is no finished run (it was taken for one that scored 0), an
// outside method's result is told from a line cut short, and a key
// stored twice is said; the plan names each in its own words.
func TestStoreTakesCompleteRecordsOnly(t *testing.T) {
	dir := t.TempDir()
	full := `{"key":"a","scenario":"s","algo":"fedavg","settings":{"rounds":"2"},"val":[1,2],"test":[3,4],"best_round":2,"best_val":2,"test_at_best_val":4,"final_test":4}`
	lines := []string{
		full,
		`{"key":"b","scenario":"s"}`, // no algorithm, no rounds
		`{"key":"c","scenario":"s","algo":"fedavg","settings":{"rounds":"3"},"val":[1,2],"test":[3,4]}`, // 2 of 3 rounds
		`{"key":"d","scenario":"s","algo":"fedavgm","settings":{"rounds":"2"},"val":[1,2],"test":[3,4]}`,
		`{"key":"e","scenario":"s","algo":"fedavgm","settings":{"rounds":"2"},"val":[1,2],"test":[3,4]}`,
		strings.Replace(full, `"final_test":4`, `"final_test":4,"seconds":9`, 1), // key a again
		`{"key":"f","scen`,
	}
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(dir, ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	if recs := s.Records(); len(recs) != 1 || recs[0].Key != "a" || recs[0].Seconds != 0 {
		t.Errorf("records %+v, want the first line's alone", recs)
	}
	for _, k := range []string{"b", "c"} {
		if _, ok := s.Get(k); ok {
			t.Errorf("the incomplete record %s is taken for a finished run", k)
		}
	}
	var b strings.Builder
	if _, err := (&Runner{Store: s, Recorder: &Lines{W: &b, Prefix: "table: "}}).Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"table: results.jsonl: 1 line(s) did not parse (cut short by a crash?) and were skipped",
		"table: results.jsonl: 2 line(s) are no finished run",
		"table: results.jsonl: 2 result(s) of methods this build does not have (fedavgm) skipped",
		"table: results.jsonl: 1 line(s) repeat the key of a result read before them",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the plan does not say %q:\n%s", want, b.String())
		}
	}
	// Nor does a store append one.
	if err := s.Append(&Record{Key: "g", Scenario: "s", Algo: "fedavg"}); err == nil || !strings.Contains(err.Error(), "rounds") {
		t.Errorf("Append of an incomplete record: %v", err)
	}
}

// TestStoreRefusesEditedSummary: a results line whose summary is not its
// rounds' (test_at_best_val edited to 99.5, a best_round past its
// rounds) or whose accuracy is no percentage is no finished run: the
// table showed the edited 99.50 as the run's score, and -5 and 1e308
// as accuracies. Append refuses such a record, naming what is wrong.
func TestStoreRefusesEditedSummary(t *testing.T) {
	full := `{"key":"a","scenario":"s","algo":"fedavg","settings":{"rounds":"3"},"val":[1,5,5],"test":[3,4,2],"best_round":2,"best_val":5,"test_at_best_val":4,"final_test":2}`
	for _, tt := range []struct{ from, to, want string }{
		{"", "", ""},
		{`"test_at_best_val":4`, `"test_at_best_val":99.5`, "test_at_best_val 99.5, but the test of its best round 2 is 4"},
		{`"best_round":2`, `"best_round":7`, "best_round 7, but its val is highest first at round 2"},
		{`"best_round":2`, `"best_round":3`, "best_round 3, but its val is highest first at round 2"},
		{`"best_val":5`, `"best_val":6`, "best_val 6, but the val of its best round 2 is 5"},
		{`"final_test":2`, `"final_test":4`, "final_test 4, but the test of its last round 3 is 2"},
		{`"test":[3,4,2]`, `"test":[1e308,4,2]`, "test of round 1 is 1e+308, want a percentage in [0, 100]"},
		{`"val":[1,5,5]`, `"val":[-5,5,5]`, "val of round 1 is -5, want a percentage in [0, 100]"},
	} {
		line := strings.Replace(full, tt.from, tt.to, 1)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := OpenStore(dir, ResultsFile)
		if err != nil {
			t.Fatal(err)
		}
		_, ok := s.Get("a")
		if ok != (tt.want == "") {
			t.Errorf("%s: stored %v, want %v", line, ok, tt.want == "")
		}
		if tt.want == "" {
			continue
		}
		if k := s.Skipped[ResultsFile]; k.Incomplete != 1 {
			t.Errorf("%s: skipped %+v, want one line that is no finished run", line, k)
		}
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if err := MemoryStore().Append(&r); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Append of %s: %v, want %q", line, err, tt.want)
		}
	}
}

// TestRunnerSkipsRunsStoredMeanwhile: a run that another process stored
// after the plan was made (a shard run twice at once where locks do not
// work) is not computed again.
func TestRunnerSkipsRunsStoredMeanwhile(t *testing.T) {
	cs := cells(2)
	memory := MemoryStore() // the other process's result of the second cell
	if _, err := (&Runner{Store: memory}).Run(context.Background(), cs[1:]); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := OpenStore(dir, ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, err := OpenStore(dir, "results-other.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Store: store, Recorder: &onFinish{f: func() {
		if err := elsewhere.Append(memory.Records()[0]); err != nil {
			t.Error(err)
		}
	}}}
	st, err := r.Run(context.Background(), cs)
	if err != nil || st.Ran != 1 || st.Reused != 1 {
		t.Errorf("%+v, %v; want 1 run and 1 found stored", st, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "results*.jsonl"))
	lines := 0
	for _, f := range files {
		recs, _, err := readRecords(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += len(recs)
	}
	if lines != 2 {
		t.Errorf("%d results lines, want 2", lines)
	}
}

// onFinish calls f after the first cell is stored.
type onFinish struct {
	Nop
	f    func()
	done bool
}

func (o *onFinish) Finish(int, int, *Cell, *Record) {
	if !o.done {
		o.done = true
		o.f()
	}
}

// TestSteeredCellNotStored: an Observe hook that sets a knob during a
// run steers it away from the cell's settings; its result was stored
// under the clean run's key, and a later clean study reused it.
func TestSteeredCellNotStored(t *testing.T) {
	c := cells(2)[1] // fedaux: reads alpha
	store := MemoryStore()
	r := &Runner{Store: store, Observe: func(_ *Cell, e *sim.Engine, rep *sim.RoundReport) error {
		if rep != nil && rep.Round == 1 {
			return e.SetKnob(sim.KnobAlpha, 0.5)
		}
		return nil
	}}
	st, err := r.Run(context.Background(), []*Cell{c})
	want := c.String() + ": its knob alpha was set to 0.5 from round 2"
	if err == nil || !strings.Contains(err.Error(), want) || st.Ran != 0 {
		t.Errorf("%+v, %v; want an error with %q and nothing stored", st, err, want)
	}
	if n := len(store.Records()); n != 0 {
		t.Errorf("%d records stored", n)
	}
}

// TestInterruptWithFailedSave: an interrupt whose checkpoint cannot be
// saved is still an interrupt (the process exits as one, 130 for
// SIGINT), with the save's error; it was a plain error (exit 1).
func TestInterruptWithFailedSave(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "checkpoints")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil { // not a directory
		t.Fatal(err)
	}
	it := NewInterrupts()
	c := cells(1)[0]
	r := &Runner{Interrupts: it, Recorder: &stopper{it: it, round: 2},
		Checkpoint: func(c *Cell) string { return filepath.Join(blocker, c.Key()+".ckpt") }}
	_, err := r.Run(context.Background(), []*Cell{c})
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Round != 2 || ie.SaveErr == nil || ie.Checkpoint != "" {
		t.Fatalf("%v (%#v), want an InterruptedError after round 2 with the save's error", err, ie)
	}
	if want := "its checkpoint could not be saved: "; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), blocker) {
		t.Errorf("error %q lacks %q and %s", err, want, blocker)
	}
}

// TestStoreFileNotADirectory: a directory where the results file goes is
// refused before any run (the first run was computed, then lost when it
// could not be appended).
func TestStoreFileNotADirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ResultsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	started := &starts{}
	st, _, err := (&DirStudy{Dir: dir, Recorder: started}).Run(context.Background(), cells(2))
	want := filepath.Join(dir, ResultsFile) + ": is a directory"
	if err == nil || !strings.Contains(err.Error(), want) || st.Ran != 0 || len(started.from) != 0 {
		t.Errorf("%+v, %v; want an error with %q and nothing run", st, err, want)
	}
}
