package tui

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/v2/linechart"
	"github.com/charmbracelet/x/ansi"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/sim"
)

// chartModel is the line chart of mean validation accuracy (braille dots)
// and mean test accuracy (a line) over the rounds, with a dotted vertical
// marker, topped by the knob's symbol, at every round from which a knob
// changed.
type chartModel struct {
	styles        *Styles
	width, height int

	reports  []*sim.RoundReport
	controls []export.Control
	metric   sim.Metric // what val and test are (the title's "acc" or "AUC")
	// name replaces "mean" in the title (the drill-down's client, or the
	// branch shown when forked).
	name string
	// other, when not nil, is the other branch's rounds (a fork): its
	// test accuracy is drawn as a second line, named otherName.
	other     []*sim.RoundReport
	otherName string

	cache    string
	cacheKey chartKey
}

// chartKey identifies what a cached rendering shows.
type chartKey struct {
	last, otherLast        *sim.RoundReport
	rounds, controls, w, h int
	others                 int
}

// SetSize sets the pane's size.
func (c *chartModel) SetSize(w, h int) { c.width, c.height = w, h }

// SetData sets the rounds and the knob changes to draw.
func (c *chartModel) SetData(reports []*sim.RoundReport, controls []export.Control) {
	c.reports, c.controls = reports, controls
}

// invalidate drops the cached rendering.
func (c *chartModel) invalidate() { c.cacheKey = chartKey{} }

// View renders a title line and the chart below it.
func (c *chartModel) View() string {
	key := chartKey{nil, nil, len(c.reports), len(c.controls), c.width, c.height, len(c.other)}
	if len(c.reports) > 0 {
		key.last = c.reports[len(c.reports)-1]
	}
	if len(c.other) > 0 {
		key.otherLast = c.other[len(c.other)-1]
	}
	if key == c.cacheKey {
		return c.cache
	}
	c.cache, c.cacheKey = c.render(), key
	return c.cache
}

// title names the series with their last values and the best round so
// far, dropping what does not fit.
func (c *chartModel) title() string {
	st := c.styles
	name := "mean"
	if c.name != "" {
		name = c.name
	}
	metric, short := "acc", ""
	if c.metric == sim.ROCAUC {
		metric, short = "AUC", " AUC"
	}
	t := st.Title.Render(name+" "+metric) + " " + st.Val.Render("⣀ val") + " " + st.Test.Render("─ test")
	var extra []string
	if n := len(c.reports); n > 0 {
		last := c.reports[n-1]
		s := sim.Summarize(c.reports)
		t = st.Title.Render(name+short) + " " + st.Val.Render(fmt.Sprintf("⣀ val %.1f", last.MeanVal)) + " " +
			st.Test.Render(fmt.Sprintf("─ test %.1f", last.MeanTest))
		extra = append(extra, st.Dim.Render(fmt.Sprintf("best val %.1f@%d", s.BestVal, s.BestRound)),
			st.Dim.Render(fmt.Sprintf("(test %.1f)", s.TestAtBestVal)))
		if last.Phase != "" { // FedSage+: neighgen, then fedavg
			extra = append(extra, st.Dim.Render("phase "+last.Phase))
		}
	}
	if n := len(c.other); n > 0 {
		// The other branch's curve is always named: shorter when the
		// full label does not fit (80 columns, a fork on another
		// algorithm), at last by the branch's name alone.
		v := c.other[n-1].MeanTest
		short, _, _ := strings.Cut(c.otherName, " ")
		label := ""
		for _, l := range []string{fmt.Sprintf("─ %s test %.1f", c.otherName, v), fmt.Sprintf("─ %s %.1f", c.otherName, v), "─ " + c.otherName,
			fmt.Sprintf("─ %s %.1f", short, v), "─ " + short} {
			label = l
			if ansi.StringWidth(t)+1+ansi.StringWidth(l) <= c.width {
				break
			}
		}
		extra = append([]string{st.Marker.Render(label)}, extra...)
	}
	if len(c.controls) > 0 {
		extra = append(extra, st.Marker.Render("┊ knob"))
	}
	for _, e := range extra {
		if ansi.StringWidth(t)+1+ansi.StringWidth(e) <= c.width {
			t += " " + e
		}
	}
	return t
}

func (c *chartModel) render() string {
	h := c.height - 1
	if h < 3 || c.width < 12 {
		return c.title()
	}
	st := c.styles
	n := len(c.reports)
	lo, hi := 100.0, 0.0
	for _, r := range slices.Concat(c.reports, c.other) {
		lo = math.Min(lo, math.Min(r.MeanVal, r.MeanTest))
		hi = math.Max(hi, math.Max(r.MeanVal, r.MeanTest))
	}
	if n == 0 {
		lo, hi = 0, 100
	}
	lo = math.Max(0, math.Floor((lo-1)/5)*5)
	hi = math.Min(100, math.Ceil((hi+1)/5)*5)
	if hi-lo < 10 {
		lo, hi = math.Max(0, hi-10), math.Max(hi, 10)
	}
	maxX := float64(max(10, n, len(c.other)))
	lc := c.canvas(h, maxX, lo, hi)
	lc.DrawXYAxisAndLabel()
	c.drawRoundLabels(lc, int(maxX))
	// Knob markers under the data.
	for i, k := range c.controls {
		if i+1 < len(c.controls) && c.controls[i+1].Round == k.Round {
			continue // one marker per round
		}
		x := float64(k.Round)
		if x > maxX {
			continue
		}
		sym := knobSymbol(c.controls, k.Round)
		lc.DrawRuneLineWithStyle(canvas.Float64Point{X: x, Y: lo}, canvas.Float64Point{X: x, Y: hi}, '┊', st.Marker)
		lc.DrawRuneWithStyle(canvas.Float64Point{X: x, Y: hi}, sym, st.Marker)
	}
	// Validation: braille dots on one grid, so that segments combine.
	if n > 0 {
		startX := lc.Origin().X + 1
		bg := graph.NewBrailleGrid(lc.GraphWidth(), lc.GraphHeight(), 1, maxX, lo, hi)
		prev := bg.GridPoint(canvas.Float64Point{X: 1, Y: c.reports[0].MeanVal})
		bg.Set(prev)
		for _, r := range c.reports[1:] {
			p := bg.GridPoint(canvas.Float64Point{X: float64(r.Round), Y: r.MeanVal})
			for _, q := range graph.GetLinePoints(prev, p) {
				bg.Set(q)
			}
			prev = p
		}
		graph.DrawBraillePatterns(&lc.Canvas, canvas.Point{X: startX, Y: 0}, bg.BraillePatterns(), st.Val)
	}
	// The other branch's test accuracy: a line of its own colour, under
	// this branch's (the rounds before the fork coincide).
	for i := 1; i < len(c.other); i++ {
		a, b := c.other[i-1], c.other[i]
		lc.DrawLineWithStyle(canvas.Float64Point{X: float64(a.Round), Y: a.MeanTest},
			canvas.Float64Point{X: float64(b.Round), Y: b.MeanTest}, runes.ArcLineStyle, st.Marker)
	}
	// Test: a line.
	for i := 1; i < n; i++ {
		a, b := c.reports[i-1], c.reports[i]
		lc.DrawLineWithStyle(canvas.Float64Point{X: float64(a.Round), Y: a.MeanTest},
			canvas.Float64Point{X: float64(b.Round), Y: b.MeanTest}, runes.ArcLineStyle, st.Test)
	}
	if n == 1 {
		lc.DrawRuneWithStyle(canvas.Float64Point{X: 1, Y: c.reports[0].MeanTest}, '•', st.Test)
	}
	return c.title() + "\n" + canvasView(&lc.Canvas)
}

// canvasView renders a canvas like its View, but styles each run of
// cells that share a foreground colour at once, which is many times
// faster than a style per cell.
func canvasView(cv *canvas.Model) string {
	var b strings.Builder
	w, h := cv.Width(), cv.Height()
	run := make([]rune, 0, w)
	for y := 0; y < h; y++ {
		if y > 0 {
			b.WriteByte('\n')
		}
		var style lipgloss.Style
		var fg color.Color
		flush := func() {
			if len(run) > 0 {
				b.WriteString(style.Render(string(run)))
				run = run[:0]
			}
		}
		for x := 0; x < w; x++ {
			c := cv.Cell(canvas.Point{X: x, Y: y})
			r := c.Rune
			if r == 0 {
				r = ' '
			}
			if f := c.Style.GetForeground(); len(run) == 0 || f != fg {
				flush()
				style, fg = c.Style, f
			}
			run = append(run, r)
		}
		flush()
	}
	return b.String()
}

// canvas returns an empty line chart of the chart's width and h rows for
// the given ranges.
func (c *chartModel) canvas(h int, maxX, lo, hi float64) *linechart.Model {
	st := c.styles
	// Every y label as wide as the widest (ntcharts sizes the label
	// column by the first label, the lowest, and cuts the others: "00"
	// for 100 above 90).
	lw := max(len(strconv.FormatFloat(lo, 'f', 0, 64)), len(strconv.FormatFloat(hi, 'f', 0, 64)))
	label := func(_ int, v float64) string { return fmt.Sprintf("%*s", lw, strconv.FormatFloat(v, 'f', 0, 64)) }
	// The x axis's labels are drawn by drawRoundLabels: ntcharts labels
	// evenly spaced columns with the rounded value there, which skips
	// rounds (1 2 3 4 6 7 on a 10-round axis).
	none := func(int, float64) string { return "" }
	lc := linechart.New(c.width, h, 1, maxX, lo, hi,
		linechart.WithXYSteps(1, max(1, h/3)),
		linechart.WithStyles(st.Axis, st.Label, st.Test),
		linechart.WithYLabelFormatter(label),
		linechart.WithXLabelFormatter(none),
	)
	return &lc
}

// roundTicks returns the rounds to label on an axis of rounds 1..maxX
// drawn over cols columns: the first round and every multiple of the
// smallest step of 1, 5, 10, 20, 50, 100, 200, 500, ... that leaves each
// label at least one label's width plus two columns of room, so that
// the labels are evenly spaced integers (1 5 10 15 or 1 10 20 30, never
// 1 3 6 8). A multiple too close to round 1 (less than a label's width
// plus one away) is dropped.
func roundTicks(maxX, cols int) []int {
	if maxX < 1 || cols < 1 {
		return nil
	}
	if maxX == 1 {
		return []int{1}
	}
	width := len(strconv.Itoa(maxX))
	colsPer := float64(cols-1) / float64(maxX-1) // columns per round
	step := 1
	for _, s := range niceSteps(maxX) {
		step = s
		if float64(s)*colsPer >= float64(2*width+2) {
			break
		}
	}
	ticks := []int{1}
	for r := step; r <= maxX; r += step {
		if r == 1 {
			continue
		}
		if float64(r-1)*colsPer < float64(width+1) {
			continue // would touch the label of round 1
		}
		ticks = append(ticks, r)
	}
	return ticks
}

// niceSteps returns 1, 5, 10, 20, 50, 100, ... up to the first step of at
// least maxX.
func niceSteps(maxX int) []int {
	steps := []int{1, 5}
	for s := 10; ; s *= 10 {
		steps = append(steps, s, 2*s, 5*s)
		if s >= maxX {
			return steps
		}
	}
}

// drawRoundLabels writes roundTicks under the x axis, each centred on the
// column of its round (the column DrawRune puts the round's points in),
// and kept inside the canvas.
func (c *chartModel) drawRoundLabels(lc *linechart.Model, maxX int) {
	gw := lc.GraphWidth()
	y := lc.Origin().Y + 1
	if gw < 2 || y >= lc.Canvas.Height() {
		return
	}
	next := 0 // first column free for a label
	for _, r := range roundTicks(maxX, gw) {
		s := strconv.Itoa(r)
		col := lc.Origin().X + 1 + int(math.Round(float64(r-1)*float64(gw-1)/float64(max(1, maxX-1))))
		x := min(col-(len(s)-1)/2, lc.Canvas.Width()-len(s))
		if x < next {
			continue
		}
		lc.Canvas.SetStringWithStyle(canvas.Point{X: x, Y: y}, s, c.styles.Label)
		next = x + len(s) + 1
	}
}

// knobSymbol is the marker's head: α (alpha or auto α's partners), σ,
// the first letter of a method's live setting (m for FedProx's mu), or *
// when knobs of more than one of these kinds changed at round.
func knobSymbol(cs []export.Control, round int) rune {
	kinds := map[rune]bool{}
	for _, c := range cs {
		if c.Round != round {
			continue
		}
		switch c.Name {
		case "alpha", "partners": // auto α
			kinds['α'] = true
		case "sigma":
			kinds['σ'] = true
		default:
			r, _ := utf8.DecodeRuneInString(string(c.Name))
			kinds[r] = true
		}
	}
	if len(kinds) > 1 {
		return '*'
	}
	for r := range kinds {
		return r
	}
	return 'α'
}
