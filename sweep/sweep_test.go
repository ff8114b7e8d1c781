package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/internal/tiny"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

func TestParseKnobAndCombos(t *testing.T) {
	k, err := ParseKnob("alpha=0.1, 1,10")
	if err != nil || k.Key != "alpha" || !slices.Equal(k.Values, []string{"0.1", "1", "10"}) {
		t.Fatalf("ParseKnob = %+v, %v", k, err)
	}
	for _, bad := range []string{"alpha", "=1", "algo=fedaux", "seed=1,2", "alpha=", "alpha=1,1", "colour=red"} {
		if _, err := ParseKnob(bad); err == nil {
			t.Errorf("ParseKnob(%q) accepted", bad)
		}
	}
	for _, key := range []string{"rounds", "epochs", "hidden", "layers", "lr", "wd", "dropout", "alpha", "sigma", "partners", "mu", "tau", "eps1", "eps2", ClientDropout} {
		if !slices.Contains(Keys(), key) {
			t.Errorf("%s cannot be swept", key)
		}
	}
	h, _ := ParseKnob("hidden=8,16")
	cs := Combos([]Knob{k, h})
	if len(cs) != 6 || cs[1].Name([]Knob{k, h}) != "alpha=0.1,hidden=16" {
		t.Errorf("combos %v", cs)
	}
}

// TestParseKnobSameValue: two spellings of one value are refused as the
// same spelling twice is (alpha=0.5,0.50 ran two cells of one run).
func TestParseKnobSameValue(t *testing.T) {
	for _, tt := range []struct{ grid, want string }{
		{"alpha=0.5,0.5", "value 0.5 twice"},
		{"alpha=0.5,0.50", "value 0.50 twice (as 0.5)"},
		{"lr=1e-2,0.01", "value 0.01 twice (as 1e-2)"},
		{"hidden=64,064", "value 064 twice (as 64)"},
		{ClientDropout + "=0.1,.1", "value .1 twice (as 0.1)"},
		{"alpha=1,,2", `grid "alpha=1,,2": value 2 of 3 is empty`},
		{"alpha=1,2,", "value 3 of 3 is empty"},
		{"alpha= , ", "no values"},
	} {
		if _, err := ParseKnob(tt.grid); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseKnob(%q) = %v, want an error with %q", tt.grid, err, tt.want)
		}
	}
	// Values that do not parse are left to the settings' own refusal.
	if k, err := ParseKnob("hidden=8,x"); err != nil || len(k.Values) != 2 {
		t.Errorf("ParseKnob(hidden=8,x) = %+v, %v", k, err)
	}
}

// TestRun sweeps two knobs of a tiny preset, checks the report and the
// figures, rejects a value out of range, and resumes without recomputing.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	a, _ := ParseKnob("alpha=0,10")
	l, _ := ParseKnob("layers=1,3")
	opts := Options{
		Presets: []*presets.Preset{tiny.Preset("tiny-4", 4)}, Knobs: []Knob{a, l},
		Algos: []sim.Algorithm{methods.FedAux, methods.FedAvgMask}, Seeds: 2, Seed: 1, Workers: 1, Out: dir,
	}
	st, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// fedavg_mask does not read alpha: its alpha=0 and alpha=10 cells are one run.
	if st.Mine != 16 || st.Ran != 12 {
		t.Errorf("stats %+v, want 16 cells, 12 run", st)
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## tiny-4", "| alpha | layers | fedaux | fedavg_mask |", "| 10 | 3 |", "**", "tiny-4-fedaux-alpha-x-layers.png"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("sweep.md lacks %q:\n%s", want, md)
		}
	}
	for _, f := range []string{"tiny-4-fedaux-alpha-x-layers.png", "tiny-4-fedavg_mask-alpha-x-layers.png"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	s, _ := study.OpenStore(dir, study.ResultsFile)
	for _, r := range s.Records() {
		c, _ := r.Config()
		if r.Labels["layers"] != "1" && r.Labels["layers"] != "3" || c.Layers == 2 {
			t.Errorf("record %v ran with layers %d", r.Labels, c.Layers)
		}
	}
	if st, err := Run(context.Background(), opts); err != nil || st.Ran != 0 {
		t.Errorf("rerun: %+v, %v", st, err)
	}
	res, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, res); err != nil {
		t.Fatal(err)
	}
	if b.String() != string(md) {
		t.Errorf("Load and Render give\n%s\nwant %s as Run wrote it:\n%s", b.String(), MarkdownFile, md)
	}
	one := opts
	one.Knobs = []Knob{a}
	one.Out = t.TempDir()
	if _, err := Run(context.Background(), one); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(one.Out, "tiny-4-alpha.png")); err != nil {
		t.Errorf("one-knob figure: %v", err)
	}
	two := one
	two.Presets = append(two.Presets, tiny.Preset("tiny-6", 6))
	two.Out = t.TempDir()
	if _, err := Run(context.Background(), two); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"all-alpha.png", "tiny-4-alpha.png", "tiny-6-alpha.png"} {
		if _, err := os.Stat(filepath.Join(two.Out, f)); err != nil {
			t.Errorf("two presets: %v", err)
		}
	}
	bad := opts
	bad.Knobs = []Knob{{Key: "sigma", Values: []string{"0"}}}
	if _, err := Run(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "sigma") {
		t.Errorf("sigma 0 accepted: %v", err)
	}
}

// TestRunGridReadByNone: a grid over a setting that none of the
// algorithms reads is refused (its points were one run, reported as
// several).
func TestRunGridReadByNone(t *testing.T) {
	mu, _ := ParseKnob("mu=0.1,1")
	_, err := Run(context.Background(), Options{
		Presets: []*presets.Preset{tiny.Preset("tiny-4", 4)}, Knobs: []Knob{mu},
		Algos: []sim.Algorithm{methods.FedAux, methods.FedAvg}, Seeds: 1, Workers: 1, Out: t.TempDir(),
	})
	if err == nil || !strings.Contains(err.Error(), "none of [fedaux fedavg] reads mu") {
		t.Errorf("grid mu over fedaux and fedavg: %v", err)
	}
}
