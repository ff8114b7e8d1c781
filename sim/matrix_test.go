package sim_test

import (
	"context"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestRoundMatrices checks, for every algorithm after a round, which
// matrix set the weights (the strategy says; nothing is guessed), that it
// is the one logged as weights_from, and the matrices' order.
func TestRoundMatrices(t *testing.T) {
	want := map[sim.Algorithm]sim.Source{
		methods.FedAux: sim.SourceAPV, methods.FedPub: sim.SourceFunctional, methods.GCFL: sim.SourceUpdate,
		methods.FedAvg: "", methods.Local: "", methods.FedSagePlus: "",
		methods.FedGTA: sim.SourceMoments, methods.FedGNN: "",
		methods.FedGTAAPV: sim.SourceAPV, methods.FedSageAPV: "", // FedSage+APV: no mixing in a generator round
	}
	for _, algo := range sim.Algorithms() {
		if _, ok := want[algo]; !ok {
			continue // package methods checks its others
		}
		c := sim.SmallConfig(algo)
		e, err := sim.New(c, sim.SmallData(t, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Want(sim.WantAll)
		rep, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if rep.WeightsFrom != want[algo] {
			t.Errorf("%s: weights from %q, want %q", algo, rep.WeightsFrom, want[algo])
		}
		var names, set []string
		for _, m := range rep.Matrices() {
			names = append(names, m.Name)
			if m.SetWeights {
				set = append(set, m.Name)
			}
			if len(m.M) != len(e.Data().Clients) {
				t.Errorf("%s: matrix %s is %d x ?, want %d clients", algo, m.Name, len(m.M), len(e.Data().Clients))
			}
		}
		if w := want[algo]; w == "" && set != nil || w != "" && !slices.Equal(set, []string{string(w)}) {
			t.Errorf("%s: matrices that set the weights %v, want %q", algo, set, want[algo])
		}
		order := []string{"apv", "apv-delta", "pc1", "readout", "functional"}
		if algo == methods.FedAvg || algo == methods.GCFL || algo == methods.FedPub || algo == methods.FedGTA || algo == methods.FedGNN { // no APV
			order = []string{"pc1", "readout", "functional"}
		}
		if algo == methods.GCFL {
			order = append(order, "update")
		}
		if algo == methods.FedGTA || algo == methods.FedGTAAPV {
			order = append(order, "moments")
		}
		if algo == methods.FedSagePlus { // no signatures; no mixing in a generator round
			order = nil
		}
		if algo == methods.FedSageAPV { // the APV's and pc1; no mixing in a generator round
			order = []string{"apv", "apv-delta", "pc1"}
		}
		if algo != methods.Local && algo != methods.FedSagePlus && algo != methods.FedSageAPV {
			order = append(order, sim.MatrixWeights)
		}
		order = append(order, sim.MatrixGroundTruth)
		if !slices.Equal(names, order) {
			t.Errorf("%s: matrices %v, want %v", algo, names, order)
		}
		if m, ok := rep.Matrix(sim.MatrixWeights); algo != methods.Local && algo != methods.FedSagePlus && algo != methods.FedSageAPV && (!ok || m.Kind != sim.KindWeights) {
			t.Errorf("%s: weights matrix %v %v", algo, ok, m.Kind)
		}
	}
}
