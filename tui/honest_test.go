package tui

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// TestHeatScale toggles the heat map between the raw and the stretched
// scale and checks what the legend says. sbm's APV cosines span about
// 1e-5, so the map opens stretched by the rule.
func TestHeatScale(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n")
	rep := m.reports[0]
	olo, ohi, _ := export.OffDiagRange(rep.Similarity)
	a, b := export.RangeLabels(olo, ohi)
	stretchedLegend := func(scr string) bool {
		return strings.Contains(scr, "apv  stretched "+a+" ") && (strings.Contains(scr, " "+b+"\n") || strings.Contains(scr, " "+b+" "))
	}
	scr := plain(m.Render())
	if !stretchedLegend(scr) || !strings.Contains(scr, "auto: ") {
		t.Errorf("the heat map does not open auto-stretched over %s … %s:\n%s", a, b, scr)
	}
	lo, hi := export.Range(rep.Similarity)
	los, his := export.RangeLabels(lo, hi)
	if !strings.Contains(scr, "min "+los+" max "+his) {
		t.Errorf("legend lacks the true range min %s max %s:\n%s", los, his, scr)
	}
	press(m, "z")
	if scr = plain(m.Render()); !strings.Contains(scr, "apv  raw -1 ") || strings.Contains(scr, "stretched "+a) {
		t.Errorf("z does not switch to the raw scale:\n%s", scr)
	}
	press(m, "z")
	if scr = plain(m.Render()); !stretchedLegend(scr) || strings.Contains(scr, "auto: ") {
		t.Errorf("z again does not stretch (by choice, no auto note):\n%s", scr)
	}
}

// TestHeatLevels checks the shading itself: on the raw scale a nearly
// uniform cosine matrix is one shade; stretched, its off-diagonal range
// spans every shade.
func TestHeatLevels(t *testing.T) {
	st := NewStyles(true)
	m := [][]float64{{1, 0.99991, 0.99997}, {0.99991, 1, 0.99994}, {0.99997, 0.99994, 1}}
	levels := func(sc export.Scale) map[int]bool {
		seen := map[int]bool{}
		for i := range m {
			for j := range m[i] {
				if i != j {
					seen[st.heatLevel(m[i][j], sc.Lo, sc.Hi)] = true
				}
			}
		}
		return seen
	}
	if got := levels(export.RawScale(export.Cosine)); len(got) != 1 || !got[st.HeatLevels()-1] {
		t.Errorf("raw scale shades %v, want only the top one", got)
	}
	if got := levels(export.StretchedScale(m)); !got[0] || !got[st.HeatLevels()-1] {
		t.Errorf("stretched scale shades %v, want both ends", got)
	}
}

// TestHeatSources switches the heat map through every matrix the engine
// offers and checks the title names each. A view is computed only while
// shown: the first round has the APV view that sets the weights, the
// weights and the ground truth; the others are listed, say from which
// round they are computed, and show their matrix after the next round
// (FED-PUB's functional view included), while the views no longer shown
// are not computed any more.
func TestHeatSources(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n")
	m.heat.scale = scaleRaw // every title reads "raw", whatever the rule picks
	srcs := heatSources(m.reports[0], m.heat.offered)
	var names, later []string
	for _, s := range srcs {
		names = append(names, s.name)
		if s.later {
			later = append(later, s.name)
		}
	}
	want := []string{"apv", "apv-delta", "pc1", "readout", "functional", srcWeights, srcGroundTruth}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("sources %v, want %v", names, want)
	}
	if w := []string{"apv-delta", "pc1", "readout", "functional"}; strings.Join(later, ",") != strings.Join(w, ",") {
		t.Fatalf("views not computed in round 1: %v, want %v", later, w)
	}
	if !srcs[0].setsW {
		t.Error("apv is not marked as the similarity that sets the weights")
	}
	titled := func(name string) bool {
		scr := plain(m.Render())
		return strings.Contains(scr, "\n"+strings.Repeat(" ", 49)+name+"  raw ") || strings.Contains(scr, " "+name+"  raw ")
	}
	for i, name := range want {
		if i > 0 {
			press(m, "m")
		}
		if slices.Contains(later, name) {
			// Paused, the view shown is computed at once for the last
			// round (defect 9: it stayed empty until the next round).
			if _, ok := m.reports[len(m.reports)-1].Views[sim.Source(name)]; !ok {
				t.Errorf("%s: shown while paused, but not computed for round %d", name, len(m.reports))
			}
			if strings.Contains(plain(m.Render()), "computed from round") {
				t.Errorf("%s: the heat map waits for a round:\n%s", name, plain(m.Render()))
			}
			press(m, "n") // the view is on screen: the next round computes it
			if _, ok := m.reports[len(m.reports)-1].Views[sim.Source(name)]; !ok {
				t.Errorf("%s: shown, but not computed by the next round", name)
			}
		}
		if !titled(name) {
			t.Errorf("heat map title does not name %s:\n%s", name, plain(m.Render()))
		}
	}
	// Shown last: the ground truth; no view but the APV is computed now.
	press(m, "n")
	last := m.reports[len(m.reports)-1]
	if len(last.Views) != 1 || last.GroundTruth == nil {
		t.Errorf("round %d computed views %d (want the APV only) and ground truth %v", last.Round, len(last.Views), last.GroundTruth != nil)
	}
	press(m, "m")
	if m.heat.src != "apv" {
		t.Errorf("m does not cycle back to apv: %q", m.heat.src)
	}
	// The pc1 view is an absolute cosine: its raw scale is [0, 1].
	press(m, "m", "m", "n")
	if scr := plain(m.Render()); !strings.Contains(scr, "pc1  raw 0 ") {
		t.Errorf("pc1 raw scale is not [0, 1]:\n%s", scr)
	}
}

// TestHeaderSpread checks the header's weights spread and the auto alpha
// and pending-variant forms.
func TestHeaderSpread(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	if strings.Contains(plain(m.hdr.View()), "w max/min") {
		t.Error("the header shows a weights spread before any round")
	}
	press(m, "n")
	r, _ := export.WeightSpread(m.reports[0].Weights)
	if want := "w max/min " + fmtSpread(r); !strings.Contains(plain(m.hdr.View()), want) {
		t.Errorf("header lacks %q: %s", want, plain(m.hdr.View()))
	}
	h := m.hdr
	h.partners, h.prevPartn = 4, 4
	if got := plain(h.View()); !strings.Contains(got, "auto α (4 partners)") {
		t.Errorf("auto alpha header: %s", got)
	}
	h.nextSource, h.nextMix = "pc1", "off"
	if got := plain(h.View()); !strings.Contains(got, "on r/R: sim pc1, apv-mix off") {
		t.Errorf("pending variant header: %s", got)
	}
	for _, w := range []int{80, 60, 40} {
		h.SetWidth(w)
		if got := plain(h.View()); len([]rune(got)) != w || !strings.Contains(got, "auto(4)") && w >= 80 {
			t.Errorf("header at %d columns: %q", w, got)
		}
	}
	if fmtSpread(1.00061) != "1.0006" || fmtAlpha(123456) != "1.23e5" || fmtAlpha(12.5) != "12.5" {
		t.Errorf("formats: %s %s %s", fmtSpread(1.00061), fmtAlpha(123456), fmtAlpha(12.5))
	}
}

// TestPartnersKnob steps and types auto alpha's partners, refusing values
// out of range, and checks the per-client alphas shown.
func TestPartnersKnob(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "]")
	if p := m.Engine().Knobs().Partners; p != 1 {
		t.Errorf("] from 0 sets partners %v, want 1", p)
	}
	press(m, "[")
	if p := m.Engine().Knobs().Partners; p != 0 {
		t.Errorf("[ from 1 sets partners %v, want 0 (auto alpha off)", p)
	}
	press(m, "A")
	m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	press(m, "2", "1", "enter")
	if m.screen != prompting || !strings.Contains(m.prompt.err, "<= 20") {
		t.Errorf("partners 21 of 20 clients accepted (prompt error %q)", m.prompt.err)
	}
	m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	press(m, "0", ".", "5", "enter")
	if !strings.Contains(m.prompt.err, ">= 1") {
		t.Errorf("partners 0.5 accepted (prompt error %q)", m.prompt.err)
	}
	m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	press(m, "4", "enter")
	if p := m.Engine().Knobs().Partners; m.screen != dashboard || p != 4 {
		t.Fatalf("typed partners 4: engine has %v", p)
	}
	press(m, "n", "v")
	rep := m.reports[0]
	if len(rep.Alphas) != m.k {
		t.Fatalf("round with auto alpha has %d alphas", len(rep.Alphas))
	}
	scr := plain(m.Render())
	for _, want := range []string{"auto α (4 partners)", "auto α", fmtAlpha(rep.Alphas[m.order[0]]), "α(" + clientLabel(m.order[0], m.groups) + ") "} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	for range 30 {
		press(m, "]")
	}
	if p := m.Engine().Knobs().Partners; p != float64(m.k) {
		t.Errorf("] stops at %v, want K = %d", p, m.k)
	}
}

// TestVariantReset cycles the similarity source and apv-mix, which wait
// for a reset, and resets into them with the same seed.
func TestVariantReset(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n", "g", "x")
	if c := m.Engine().Config(); c.Source != sim.SourceAPV || !c.APVMix {
		t.Fatalf("g and x changed the running engine: %+v", c)
	}
	if scr := plain(m.Render()); !strings.Contains(scr, "on r/R: sim apv-delta, apv-mix off") {
		t.Errorf("header lacks the pending variant:\n%s", scr)
	}
	press(m, "R")
	c := m.Engine().Config()
	if c.Source != sim.SourceAPVDelta || c.APVMix || c.Seed != 7 {
		t.Errorf("after reset: source %s, apv-mix %v, seed %d; want apv-delta, off, 7", c.Source, c.APVMix, c.Seed)
	}
	if scr := plain(m.Render()); strings.Contains(scr, "on r/R:") || !strings.Contains(scr, "sbm·fedaux·apv-delta·apv-mix off") {
		t.Errorf("header after the reset:\n%s", scr)
	}
	// Cycling all the way round leaves nothing pending.
	for range sim.Sources() {
		press(m, "g")
	}
	press(m, "x", "x")
	if m.pending {
		t.Errorf("variant still pending after cycling back: %s %v", m.nextSource, m.nextMix)
	}
	press(m, "r")
	if c := m.Engine().Config(); c.Source != sim.SourceAPVDelta || c.Seed != 8 {
		t.Errorf("plain reset: source %s seed %d", c.Source, c.Seed)
	}
}

// TestScreenStretched renders the console on the sbm preset (seed 7)
// after 10 rounds with the stretched scale (the rule's), at 120 x 40
// without colour, as plain text (like tmux capture-pane -p), and compares it with
// testdata/screen-sbm-stretched.txt (-update rewrites it). The round
// time is masked.
func TestScreenStretched(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 10 full rounds")
	}
	p, err := presets.Get("sbm") // the paper's 3000 nodes, as users open it
	if err != nil {
		t.Fatal(err)
	}
	m := openPreset(t, p, true, 120, 40)
	press(m, "N")
	if m.Round() != 10 {
		t.Fatalf("%d rounds", m.Round())
	}
	out := plain(masked(m.Render()))
	checkSize(t, out, 120, 40)
	if !strings.Contains(out, "apv  stretched 0.9999") {
		t.Errorf("screen lacks the stretched legend:\n%s", out)
	}
	path := filepath.Join("testdata", "screen-sbm-stretched.txt")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(out+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != out+"\n" {
		t.Errorf("screen differs from %s (go test -run TestScreenStretched -update):\n%s", path, out)
	}
}
