package methods_test

import (
	"reflect"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// The server-cost steps (FedAux's, sim.APVStep; FED-PUB's and GCFL's),
// run on the uploads an engine's last round received, must decide what
// that round decided, bit for bit.
func TestServerStepsMatchTheEngine(t *testing.T) {
	d := methods.SmallData(t, 3)
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
		c := methods.SmallConfig(methods.FedAux)
		c.Alpha = 7
		e := methods.Run(t, c, d)
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
	t.Run("fedpub", func(t *testing.T) {
		c := methods.SmallConfig(methods.FedPub)
		e := methods.Run(t, c, d)
		models, proxy, err := e.Models()
		if err != nil {
			t.Fatal(err)
		}
		for _, forwards := range []bool{true, false} {
			step := methods.FedPubStep(models, proxy, c.Options.Float("tau"), forwards)
			check(t, e, step.Run())
			check(t, e, step.Run())
		}
	})
	t.Run("gcfl", func(t *testing.T) {
		c := methods.SmallConfig(methods.GCFL)
		// Thresholds that split the cluster of all clients in the round
		// after the warm-up: the engine's round is then the forced step.
		c.Rounds = methods.GCFLWarmup + 1
		methods.Set(t, &c, "eps1", "1e9", "eps2", "0")
		e := methods.Run(t, c, d)
		dw, err := e.Uploads(sim.SourceUpdate)
		if err != nil {
			t.Fatal(err)
		}
		step := methods.GCFLStep(dw)
		for range 2 {
			m := step.Run()
			check(t, e, m)
			last := e.Reports()[len(e.Reports())-1]
			if !reflect.DeepEqual(m.Clusters, last.Clusters) || len(m.Clusters) != 2 {
				t.Errorf("clusters %v, want %v (two)", m.Clusters, last.Clusters)
			}
			if !reflect.DeepEqual(m.ClusterNorms, last.ClusterNorms) {
				t.Errorf("cluster norms %v, want %v", m.ClusterNorms, last.ClusterNorms)
			}
		}
	})
}

func TestFedPubStepInputCountsTheProxy(t *testing.T) {
	_, _, models, err := sim.ShapeUploads(8, 3, 4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := sim.ProxyGraph(1, 8)
	if err != nil {
		t.Fatal(err)
	}
	var params int64
	for _, m := range models {
		for _, p := range m.Params() {
			params += int64(len(p.Value)) * 8
		}
	}
	a := proxy.Prop.Matrix()
	want := params + 500*8*8 + int64(len(a.Indptr)+2*a.NNZ())*8
	if got := methods.FedPubStep(models, proxy, 3, true).Input; got != want {
		t.Errorf("input %d bytes, want %d", got, want)
	}
	if got := methods.FedPubStep(models, proxy, 3, false).Input; got != 2*4*8 {
		t.Errorf("client-side input %d bytes, want the 2 embeddings of 4 (%d)", got, 2*4*8)
	}
}
