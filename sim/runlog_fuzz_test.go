package sim_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

// FuzzReadRunLog: whatever a run log holds (cut short, edited by hand,
// another version's), ReadRunLog returns runs or an error, and never
// panics.
func FuzzReadRunLog(f *testing.F) {
	f.Add([]byte(`{"type":"run","algo":"fedaux","rounds":2,"clients":2,"settings":{"alpha":"10"}}
{"type":"round","round":1,"clients":[{"id":0,"val_acc":1}],"weights":[[1,0],[0,1]]}
{"type":"control","round":2,"name":"alpha","from":10,"to":3}
{"type":"algorithm","round":2,"from":"fedaux","to":"local"}
{"type":"round","round":2}
{"type":"summary","rounds":2,"best_round":1}
`))
	f.Add([]byte(`{"type":"run"}` + "\n" + `{"type":"round","round":1`))
	f.Add([]byte("\n\n{\"type\":\"summary\"}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "run.jsonl")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		runs, torn, err := sim.ReadRunLog(path)
		if err != nil {
			return
		}
		if len(runs) == 0 || torn < 0 {
			t.Fatalf("no error, %d runs, torn %d", len(runs), torn)
		}
		for _, r := range runs {
			if len(r.Reports) != len(r.RoundLines) || len(r.Switches) != len(r.SwitchLines) {
				t.Fatalf("run on line %d: %d reports on %d lines, %d switches on %d lines", r.Line, len(r.Reports), len(r.RoundLines), len(r.Switches), len(r.SwitchLines))
			}
		}
	})
}
