package methods_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestFedPubEngineWeights: in an engine, FED-PUB's weights come from the
// functional view.
func TestFedPubEngineWeights(t *testing.T) {
	c := methods.SmallConfig(methods.FedPub)
	e, err := sim.New(c, methods.SmallData(t, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fv := rep.Views[sim.SourceFunctional]
	if fv == nil || !reflect.DeepEqual(rep.Similarity, fv) || !reflect.DeepEqual(rep.Weights, sim.SoftmaxRows(fv, c.Options.Float("tau"))) {
		t.Error("fedpub's weights are not softmax(tau * functional similarity)")
	}
}

func TestBaselineConfigValidate(t *testing.T) {
	for _, mod := range []struct {
		flag string
		f    func(*sim.Config)
	}{
		{"tau", func(c *sim.Config) { methods.Set(t, c, "tau", "NaN") }},
		{"eps1", func(c *sim.Config) { methods.Set(t, c, "eps1", "+Inf") }},
		{"eps2", func(c *sim.Config) { methods.Set(t, c, "eps2", "-0.1") }},
	} {
		c := sim.DefaultConfig()
		mod.f(&c)
		var se *sim.SettingError
		if err := c.Validate(); !errors.As(err, &se) || se.Key != mod.flag {
			t.Errorf("Validate = %v, want a SettingError naming %s", err, mod.flag)
		}
	}
	d := sim.DefaultConfig()
	o := d.Options
	if o.Float("tau") != 3 || o.Float("eps1") != 0.05 || o.Float("eps2") != 0.1 {
		t.Errorf("defaults tau %v eps %v %v", o.Float("tau"), o.Float("eps1"), o.Float("eps2"))
	}
}

// TestGCFLEngineSplits runs GCFL past its warm-up with thresholds that
// always split: clusters form, the weights follow them, and the run does
// not depend on the number of workers.
func TestGCFLEngineSplits(t *testing.T) {
	var runs [][]sim.RoundReport
	for _, workers := range []int{1, 3} {
		c := methods.SmallConfig(methods.GCFL)
		c.Rounds, c.Workers = methods.GCFLWarmup+2, workers
		methods.Set(t, &c, "eps1", "1e9", "eps2", "0")
		e := methods.Run(t, c, methods.SmallData(t, 7))
		g := e.Strategy().(interface{ Clusters() [][]int })
		if len(g.Clusters()) < 3 { // rounds 21 and 22 each split every cluster of 3 or more
			t.Fatalf("clusters %v: want two rounds of splits", g.Clusters())
		}
		last := e.Reports()[len(e.Reports())-1]
		if !reflect.DeepEqual(last.Weights, methods.ClusterWeights(8, g.Clusters())) {
			t.Error("weights do not follow the clusters")
		}
		// The report names the clusters by client id and carries one split
		// statistic per cluster the round started with.
		if !reflect.DeepEqual(last.Clusters, g.Clusters()) {
			t.Errorf("reported clusters %v, want %v", last.Clusters, g.Clusters())
		}
		before := e.Reports()[len(e.Reports())-2]
		if len(last.ClusterNorms) != len(before.Clusters) {
			t.Errorf("%d cluster norms for %d clusters", len(last.ClusterNorms), len(before.Clusters))
		}
		for _, n := range last.ClusterNorms {
			if !(n.Mean >= 0 && n.Max >= n.Mean) {
				t.Errorf("cluster norms %+v: want 0 <= mean <= max", n)
			}
		}
		runs = append(runs, methods.Reports(e))
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Error("gcfl differs between worker counts")
	}
}
