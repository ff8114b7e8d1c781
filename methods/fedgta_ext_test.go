package methods_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// settingKey returns the Key of a *SettingError, or "" for any other error.
func settingKey(err error) string {
	var se *sim.SettingError
	if errors.As(err, &se) {
		return se.Key
	}
	return ""
}

func TestFedGTASettings(t *testing.T) {
	c := sim.DefaultConfig()
	if o := c.Options; o.Int("gta_moments") != 10 || o.String("gta_type") != string(sim.MomentsHybrid) || o.Float("gta_eps") != 0.5 {
		t.Errorf("defaults q %d type %s eps %v, want OpenFGL's 10, hybrid, 0.5", o.Int("gta_moments"), o.String("gta_type"), o.Float("gta_eps"))
	}
	for key, val := range map[string]string{"gta_moments": "6", "gta_type": "origin", "gta_eps": "0.65"} {
		if err := c.Set(key, val); err != nil {
			t.Fatal(err)
		}
		if got, _ := c.Get(key); got != val {
			t.Errorf("%s = %s after setting %s", key, got, val)
		}
	}
	if err := c.Set("gta_type", "mean"); settingKey(err) != "gta_type" {
		t.Errorf("gta_type mean: %v", err)
	}
	for _, mod := range []struct {
		key string
		f   func(*sim.Config)
	}{
		{"gta_moments", func(c *sim.Config) { methods.Set(t, c, "gta_moments", "-1") }},
		{"gta_eps", func(c *sim.Config) { methods.Set(t, c, "gta_eps", "NaN") }},
	} {
		c := sim.DefaultConfig()
		mod.f(&c)
		if err := c.Validate(); settingKey(err) != mod.key {
			t.Errorf("Validate = %v, want a SettingError naming %s", err, mod.key)
		}
	}
	// A configuration from before FedGTA (an older checkpoint's, decoded
	// with the new fields zero) is valid and reads as the defaults.
	old := sim.DefaultConfig()
	methods.Set(t, &old, "gta_moments", "0")
	if err := old.Validate(); err != nil {
		t.Errorf("a configuration without FedGTA's settings: %v", err)
	}
	if q, _ := old.Get("gta_moments"); q != "10" {
		t.Errorf("gta_moments 0 reads %s, want the default 10", q)
	}
	if typ, _ := old.Get("gta_type"); typ != "hybrid" {
		t.Errorf("gta_type \"\" reads %q, want the default hybrid", typ)
	}
	c.Algo = "fedaux"
	a := c.Fingerprint()
	methods.Set(t, &c, "gta_eps", "0.1")
	if c.Fingerprint() != a {
		t.Error("gta_eps changes fedaux's fingerprint")
	}
	c.Algo = methods.FedGTA
	b := c.Fingerprint()
	methods.Set(t, &c, "gta_eps", "0.2")
	if c.Fingerprint() == b {
		t.Error("gta_eps does not change fedgta's fingerprint")
	}
}

// TestFedGTAAPVSettings checks the settings FedGTA+APV reads (and so
// its result key), gta_accept's parsing and its place in the
// fingerprints.
func TestFedGTAAPVSettings(t *testing.T) {
	for algo, want := range map[sim.Algorithm][]string{
		methods.FedGTAAPV: {"alpha", "gta_moments", "gta_type", "gta_eps", "gta_accept"},
	} {
		if got := sim.AlgorithmSettings(algo); !slices.Equal(got, want) {
			t.Errorf("%s reads %v, want %v", algo, got, want)
		}
	}
	c := sim.DefaultConfig()
	if err := c.Set("gta_accept", "apv"); err != nil || c.Options.String("gta_accept") != "apv" {
		t.Fatalf("gta_accept apv: %v, %q", err, c.Options.String("gta_accept"))
	}
	if err := c.Set("gta_accept", "labels"); settingKey(err) != "gta_accept" {
		t.Errorf("gta_accept labels: %v", err)
	}
	for _, algo := range []sim.Algorithm{methods.FedGTA, methods.FedGTAAPV} {
		a, b := sim.DefaultConfig(), sim.DefaultConfig()
		a.Algo, b.Algo = algo, algo
		methods.Set(t, &b, "gta_accept", "apv")
		if (a.Fingerprint() != b.Fingerprint()) != (algo == methods.FedGTAAPV) {
			t.Errorf("%s: gta_accept changes the fingerprint: %v", algo, a.Fingerprint() != b.Fingerprint())
		}
	}
	var old sim.Config // a configuration from before FedGTA+APV
	if a := old.Options.String("gta_accept"); a != "moments" {
		t.Errorf("no gta_accept reads as %q", a)
	}
}
