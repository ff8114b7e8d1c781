package sim_test

import (
	"reflect"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// The server-cost steps, run on the uploads an engine's last round
// received, must decide what that round decided, bit for bit.
func TestServerStepsMatchTheEngine(t *testing.T) {
	d := sim.SmallData(t, 3)
	check := func(t *testing.T, e *sim.Engine, m sim.Mixing) {
		t.Helper()
		last := e.Reports()[len(e.Reports())-1]
		if !reflect.DeepEqual(m.W, last.Weights) {
			t.Errorf("weights\n%v\nwant\n%v", m.W, last.Weights)
		}
		if !reflect.DeepEqual(m.Similarity, last.Similarity) {
			t.Errorf("similarity\n%v\nwant\n%v", m.Similarity, last.Similarity)
		}
		if len(m.W) != len(d.Clients) {
			t.Fatalf("%d rows of weights for %d clients", len(m.W), len(d.Clients))
		}
	}
	t.Run("fedaux", func(t *testing.T) {
		c := sim.SmallConfig(methods.FedAux)
		c.Alpha = 7
		e := sim.RunEngine(t, c, d)
		apvs, err := e.Uploads(sim.SourceAPV)
		if err != nil {
			t.Fatal(err)
		}
		step := sim.APVStep(apvs, c.Alpha)
		check(t, e, step.Run())
		check(t, e, step.Run()) // repeatable
		if want := int64(len(apvs) * len(apvs[0]) * 8); step.Input != want {
			t.Errorf("input %d bytes, want %d", step.Input, want)
		}
	})
}

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
