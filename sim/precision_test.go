package sim_test

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

func TestPrecisionFingerprint(t *testing.T) {
	want := []sim.Algorithm{methods.FedAux, methods.FedAuxHard, methods.FedAvg, methods.FedAvgMask, methods.FedGTA, methods.FedGTAAPV,
		methods.FedPer, methods.FedProx, methods.FedPub, methods.FedPubAPV, methods.GCFL, methods.Local}
	if got := sim.Float32Methods(); !slices.Equal(got, want) {
		t.Errorf("float32 methods %v, want %v", got, want)
	}
	for _, algo := range sim.Float32Methods() {
		c := sim.SmallConfig(algo)
		f64 := c.Fingerprint()
		if strings.Contains(f64, "precision") {
			t.Errorf("%s: float64 fingerprint %q names the precision; stored keys would change", algo, f64)
		}
		if err := c.Set("precision", "f32"); err != nil {
			t.Fatal(err)
		}
		f32 := c.Fingerprint()
		if !strings.Contains(f32, "precision=f32") || f32 == f64 {
			t.Errorf("%s: float32 fingerprint %q, float64 %q: they must differ by precision=f32", algo, f32, f64)
		}
		if v, _ := c.Get("precision"); v != "f32" {
			t.Errorf("Get(precision) = %q after Set f32", v)
		}
	}
	var c sim.Config
	if err := c.Set("precision", "f16"); err == nil || !strings.Contains(err.Error(), "f64 or f32") {
		t.Errorf("Set(precision, f16): %v, want an error naming f64 or f32", err)
	}
}

func TestPrecisionRefused(t *testing.T) {
	c := sim.SmallConfig(methods.FedGNN)
	c.Precision = gnn.F32
	err := c.Validate()
	if err == nil {
		t.Fatal("fedgnn at f32 accepted")
	}
	for _, want := range []string{"precision", "fedgnn", "fedaux", "fedavg", "gcfl"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	c.Precision = 5
	if err := c.Validate(); err == nil {
		t.Error("precision 5 accepted")
	}
}

// TestF32DeterministicAcrossWorkers runs the float32 clients at 1 and 4
// workers (the same reports) and checks that they are not the float64
// run's.
func TestF32DeterministicAcrossWorkers(t *testing.T) {
	for _, algo := range sim.Float32Methods() {
		t.Run(string(algo), func(t *testing.T) {
			var runs [][]sim.RoundReport
			for _, workers := range []int{1, 4} {
				c := sim.SmallConfig(algo)
				c.Workers, c.Precision = workers, gnn.F32
				runs = append(runs, sim.StripTimes(sim.RunEngine(t, c, sim.SmallData(t, 7), sim.WantAll).Reports()))
			}
			if !reflect.DeepEqual(runs[0], runs[1]) {
				t.Fatal("float32 reports differ between 1 and 4 workers")
			}
			f64 := sim.StripTimes(sim.RunEngine(t, sim.SmallConfig(algo), sim.SmallData(t, 7), sim.WantAll).Reports())
			if reflect.DeepEqual(runs[0], f64) {
				t.Fatal("float32 and float64 runs gave the same reports: the float32 layers did not run")
			}
			// Four rounds of float32 stay close to float64: every client's
			// training loss within 1e-3.
			for i, cm := range runs[0][len(runs[0])-1].Clients {
				w := f64[len(f64)-1].Clients[i].TrainLoss
				if d := cm.TrainLoss - w; d > 1e-3 || d < -1e-3 {
					t.Errorf("client %d: final train loss %v at f32, %v at f64", i, cm.TrainLoss, w)
				}
			}
		})
	}
}

// TestF32Checkpoint checks that a checkpoint records the precision and
// that a run resumed from it continues as the uninterrupted run.
func TestF32Checkpoint(t *testing.T) {
	c := sim.SmallConfig(methods.FedAux)
	c.Precision = gnn.F32
	want := sim.StripTimes(sim.RunEngine(t, c, sim.SmallData(t, 7)).Reports())
	e, err := sim.New(c, sim.SmallData(t, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "ck")
	if err := e.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	ck, err := sim.LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Config.Precision != gnn.F32 {
		t.Fatalf("checkpoint precision %v, want f32", ck.Config.Precision)
	}
	r, err := ck.Resume(sim.SmallData(t, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got := sim.StripTimes(r.Reports()); !reflect.DeepEqual(got, want) {
		t.Fatal("resumed float32 run differs from the uninterrupted one")
	}
}

// TestF32Switch checks that a float32 run cannot switch to an algorithm
// that has no float32 client (FedGNN trains FedAvg's model, with its
// expansion), and can at float64.
func TestF32Switch(t *testing.T) {
	for _, p := range []gnn.Precision{gnn.F64, gnn.F32} {
		c := sim.SmallConfig(methods.FedAvg)
		c.Precision = p
		e, err := sim.New(c, sim.SmallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		err = e.CanSwitch(methods.FedGNN)
		if p == gnn.F64 && err != nil {
			t.Errorf("f64: fedavg to fedgnn refused: %v", err)
		}
		if p == gnn.F32 && (err == nil || !strings.Contains(err.Error(), "precision")) {
			t.Errorf("f32: fedavg to fedgnn: %v, want a refusal naming the precision", err)
		}
	}
}
