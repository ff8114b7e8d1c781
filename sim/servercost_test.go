package sim_test

import (
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

func TestUploadsNeedARound(t *testing.T) {
	e, err := sim.New(sim.SmallConfig(methods.FedAux), sim.SmallData(t, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Uploads(sim.SourceAPV); err == nil {
		t.Error("uploads before any round: want an error")
	}
	e = sim.RunEngine(t, sim.SmallConfig(methods.FedAvg), sim.SmallData(t, 3))
	if _, err := e.Uploads(sim.SourceAPV); err == nil {
		t.Error("APV uploads of FedAvg clients: want an error")
	}
}

func TestShapeUploads(t *testing.T) {
	apvs, dw, models, err := sim.ShapeUploads(128, 40, 16, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(apvs) != 3 || len(dw) != 3 || len(models) != 3 {
		t.Fatalf("%d APVs, %d updates, %d models; want 3 each", len(apvs), len(dw), len(models))
	}
	// A plain 2-layer GCN 128 -> 16 -> 16 -> 40 classes.
	var n int
	for _, p := range models[0].Params() {
		if !p.Personal {
			n += len(p.Value)
		}
	}
	if len(dw[0]) == 0 || len(dw[0]) >= n+1 || len(apvs[0]) == 0 {
		t.Errorf("update of %d values (the masked model shares %d), APV of %d", len(dw[0]), n, len(apvs[0]))
	}
	proxy, err := sim.ProxyGraph(1, 128)
	if err != nil {
		t.Fatal(err)
	}
	if m := methods.FedPubStep(models, proxy, 3, true).Run(); len(m.W) != 3 {
		t.Errorf("fedpub weights %v: want 3 x 3", m.W)
	}
}
