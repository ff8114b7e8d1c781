package convergence

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/internal/tiny"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

func TestConvergedRound(t *testing.T) {
	for _, tc := range []struct {
		curve []float64
		tol   float64
		want  int
	}{
		{nil, 0.5, 0},
		{[]float64{50}, 0.5, 1},
		{[]float64{10, 60, 79.4, 79.6, 80, 79}, 0.5, 4},
		{[]float64{10, 60, 79.4, 79.6, 80, 79}, 0, 5},
		{[]float64{80, 10, 20}, 0.5, 1},
		{[]float64{10, 20, 30}, 15, 2},
	} {
		if got := ConvergedRound(tc.curve, tc.tol); got != tc.want {
			t.Errorf("ConvergedRound(%v, %g) = %d, want %d", tc.curve, tc.tol, got, tc.want)
		}
	}
}

// TestRun runs a tiny study (two algorithms, two seeds), checks its
// curves against the stored results, the report and the figure, reruns
// it without computing anything, and fills a second directory from the
// first (Reuse) without computing anything either.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	p := tiny.Preset("tiny-4", 4)
	opts := Options{Grid: study.Grid{Presets: []*presets.Preset{p}, Algos: []sim.Algorithm{methods.FedAux, methods.FedAvg}, Seeds: 2, Seed: 1, Workers: 1}, Out: dir}
	st, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Ran != 4 {
		t.Errorf("ran %d cells, want 4", st.Ran)
	}
	store, err := study.OpenStore(dir, study.ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	cs := st.Curves()
	if len(cs) != 2 || cs[0].Algo != methods.FedAux || cs[1].Algo != methods.FedAvg {
		t.Fatalf("curves %+v", cs)
	}
	recs := store.Records()
	for _, c := range cs {
		if len(c.Seeds) != 2 || len(c.Test) != 3 || len(c.TestStd) != 3 {
			t.Fatalf("%s: seeds %v, %d rounds of test, want 2 seeds and 3 rounds", c.Algo, c.Seeds, len(c.Test))
		}
		var runs [][]float64
		for _, r := range recs {
			if r.Algo == c.Algo {
				runs = append(runs, r.Test)
			}
		}
		for i := range c.Test {
			m, sd := study.MeanStd([]float64{runs[0][i], runs[1][i]})
			if c.Test[i] != m || c.TestStd[i] != sd {
				t.Errorf("%s round %d: %v ± %v, want %v ± %v", c.Algo, i+1, c.Test[i], c.TestStd[i], m, sd)
			}
		}
		if want := ConvergedRound(c.Test, 0.5); c.Converged != want || want < 1 {
			t.Errorf("%s: converged round %d, want %d", c.Algo, c.Converged, want)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| tiny-4 | fedaux | 1,2 |", "| tiny-4 | fedavg | 1,2 |", "within 0.5 points"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, FigureFile("tiny-4"))); err != nil || fi.Size() < 1000 {
		t.Errorf("figure: %v", err)
	}
	if st, err := Run(context.Background(), opts); err != nil || st.Ran != 0 {
		t.Errorf("rerun: %+v, %v; want 0 run", st, err)
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
	other := opts
	other.Out, other.Reuse = t.TempDir(), []string{dir}
	other.Algos = []sim.Algorithm{methods.FedAvg}
	if st, err := Run(context.Background(), other); err != nil || st.Ran != 0 || st.Reused != 2 {
		t.Errorf("reuse: %+v, %v; want 2 reused, 0 run", st, err)
	}
	other.Reuse = []string{filepath.Join(dir, "nope")}
	if _, err := Run(context.Background(), other); err == nil {
		t.Error("a missing reuse directory accepted")
	}
	if _, err := Run(context.Background(), Options{Grid: study.Grid{Presets: opts.Presets, Algos: opts.Algos}, Out: t.TempDir()}); err == nil {
		t.Error("0 seeds accepted")
	}
}
