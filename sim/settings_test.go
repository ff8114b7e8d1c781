package sim_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

func TestSettingsGetSet(t *testing.T) {
	c := sim.DefaultConfig()
	for _, key := range sim.Settings() {
		v, err := c.Get(key)
		if err != nil {
			t.Fatalf("Get(%s): %v", key, err)
		}
		d := sim.DefaultConfig()
		if err := d.Set(key, v); err != nil {
			t.Errorf("Set(%s, %q): %v", key, v, err)
		}
		if diff := sim.DiffConfig(c, d); diff != nil {
			t.Errorf("Set(%s, Get(%s)) changed %v", key, key, diff)
		}
	}
	for _, tt := range []struct{ key, v, want string }{
		{"alpha", "x", "sim: alpha = x, want a number"},
		{"hidden", "1.5", "sim: hidden = 1.5, want an integer"},
		{"apv_mix", "maybe", "sim: apv_mix = maybe, want on or off"},
		{"nope", "1", "sim: nope = (unknown setting), want one of algo, rounds"},
	} {
		err := c.Set(tt.key, tt.v)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || sim.SettingKey(err) != tt.key {
			t.Errorf("Set(%s, %s) = %v, want %q", tt.key, tt.v, err, tt.want)
		}
	}
	if err := c.Set("alpha", "3"); err != nil || c.Alpha != 3 {
		t.Errorf("Set alpha 3: %v, alpha %v", err, c.Alpha)
	}
	if err := c.Set("layers", "3"); err != nil || c.Layers != 3 {
		t.Errorf("Set layers 3: %v, layers %v", err, c.Layers)
	}
	if err := c.Set("layers", "0"); sim.SettingKey(err) != "layers" || c.Layers != 3 {
		t.Errorf("Set layers 0: %v, layers %v; want refused, layers kept", err, c.Layers)
	}
	c.Layers = 4
	if err := c.Validate(); sim.SettingKey(err) != "layers" {
		t.Errorf("Validate layers 4 = %v", err)
	}
}

func TestValidateSpeaksSettingNames(t *testing.T) {
	c := sim.DefaultConfig()
	c.Rounds = 0
	if err := c.Validate(); err == nil || err.Error() != "sim: rounds = 0, want >= 1" {
		t.Errorf("Validate = %v", err)
	}
}

// TestFingerprint checks what the result key of a run reads: every
// setting of its algorithm, nothing of the others', and layers only when
// they differ from the paper's 2 (results stored before the setting
// existed ran with 2).
func TestFingerprint(t *testing.T) {
	a := sim.DefaultConfig()
	b := a
	b.Workers = 3
	sim.SetOpts(t, &b, "eps1", "0.5", "tau", "7")
	if a.Fingerprint() != b.Fingerprint() {
		t.Errorf("fedaux fingerprint depends on eps1/tau/workers:\n%s\n%s", a.Fingerprint(), b.Fingerprint())
	}
	b.Algo, a.Algo = "gcfl", "gcfl"
	if a.Fingerprint() == b.Fingerprint() {
		t.Errorf("gcfl fingerprint ignores eps1: %s", a.Fingerprint())
	}
	c := sim.DefaultConfig()
	c.Layers = 0
	if c.Fingerprint() != sim.DefaultConfig().Fingerprint() || strings.Contains(c.Fingerprint(), "layers") {
		t.Errorf("layers 0 and 2 differ or are spelled: %s", c.Fingerprint())
	}
	c.Layers = 3
	if !strings.Contains(c.Fingerprint(), "layers=3") {
		t.Errorf("layers 3 missing: %s", c.Fingerprint())
	}
	for _, key := range sim.Settings() {
		d := sim.DefaultConfig()
		v, _ := d.Get(key)
		if err := d.Set(key, v+"1"); err != nil {
			continue
		}
		if r := sim.SettingReaders(key); r != nil && !slices.Contains(r, methods.FedAux) {
			continue // another algorithm's setting
		}
		if d.Fingerprint() == sim.DefaultConfig().Fingerprint() && len(sim.AlgorithmSettings("fedaux")) > 0 {
			t.Errorf("fingerprint ignores %s", key)
		}
	}
}

// TestEngineLayers runs every algorithm at depths 1 and 3: the model has
// that many GCN layers, the run does not depend on the worker count, and
// depth 2 is the default.
func TestEngineLayers(t *testing.T) {
	d := sim.SmallData(t, 3)
	for _, algo := range sim.Algorithms() {
		if algo == methods.FedSagePlus || algo == methods.FedSageAPV {
			continue // GraphSAGE, two layers (Validate refuses others)
		}
		var ref []sim.RoundReport
		for _, layers := range []int{1, 3, 0, 2} {
			var runs [][]sim.RoundReport
			for _, workers := range []int{1, 3} {
				c := sim.SmallConfig(algo)
				c.Layers, c.Workers = layers, workers
				e := sim.RunEngine(t, c, d)
				runs = append(runs, sim.StripTimes(e.Reports()))
				want := layers
				if want == 0 {
					want = 2
				}
				if sim.ClientOf(e, 0).Model().Config().Layers != want {
					t.Errorf("%s layers %d: model has %d", algo, layers, sim.ClientOf(e, 0).Model().Config().Layers)
				}
			}
			if !reflect.DeepEqual(runs[0], runs[1]) {
				t.Errorf("%s layers %d: the run depends on the worker count", algo, layers)
			}
			switch layers {
			case 1:
				ref = runs[0]
			case 3:
				if reflect.DeepEqual(ref, runs[0]) {
					t.Errorf("%s: depth 1 and 3 give the same run", algo)
				}
			case 0:
				ref = runs[0]
			case 2:
				if !reflect.DeepEqual(ref, runs[0]) {
					t.Errorf("%s: layers 0 and 2 differ", algo)
				}
			}
		}
	}
}

// TestReadBy: every algorithm reads the shared settings, FedAux and not
// FedAvg reads alpha, FedProx and not FedAux reads mu, no one an unknown
// key.
func TestReadBy(t *testing.T) {
	for _, c := range []struct {
		key  string
		algo sim.Algorithm
		want bool
	}{
		{"rounds", methods.FedAvg, true}, {"alpha", methods.FedAux, true}, {"alpha", methods.FedAvg, false},
		{"mu", methods.FedProx, true}, {"mu", methods.FedAux, false}, {"nope", methods.FedAux, false},
	} {
		if got := sim.ReadBy(c.key, c.algo); got != c.want {
			t.Errorf("ReadBy(%s, %s) = %v, want %v", c.key, c.algo, got, c.want)
		}
	}
}

// TestParseFloatUnderflow: a number that rounds to 0 without being 0 is
// refused by every setting, which read it as 0; zeros and small normal
// numbers are taken.
func TestParseFloatUnderflow(t *testing.T) {
	for _, s := range []string{"1e-400", " -2.5e-330 ", "0x1p-2000"} {
		if _, err := sim.ParseFloat(s); !errors.Is(err, sim.ErrUnderflow) {
			t.Errorf("ParseFloat(%q): %v, want ErrUnderflow", s, err)
		}
	}
	for s, want := range map[string]float64{"0": 0, "0e-999": 0, "-0.000": 0, "1e-300": 1e-300, "5e-324": 5e-324} {
		if v, err := sim.ParseFloat(s); err != nil || v != want {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v", s, v, err, want)
		}
	}
	c := sim.DefaultConfig()
	for _, key := range []string{"alpha", "mu"} {
		if err := c.Set(key, "1e-400"); sim.SettingKey(err) != key {
			t.Errorf("Set(%s, 1e-400): %v", key, err)
		}
	}
}

func TestSetFailureKeepsValue(t *testing.T) {
	for _, key := range sim.Settings() {
		c := sim.DefaultConfig()
		before, err := c.Get(key)
		if err != nil {
			t.Fatalf("Get(%s): %v", key, err)
		}
		const v = "bogus"
		if err := c.Set(key, v); err == nil {
			t.Errorf("Set(%s, %q) = nil, want an error", key, v)
			continue
		}
		if diff := sim.DiffConfig(sim.DefaultConfig(), c); diff != nil {
			t.Errorf("Set(%s, %q) failed and changed %v", key, v, diff)
		}
		if after, _ := c.Get(key); after != before {
			t.Errorf("Set(%s, %q) failed and changed %s from %q to %q", key, v, key, before, after)
		}
	}
}
