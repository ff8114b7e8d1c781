package sim

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// settingKey returns the Key of a *SettingError, or "" for any other error.
func settingKey(err error) string {
	var se *SettingError
	if errors.As(err, &se) {
		return se.Key
	}
	return ""
}

func TestSettingsGetSet(t *testing.T) {
	c := DefaultConfig()
	for _, key := range Settings() {
		v, err := c.Get(key)
		if err != nil {
			t.Fatalf("Get(%s): %v", key, err)
		}
		d := DefaultConfig()
		if err := d.Set(key, v); err != nil {
			t.Errorf("Set(%s, %q): %v", key, v, err)
		}
		if diff := DiffConfig(c, d); diff != nil {
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
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || settingKey(err) != tt.key {
			t.Errorf("Set(%s, %s) = %v, want %q", tt.key, tt.v, err, tt.want)
		}
	}
	if err := c.Set("alpha", "3"); err != nil || c.Alpha != 3 {
		t.Errorf("Set alpha 3: %v, alpha %v", err, c.Alpha)
	}
	if err := c.Set("layers", "3"); err != nil || c.Layers != 3 {
		t.Errorf("Set layers 3: %v, layers %v", err, c.Layers)
	}
	c.Layers = 4
	if err := c.Validate(); settingKey(err) != "layers" {
		t.Errorf("Validate layers 4 = %v", err)
	}
}

func TestValidateSpeaksSettingNames(t *testing.T) {
	c := DefaultConfig()
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
	a := DefaultConfig()
	b := a
	b.Workers = 3
	setOpts(t, &b, "eps1", "0.5", "tau", "7")
	if a.Fingerprint() != b.Fingerprint() {
		t.Errorf("fedaux fingerprint depends on eps1/tau/workers:\n%s\n%s", a.Fingerprint(), b.Fingerprint())
	}
	b.Algo, a.Algo = "gcfl", "gcfl"
	if a.Fingerprint() == b.Fingerprint() {
		t.Errorf("gcfl fingerprint ignores eps1: %s", a.Fingerprint())
	}
	c := DefaultConfig()
	c.Layers = 0
	if c.Fingerprint() != DefaultConfig().Fingerprint() || strings.Contains(c.Fingerprint(), "layers") {
		t.Errorf("layers 0 and 2 differ or are spelled: %s", c.Fingerprint())
	}
	c.Layers = 3
	if !strings.Contains(c.Fingerprint(), "layers=3") {
		t.Errorf("layers 3 missing: %s", c.Fingerprint())
	}
	for _, key := range Settings() {
		d := DefaultConfig()
		v, _ := d.Get(key)
		if err := d.Set(key, v+"1"); err != nil {
			continue
		}
		if s := lookup(key); s.algos != nil && !slices.Contains(s.algos, FedAux) {
			continue // another algorithm's setting
		}
		if d.Fingerprint() == DefaultConfig().Fingerprint() && len(AlgorithmSettings("fedaux")) > 0 {
			t.Errorf("fingerprint ignores %s", key)
		}
	}
}

// TestEngineLayers runs every algorithm at depths 1 and 3: the model has
// that many GCN layers, the run does not depend on the worker count, and
// depth 2 is the default.
func TestEngineLayers(t *testing.T) {
	d := smallData(t, 3)
	for _, algo := range Algorithms() {
		if algo == FedSagePlus || algo == FedSageAPV {
			continue // GraphSAGE, two layers (Validate refuses others)
		}
		var ref []RoundReport
		for _, layers := range []int{1, 3, 0, 2} {
			var runs [][]RoundReport
			for _, workers := range []int{1, 3} {
				c := smallConfig(algo)
				c.Layers, c.Workers = layers, workers
				e := runEngine(t, c, d)
				runs = append(runs, stripTimes(e.Reports()))
				want := layers
				if want == 0 {
					want = 2
				}
				if e.runners[0].(*Client).model.Config().Layers != want {
					t.Errorf("%s layers %d: model has %d", algo, layers, e.runners[0].(*Client).model.Config().Layers)
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

// setOpts sets settings of c, key then value, failing t on a parse error.
func setOpts(t testing.TB, c *Config, kv ...string) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		if err := c.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
}
