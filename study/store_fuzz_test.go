package study

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzStore: whatever a results file holds (torn lines, hand edits,
// another version's), OpenStore reads it without panicking, and every
// record it takes is Complete.
func FuzzStore(f *testing.F) {
	f.Add([]byte(`{"key":"a","scenario":"s","algo":"fedavg","settings":{"rounds":"2"},"val":[1,2],"test":[3,4],"best_round":2,"best_val":2,"test_at_best_val":4,"final_test":4}` + "\n"))
	f.Add([]byte(`{"key":"a","scenario":"s","algo":"fedavg","settings":{"rounds":"1"},"val":[1],"test":[1e308]}` + "\n" + `{"key":"b","scen`))
	f.Add([]byte(`{"key":"d","scenario":"s","algo":"fedavgm","settings":{"rounds":"x"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ResultsFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := OpenStore(dir, "")
		if err != nil {
			return
		}
		for _, r := range s.Records() {
			if err := r.Complete(); err != nil {
				t.Fatalf("record %s taken: %v", r.Key, err)
			}
			_ = r.Summary()
		}
	})
}
