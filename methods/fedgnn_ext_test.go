package methods_test

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestFedGNNVariants: the expansion changes the run, and both variants
// are deterministic across worker counts, with clients missing rounds.
func TestFedGNNVariants(t *testing.T) {
	var byExp [2][]sim.RoundReport
	for j, expansion := range []bool{false, true} {
		var runs [][]sim.RoundReport
		for _, workers := range []int{1, 3} {
			c := methods.SmallConfig(methods.FedGNN)
			c.Workers = workers
			methods.Set(t, &c, "fedgnn_expansion", strconv.FormatBool(expansion))
			e, err := sim.New(c, methods.SmallData(t, 7), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.SetFaults(sim.Faults{Dropout: 0.3}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Run(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, methods.Reports(e))
		}
		if !reflect.DeepEqual(runs[0], runs[1]) {
			t.Errorf("expansion %v: reports differ between worker counts", expansion)
		}
		byExp[j] = runs[0]
	}
	if reflect.DeepEqual(byExp[0], byExp[1]) {
		t.Error("the expansion changes nothing")
	}
	// One layer: nothing to expand, the run is the one without expansion.
	var one [2][]sim.RoundReport
	for j, expansion := range []bool{false, true} {
		c := methods.SmallConfig(methods.FedGNN)
		c.Layers = 1
		methods.Set(t, &c, "fedgnn_expansion", strconv.FormatBool(expansion))
		one[j] = methods.Reports(methods.Run(t, c, methods.SmallData(t, 7)))
	}
	if !reflect.DeepEqual(one[0], one[1]) {
		t.Error("one layer: the expansion setting changes the run")
	}
}
