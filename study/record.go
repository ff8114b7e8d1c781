package study

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/fedaux/fedaux/sim"
)

// A Record is one finished cell: a line of a results file.
type Record struct {
	// Key is the cell's Key: a result is reused for a cell with this key.
	Key       string            `json:"key"`
	Scenario  string            `json:"scenario"`
	Partition string            `json:"partition,omitempty"` // as asked: ref, multilevel or ""
	Clients   string            `json:"clients_from,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	Algo      sim.Algorithm     `json:"algo"`
	Seed      uint64            `json:"seed"`
	Dropout   float64           `json:"dropout,omitempty"`
	// Settings spells every setting as sim.Config.Get does.
	Settings map[string]string `json:"settings"`
	// TestAtBestVal is the mean client test accuracy (%) at the round of
	// best mean validation accuracy (docs/method.md#rounds-and-evaluation): the number tables report.
	TestAtBestVal      float64 `json:"test_at_best_val"`
	BestRound          int     `json:"best_round"`
	BestVal            float64 `json:"best_val"`
	FinalTest          float64 `json:"final_test"`
	Seconds            float64 `json:"seconds"`
	MedianRoundSeconds float64 `json:"median_round_seconds"`
	// CPUSeconds is the CPU time the run used (every core, the garbage
	// collector included; 0 where it is not known: records written
	// before it was kept, a run resumed from such a checkpoint, or a
	// system without the clock). Unlike Seconds it does not grow when
	// other work shares the machine, so a table's CPU time over its
	// cores is what the table costs the machine. Workers is the number
	// of clients the run trained at once.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	Workers    int     `json:"workers,omitempty"`
	// Metric is what the scores are (omitted for accuracy; rocauc for
	// the binary heterophilous sets).
	Metric sim.Metric `json:"metric,omitempty"`
	// Val and Test are the mean client validation and test accuracy of
	// every round, in order (convergence curves).
	Val  []float64 `json:"val"`
	Test []float64 `json:"test"`
	// Numerics is sim.Numerics of the precision; Version the release and
	// commit; Finished the time (RFC 3339, UTC); Shard the shard that ran it.
	Numerics int    `json:"numerics"`
	Version  string `json:"version"`
	Finished string `json:"finished"`
	Shard    string `json:"shard,omitempty"`
	// Extra holds what a study computes beyond the summary (the
	// similarity study's scores of every view).
	Extra json.RawMessage `json:"extra,omitempty"`
}

// Complete returns nil when r is the record of a finished run: it has a
// key, a scenario and an algorithm, the validation and test accuracy of
// every one of its rounds (its settings' rounds), each a percentage, and
// the summary of those rounds (sim.Summarize's); else what is wrong. A
// store takes complete records only, so that a line cut short or
// written by hand is not taken for a run that scored 0, nor an edited
// test_at_best_val for what the run scored.
func (r *Record) Complete() error {
	switch {
	case r.Key == "":
		return errors.New("no key")
	case r.Scenario == "":
		return errors.New("no scenario")
	case r.Algo == "":
		return errors.New("no algo")
	}
	rounds, err := strconv.Atoi(r.Settings["rounds"])
	if err != nil || rounds < 1 {
		return fmt.Errorf("settings: rounds %q, want a positive integer", r.Settings["rounds"])
	}
	if len(r.Val) != rounds || len(r.Test) != rounds {
		return fmt.Errorf("%d val and %d test accuracies, want one a round of %d", len(r.Val), len(r.Test), rounds)
	}
	return r.summarizes()
}

// summarizes returns nil when r's accuracies are percentages and its
// summary is theirs, as sim.Summarize makes it (bit for bit).
func (r *Record) summarizes() error {
	reports := make([]*sim.RoundReport, len(r.Val))
	for i := range r.Val {
		for _, a := range []struct {
			name string
			v    float64
		}{{"val", r.Val[i]}, {"test", r.Test[i]}} {
			if !(a.v >= 0 && a.v <= 100) {
				return fmt.Errorf("%s of round %d is %g, want a percentage in [0, 100]", a.name, i+1, a.v)
			}
		}
		reports[i] = &sim.RoundReport{Round: i + 1, MeanVal: r.Val[i], MeanTest: r.Test[i]}
	}
	s := sim.Summarize(reports)
	switch {
	case r.BestRound != s.BestRound:
		return fmt.Errorf("best_round %d, but its val is highest first at round %d", r.BestRound, s.BestRound)
	case r.BestVal != s.BestVal:
		return fmt.Errorf("best_val %g, but the val of its best round %d is %g", r.BestVal, s.BestRound, s.BestVal)
	case r.TestAtBestVal != s.TestAtBestVal:
		return fmt.Errorf("test_at_best_val %g, but the test of its best round %d is %g", r.TestAtBestVal, s.BestRound, s.TestAtBestVal)
	case r.FinalTest != s.FinalTest:
		return fmt.Errorf("final_test %g, but the test of its last round %d is %g", r.FinalTest, s.Rounds, s.FinalTest)
	}
	return nil
}

// Summary returns the record's best-validation summary.
func (r *Record) Summary() sim.Summary {
	return sim.Summary{Rounds: len(r.Val), BestRound: r.BestRound, BestVal: r.BestVal, TestAtBestVal: r.TestAtBestVal, FinalTest: r.FinalTest}
}

// Config returns the record's settings as a sim.Config (DefaultConfig
// for any setting it does not spell).
func (r *Record) Config() (sim.Config, error) {
	c := sim.DefaultConfig()
	for k, v := range r.Settings {
		if err := c.Set(k, v); err != nil {
			return c, err
		}
	}
	return c, nil
}

// settingsOf spells every setting of c.
func settingsOf(c sim.Config) map[string]string {
	m := map[string]string{}
	for _, k := range sim.Settings() {
		m[k], _ = c.Get(k)
	}
	return m
}
