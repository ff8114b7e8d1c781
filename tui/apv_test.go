package tui

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestAPVVariantsOnScreen runs two rounds of each APV variant (docs/method.md#the-apv-variants)
// in the console: the header names it, the heat map offers the APV view,
// marked as the similarity the weights come from, and the weights
// (FedGTA+APV also its moments view), and an export completes the last
// round's views without error and writes the log and the CSV.
func TestAPVVariantsOnScreen(t *testing.T) {
	for _, algo := range []sim.Algorithm{methods.FedPubAPV, methods.FedGTAAPV, methods.FedSageAPV} {
		t.Run(string(algo), func(t *testing.T) {
			m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) {
				// No generator rounds: FedSage+APV mixes from round 1,
				// and the generator (a 256x2048 network) is not what this
				// test is about (methods' tests are).
				c.Algo, c.Rounds = algo, 4
				if err := c.Set("gen_rounds", "0"); err != nil {
					t.Fatal(err)
				}
			})
			press(m, "n", "n")
			if len(m.reports) != 2 {
				t.Fatalf("%d rounds run, want 2", len(m.reports))
			}
			if !strings.Contains(plain(m.hdr.View()), string(algo)) {
				t.Errorf("header does not name %s:\n%s", algo, plain(m.hdr.View()))
			}
			var names []string
			for _, s := range heatSources(m.reports[1], m.heat.offered) {
				names = append(names, s.name)
				if s.name == "apv" && !s.setsW {
					t.Error("the APV view is not marked as setting the weights")
				}
			}
			want := []string{"apv", srcWeights}
			if algo == methods.FedGTAAPV {
				want = append(want, "moments")
			}
			for _, w := range want {
				if !slices.Contains(names, w) {
					t.Errorf("heat map sources %v lack %s", names, w)
				}
			}
			if scr := plain(m.Render()); !strings.Contains(scr, "apv") {
				t.Errorf("screen does not show the APV view:\n%s", scr)
			}
			dir := filepath.Join(t.TempDir(), "out")
			m.exportDir = dir
			drive(m, m.flushExport())
			for _, e := range m.events {
				if e.bad {
					t.Errorf("console logged an error: %s", e.text)
				}
			}
			views := m.Engine().Offered()
			views = views[:len(views)-1] // the ground truth, checked apart
			if algo == methods.FedSageAPV && !slices.Equal(views, []string{"apv", "apv-delta", "pc1"}) {
				t.Errorf("FedSage+APV offers %v", views)
			}
			checkExportViews(t, dir, 2, m.k, views)
		})
	}
}
