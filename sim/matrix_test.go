package sim

import (
	"context"
	"slices"
	"testing"
)

// TestRoundMatrices checks, for every algorithm after a round, which
// matrix set the weights (the strategy says; nothing is guessed), that it
// is the one logged as weights_from, and the matrices' order.
func TestRoundMatrices(t *testing.T) {
	want := map[Algorithm]Source{
		FedAux: SourceAPV, FedPub: SourceFunctional, GCFL: SourceUpdate,
		FedAvg: "", Local: "", FedSagePlus: "",
		FedGTA: SourceMoments, FedGNN: "",
		FedGTAAPV: SourceAPV, FedSageAPV: "", // FedSage+APV: no mixing in a generator round
	}
	for _, algo := range Algorithms() {
		c := smallConfig(algo)
		e, err := New(c, smallData(t, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Want(WantAll)
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
		if algo == FedAvg || algo == GCFL || algo == FedPub || algo == FedGTA || algo == FedGNN { // no APV
			order = []string{"pc1", "readout", "functional"}
		}
		if algo == GCFL {
			order = append(order, "update")
		}
		if algo == FedGTA || algo == FedGTAAPV {
			order = append(order, "moments")
		}
		if algo == FedSagePlus { // no signatures; no mixing in a generator round
			order = nil
		}
		if algo == FedSageAPV { // the APV's and pc1; no mixing in a generator round
			order = []string{"apv", "apv-delta", "pc1"}
		}
		if algo != Local && algo != FedSagePlus && algo != FedSageAPV {
			order = append(order, MatrixWeights)
		}
		order = append(order, MatrixGroundTruth)
		if !slices.Equal(names, order) {
			t.Errorf("%s: matrices %v, want %v", algo, names, order)
		}
		if m, ok := rep.Matrix(MatrixWeights); algo != Local && algo != FedSagePlus && algo != FedSageAPV && (!ok || m.Kind != KindWeights) {
			t.Errorf("%s: weights matrix %v %v", algo, ok, m.Kind)
		}
	}
}
