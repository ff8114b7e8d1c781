package tui

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// TestRoundTicks checks the chart's x-axis labels: the first round and
// evenly spaced multiples of 1, 5, 10, 20, ... that leave room between
// the labels.
func TestRoundTicks(t *testing.T) {
	seq := func(from, to, step int) []int {
		out := []int{1}
		for r := from; r <= to; r += step {
			out = append(out, r)
		}
		return out
	}
	for _, c := range []struct {
		maxX, cols int
		want       []int
	}{
		{10, 116, seq(2, 10, 1)}, // the 120-column chart below both panes
		{10, 60, seq(2, 10, 1)},  // 6.6 columns a round
		{10, 40, seq(5, 10, 5)},  // 4.3 columns a round: 1 5 10
		{20, 116, seq(2, 20, 1)}, // 6 columns a round, like 10 rounds in 60
		{20, 80, seq(5, 20, 5)},  // 1 5 10 15 20
		{100, 116, seq(10, 100, 10)},
		{100, 40, seq(50, 100, 50)},
		{37, 116, seq(5, 35, 5)},
		{1, 116, []int{1}},
	} {
		if got := roundTicks(c.maxX, c.cols); !slices.Equal(got, c.want) {
			t.Errorf("roundTicks(%d, %d) = %v, want %v", c.maxX, c.cols, got, c.want)
		}
	}
	// Whatever the size: after the first round, one step apart.
	for maxX := 2; maxX <= 300; maxX += 7 {
		for cols := 10; cols <= 200; cols += 13 {
			ticks := roundTicks(maxX, cols)
			if len(ticks) == 0 || ticks[0] != 1 {
				t.Fatalf("roundTicks(%d, %d) = %v does not start at round 1", maxX, cols, ticks)
			}
			for i := 3; i < len(ticks); i++ {
				if ticks[i]-ticks[i-1] != ticks[2]-ticks[1] {
					t.Fatalf("roundTicks(%d, %d) = %v is not evenly spaced", maxX, cols, ticks)
				}
			}
		}
	}
}

// TestChartRoundLabels draws the chart of 10 rounds and reads its x axis:
// every round from 1 to 10, round 5 included (ntcharts' own labels read
// 1 2 3 4 6 7 8 9 10 there), each under its round's column.
func TestChartRoundLabels(t *testing.T) {
	st := NewStyles(true)
	c := chartModel{styles: &st}
	var reps []*sim.RoundReport
	for r := 1; r <= 10; r++ {
		reps = append(reps, &sim.RoundReport{Round: r, MeanVal: 60 + float64(r), MeanTest: 58 + float64(r)})
	}
	c.SetData(reps, nil)
	for _, w := range []int{120, 72} {
		c.SetSize(w, 12)
		lines := strings.Split(plain(c.View()), "\n")
		axis := lines[len(lines)-1]
		var got []int
		for _, f := range strings.Fields(axis) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("x axis at %d columns has %q: %q", w, f, axis)
			}
			got = append(got, n)
		}
		if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; !slices.Equal(got, want) {
			t.Errorf("x axis at %d columns reads %v, want %v:\n%s", w, got, want, axis)
		}
		// Labels sit where the rounds' points are: equal gaps, to a column.
		var cols []int
		for _, f := range strings.Fields(axis) {
			cols = append(cols, strings.Index(axis, " "+f+" ")+1)
		}
		for i := 2; i < len(cols)-1; i++ {
			if d, d0 := cols[i]-cols[i-1], cols[1]-cols[0]; d < d0-1 || d > d0+1 {
				t.Errorf("x axis at %d columns: label gaps %v", w, cols)
				break
			}
		}
	}
}

// TestAutoStretch checks the rule: a matrix opens stretched when its
// off-diagonal entries differ by less than 1 % of its raw scale.
func TestAutoStretch(t *testing.T) {
	m3 := func(a, b, c float64) [][]float64 { return [][]float64{{1, a, b}, {a, 1, c}, {b, c, 1}} }
	for _, c := range []struct {
		name string
		s    heatSource
		want bool
	}{
		{"sbm's apv", heatSource{m: m3(0.99993, 0.99998, 0.99995), kind: export.Cosine}, true},
		{"span 1.9 % of [-1, 1]", heatSource{m: m3(0.981, 0.999, 1), kind: export.Cosine}, true},
		{"span 2.1 % of [-1, 1]", heatSource{m: m3(0.979, 0.999, 1), kind: export.Cosine}, false},
		{"groups on the raw scale", heatSource{m: m3(0.1, 0.9, 0.5), kind: export.Cosine}, false},
		{"near-uniform weights", heatSource{m: m3(0.0499, 0.0501, 0.05), kind: export.Weights}, true},
		{"weights span 0.011 of [0, 1]", heatSource{m: m3(0.3, 0.311, 0.305), kind: export.Weights}, false},
		{"FedAvg's equal weights", heatSource{m: m3(0.5, 0.5, 0.5), kind: export.Weights}, false},
		{"one client", heatSource{m: [][]float64{{1}}, kind: export.Cosine}, false},
	} {
		if got := autoStretch(c.s); got != c.want {
			t.Errorf("%s: autoStretch = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestScaleAutoThenChosen opens sbm, whose APV cosines span about 1e-5:
// the heat map is stretched by the rule (legend "stretched" with the
// range, the note "auto", a log line), m to the pc1 view goes raw by the
// same rule, and after z the user's choice holds for every matrix.
func TestScaleAutoThenChosen(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	if s, auto := m.heat.Stretched(); s || auto {
		t.Errorf("before any round: stretched %v auto %v", s, auto)
	}
	press(m, "n")
	lo, hi, _ := export.OffDiagRange(m.reports[0].Similarity)
	a, b := export.RangeLabels(lo, hi)
	scr := plain(m.Render())
	for _, want := range []string{"apv  stretched " + a + " ", " " + b, "auto: span", "heat map stretched: the off-diagonal entries of apv span"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	press(m, "m", "m", "n") // apv-delta, pc1, and a round that computes it
	if scr = plain(m.Render()); !strings.Contains(scr, "pc1  raw 0 ") {
		t.Errorf("pc1 (wide range) is not raw under the rule:\n%s", scr)
	}
	press(m, "m", "m", "m", "m", "m") // back to apv
	press(m, "z")
	if s, auto := m.heat.Stretched(); s || auto {
		t.Errorf("z on the auto-stretched map: stretched %v auto %v, want raw by choice", s, auto)
	}
	press(m, "n")
	if scr = plain(m.Render()); !strings.Contains(scr, "apv  raw -1 ") || strings.Contains(scr, "auto:") {
		t.Errorf("the user's raw scale does not hold the next round:\n%s", scr)
	}
	press(m, "z", "m", "m", "n")
	if scr = plain(m.Render()); !strings.Contains(scr, "pc1  stretched ") {
		t.Errorf("the user's stretched scale does not hold for pc1:\n%s", scr)
	}
}

// TestEllipsis cuts text at the screen's edge: the line ends with "…"
// and keeps its colours; in the console at 44 columns, the log line, the
// help line and the heat map's rows end so.
func TestEllipsis(t *testing.T) {
	red := lipgloss.NewStyle().Foreground(lipgloss.Color("#ff0000"))
	line := red.Render("federated learning") + " on graphs"
	got := fit(line, 12, 1)
	if p := plain(got); p != "federated l…" {
		t.Errorf("fit cut to %q, want %q", p, "federated l…")
	}
	if !strings.Contains(got, "\x1b[") || ansi.StringWidth(got) != 12 {
		t.Errorf("fit lost the colour or the width: %q", got)
	}
	if got := plain(fit("short", 12, 1)); got != "short       " {
		t.Errorf("fit of a short line = %q", got)
	}
	m := newTestModel(t, false, 44, 16, small)
	scr := plain(m.Render())
	checkSize(t, m.Render(), 44, 16)
	lines := strings.Split(scr, "\n")
	if ev := lines[len(lines)-2]; !strings.HasPrefix(ev, "· sbm: ") || !strings.HasSuffix(ev, "…") {
		t.Errorf("the cut log line does not end with an ellipsis: %q", ev)
	}
	if help := lines[len(lines)-1]; !strings.HasPrefix(help, "n step") || !strings.HasSuffix(help, "…") {
		t.Errorf("the cut help line does not end with an ellipsis: %q", help)
	}
	// The heat map's 20 columns do not fit its 13: each row says so.
	press(m, "n")
	for _, l := range strings.Split(plain(m.Render()), "\n")[2:12] {
		if !strings.HasSuffix(l, "…") {
			t.Errorf("a cut heat map row does not end with an ellipsis: %q", l)
		}
	}
}

// TestFirstScreen opens the console as `fedaux` with no arguments does,
// on presets.Default, steps three rounds in a teatest program and checks
// the first screen: the preset's name in the header, the heat map of the
// weights' similarity stretched by the rule with its range in the
// legend, and the clients' bars.
func TestFirstScreen(t *testing.T) {
	if presets.Default == "sbm" {
		t.Fatal("the console still opens on sbm")
	}
	m := newPresetModel(t, presets.Default, false, 120, 40, small)
	o := &observer{}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithFilter(o.filter)))
	o.waitFor(t, tm, "the first screen", func(o *observer) bool { return strings.Contains(o.screen, "round 0/") })
	tm.Send(keyMsg("n"))
	tm.Send(keyMsg("n"))
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 3", func(o *observer) bool { return o.round == 3 && !o.busy })
	fm := quit(t, m, tm)
	scr := plain(fm.Render())
	lo, hi, _ := export.OffDiagRange(fm.reports[2].Similarity)
	a, b := export.RangeLabels(lo, hi)
	for _, want := range []string{presets.Default + "·fedaux·apv", "round 3/", "apv  stretched " + a + " ", " " + b, "auto: span", "mean ⣀ val"} {
		if !strings.Contains(scr, want) {
			t.Errorf("first screen lacks %q:\n%s", want, scr)
		}
	}
}
