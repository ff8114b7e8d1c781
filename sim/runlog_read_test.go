package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestReadRunLog writes a run log with a knob change and reads it back:
// the run line, the change, every round as Step returned it (but Views,
// which a log does not hold) and the summary; a last line cut short is
// left out and named, one in the middle is an error naming its line.
func TestReadRunLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	log, err := sim.OpenRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	e, err := sim.New(sim.SmallConfig(methods.FedAux), sim.SmallData(t, 5), log)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.SetKnob("alpha", 3); err != nil {
		t.Fatal(err)
	}
	s, err := e.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	log.Close()
	runs, torn, err := sim.ReadRunLog(path)
	if err != nil || torn != 0 || len(runs) != 1 {
		t.Fatalf("ReadRunLog: %d runs, torn %d, %v", len(runs), torn, err)
	}
	r := runs[0]
	if r.Line != 1 || r.Header.Algo != methods.FedAux || r.Header.Rounds != 4 {
		t.Errorf("run line %d: %+v", r.Line, r.Header)
	}
	if !reflect.DeepEqual(r.Controls, e.KnobHistory()) {
		t.Errorf("controls %v, want %v", r.Controls, e.KnobHistory())
	}
	if r.Summary == nil || *r.Summary != s {
		t.Errorf("summary %v, want %v", r.Summary, s)
	}
	if len(r.Reports) != 4 || !reflect.DeepEqual(r.RoundLines, []int{2, 4, 5, 6}) {
		t.Fatalf("%d reports on lines %v", len(r.Reports), r.RoundLines)
	}
	for i, rep := range e.Reports() {
		a, _ := json.Marshal(rep)
		b, _ := json.Marshal(r.Reports[i])
		if string(a) != string(b) {
			t.Errorf("round %d read back differs:\n%.300s\n%.300s", i+1, a, b)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := strings.TrimSuffix(string(b), "\n")
	cut = cut[:len(cut)-10] // the summary line cut short
	if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	if runs, torn, err := sim.ReadRunLog(path); err != nil || torn != 7 || runs[0].Summary != nil || len(runs[0].Reports) != 4 {
		t.Errorf("a torn summary line: torn %d, %v", torn, err)
	}
	if err := os.WriteFile(path, []byte(cut+"\n"+`{"type":"round","round":5}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sim.ReadRunLog(path); err == nil || !strings.Contains(err.Error(), "run.jsonl:7: not a JSON object") {
		t.Errorf("a cut line in the middle: %v", err)
	}
}

// TestReadRunLogOtherKnobs: a knob change of a method this build does not
// have is read as written, as the method's name is (the whole log was
// refused: 'knob = lr_boost, want alpha, sigma, ...'), and a control line
// without a knob is an error naming its line (it was read as a change of
// the knob "", which replay then named as 'the change of  before round 2').
func TestReadRunLogOtherKnobs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	run := `{"type":"run","algo":"outside","rounds":2,"clients":2}`
	round := func(n int) string { return fmt.Sprintf(`{"type":"round","round":%d}`, n) }
	write := func(control string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(strings.Join([]string{run, round(1), control, round(2)}, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"type":"control","round":2,"name":"lr_boost","from":1,"to":3}`)
	runs, _, err := sim.ReadRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []sim.KnobChange{{Round: 2, Name: "lr_boost", From: 1, To: 3}}; !reflect.DeepEqual(runs[0].Controls, want) {
		t.Errorf("controls %+v, want %+v", runs[0].Controls, want)
	}
	for _, control := range []string{`{"type":"control","round":2,"from":1,"to":3}`, `{"type":"control","round":2,"name":"","to":3}`} {
		write(control)
		if _, _, err := sim.ReadRunLog(path); err == nil || !strings.HasSuffix(err.Error(), "run.jsonl:3: control line: no knob name") {
			t.Errorf("%s: %v, want the line named", control, err)
		}
	}
}
