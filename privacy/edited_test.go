package privacy

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/internal/tiny"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// TestRowsRefuseEditedAUC: a result whose AUC is no AUC (7, edited by
// hand) or whose mean is not its clients' is refused, naming the run,
// the directory, the attack and the client; privacy.md showed 7.00 as a
// client's attack AUC.
func TestRowsRefuseEditedAUC(t *testing.T) {
	opts := Options{Grid: study.Grid{Presets: []*presets.Preset{tiny.Preset("tiny-4", 4)}, Algos: []sim.Algorithm{methods.FedAux}, Seeds: 1, Seed: 1}}
	cells, err := opts.cells()
	if err != nil {
		t.Fatal(err)
	}
	attack := func() RunResult {
		a := Attack{NonMembers: FromTest}
		for k, auc := range []float64{0.5, 0.7} {
			a.Clients = append(a.Clients, ClientAttack{ID: k, AUC: auc, TrainAUC: 0.9, NoDescriptorAUC: auc, LossAUC: 0.6})
		}
		for _, c := range a.Clients {
			a.AUC += c.AUC / 2
			a.TrainAUC += c.TrainAUC / 2
			a.NoDescriptorAUC += c.NoDescriptorAUC / 2
			a.LossAUC += c.LossAUC / 2
		}
		return RunResult{Descriptor: sim.DescriptorAPV, Attacks: []Attack{a}}
	}
	for _, tt := range []struct {
		edit func(*RunResult)
		want string // "" for none
	}{
		{func(*RunResult) {}, ""},
		{func(r *RunResult) { r.Attacks[0].Clients[1].AUC = 7 }, "attack with non-members test: client 1: auc 7, want an AUC in [0, 1]; remove its line to run it again"},
		{func(r *RunResult) { r.Attacks[0].Clients[0].LossAUC = -0.1 }, "client 0: loss_auc -0.1, want an AUC in [0, 1]"},
		{func(r *RunResult) { r.Attacks[0].TrainAUC = 0.99 }, "attack with non-members test: train_auc 0.99, but its clients' mean is 0.9"},
	} {
		res := attack()
		tt.edit(&res)
		store, err := study.OpenStore(t.TempDir(), study.ResultsFile)
		if err != nil {
			t.Fatal(err)
		}
		n := cells[0].Config.Rounds
		rec := &study.Record{Key: cells[0].Key(), Scenario: "tiny-4", Algo: methods.FedAux,
			Settings: map[string]string{"rounds": strconv.Itoa(n)}, Val: make([]float64, n), Test: make([]float64, n), BestRound: 1}
		if err := study.SetExtra(rec, res); err != nil {
			t.Fatal(err)
		}
		if err := store.Append(rec); err != nil {
			t.Fatal(err)
		}
		_, err = rows(&opts, cells, store)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("an attack as run: %v", err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), store.Dir())):
			t.Errorf("rows: %v, want %q naming %s", err, tt.want, store.Dir())
		}
	}
}
