package presets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

// TestFactsOnlyForALog checks that the scenario's non-IID statistics are
// computed for a run that writes a log, and only then: they take seconds
// on a large graph and serve only the run line.
func TestFactsOnlyForALog(t *testing.T) {
	p, err := Get("sbm")
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config()
	cfg.Seed, cfg.Rounds, cfg.Workers = 987654, 1, 1
	_, sc, err := NewEngine(p, Env{}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc.facts == nil || sc.facts.m != nil {
		t.Fatalf("facts %+v after an engine without a log, want not computed", sc.facts)
	}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	log, err := sim.OpenRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := NewEngine(p, Env{}, cfg, log); err != nil {
		t.Fatal(err)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Extra struct {
			NonIID struct{ Xi float64 } `json:"noniid"`
		} `json:"extra"`
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if err := json.Unmarshal([]byte(line), &h); err != nil || !(h.Extra.NonIID.Xi > 0) {
		t.Errorf("run line %s: xi %v (%v), want > 0", line, h.Extra.NonIID.Xi, err)
	}
	f, err := sc.Facts()
	if err != nil || f["noniid"].(map[string]any)["xi"] != h.Extra.NonIID.Xi {
		t.Errorf("Facts %v, %v; want the run line's xi %v", f, err, h.Extra.NonIID.Xi)
	}
}
