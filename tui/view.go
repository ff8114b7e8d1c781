package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/fedaux/fedaux/sim"
)

// Minimum useful sizes.
const (
	minChartRows = 7
	leftMinW     = 30
	leftMaxW     = 60
)

// component is what each dashboard pane offers the root model: it is
// given a size and renders itself in it. Its data comes through its own
// SetData.
type component interface {
	SetSize(w, h int)
	View() string
}

var (
	_ component = (*barsModel)(nil)
	_ component = (*chartModel)(nil)
	_ component = (*heatModel)(nil)
)

// layout is where the dashboard's parts go: the bars on the left, the
// heat map on the right, and the chart below both (tall screens), below
// the heat map (medium), or in the heat map's place, switched with tab
// (small).
type layout struct {
	bodyH, eventsH       int
	leftW, rightW        int
	topH                 int // rows of bars and heat map when the chart is below both
	barsH, chartH, heatH int
	chartBelow           bool
	showHeat, showChart  bool
}

// plan computes the layout for the current size.
func (m *Model) plan() layout {
	w, h := m.width, m.height
	var l layout
	l.eventsH = 1
	if h >= 32 {
		l.eventsH = 3
	}
	l.bodyH = max(1, h-2-l.eventsH)
	l.leftW = max(leftMinW, min(leftMaxW, w*2/5))
	if l.leftW > w {
		l.leftW = w
	}
	l.rightW = max(0, w-l.leftW-1)
	l.barsH = min(m.k+1, l.bodyH)
	l.showHeat, l.showChart = true, true
	full, compact := m.heat.needFull(), m.heat.needCompact()
	if top := max(m.k+1, full); l.bodyH >= top+minChartRows {
		l.chartBelow, l.topH, l.heatH = true, top, full
		l.chartH = l.bodyH - top
		return l
	}
	switch {
	case l.bodyH >= full+minChartRows:
		l.heatH = full
	case !m.styles.NoColor && l.bodyH >= compact+minChartRows:
		l.heatH = compact
	default:
		l.showHeat, l.showChart = m.pane == 0, m.pane == 1
		l.heatH, l.chartH = l.bodyH, l.bodyH
		return l
	}
	l.chartH = l.bodyH - l.heatH
	return l
}

// resize gives every component its size.
func (m *Model) resize() {
	l := m.plan()
	m.hdr.SetWidth(m.width)
	m.bars.SetSize(l.leftW, l.barsH)
	if l.chartBelow {
		m.chart.SetSize(m.width, l.chartH)
	} else {
		m.chart.SetSize(l.rightW, l.chartH)
	}
	m.heat.SetSize(l.rightW, l.heatH)
	m.prompt.SetWidth(m.width)
	m.help.SetWidth(m.width)
	if m.screen == picking {
		m.picker.SetSize(m.width, l.bodyH+l.eventsH)
	}
	m.scen.SetSize(m.width, l.bodyH)
	m.drill.SetSize(m.width, l.bodyH)
	m.algos.SetSize(m.width, l.bodyH)
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "fedaux · " + m.preset.Label()
	return v
}

// Render returns the screen's text (View's content), exactly the
// terminal's size.
func (m *Model) Render() string {
	l := m.plan()
	w := m.width
	parts := []string{fit(m.hdr.View(), w, 1)}
	// A prompt takes the lines it needs (its hint or refusal wrapped,
	// then its field) from the log, then from the bottom of the body.
	foot := m.footer()
	fh := min(strings.Count(foot, "\n")+1, l.bodyH+l.eventsH)
	if extra := fh - 1; extra > 0 {
		take := min(extra, l.eventsH)
		l.eventsH -= take
		l.bodyH -= extra - take
	}
	body := m.screen
	if body == prompting {
		body = m.back // the prompt is under the screen it was opened from
	}
	switch body {
	case picking:
		parts = append(parts, fit(m.picker.View(), w, l.bodyH+l.eventsH))
	case editing:
		parts = append(parts, fit(m.scen.View(), w, l.bodyH))
		if l.eventsH > 0 {
			parts = append(parts, fit(m.eventsView(l.eventsH, w), w, l.eventsH))
		}
	case choosing:
		parts = append(parts, fit(m.algos.View(), w, l.bodyH))
		if l.eventsH > 0 {
			parts = append(parts, fit(m.eventsView(l.eventsH, w), w, l.eventsH))
		}
	case drilling:
		parts = append(parts, fit(m.drill.View(), w, l.bodyH))
		if l.eventsH > 0 {
			parts = append(parts, fit(m.eventsView(l.eventsH, w), w, l.eventsH))
		}
	case helping:
		body := m.styles.Title.Render("keys") + "  " + m.styles.Dim.Render(m.methodSettings())
		for _, b := range m.keys.helpBlocks() {
			body += "\n\n" + m.help.FullHelpView(b)
		}
		body += "\n\n" + m.styles.Dim.Render(helpText)
		parts = append(parts, fit(body, w, l.bodyH+l.eventsH))
	default:
		parts = append(parts, fit(m.dashboard(l), w, l.bodyH))
		if l.eventsH > 0 {
			parts = append(parts, fit(m.eventsView(l.eventsH, w), w, l.eventsH))
		}
	}
	parts = append(parts, fit(foot, w, fh))
	return strings.Join(parts, "\n")
}

// methodSettings lists the algorithm's own settings as the next round
// uses them, the live ones marked: "fedprox's settings: mu 0.5 (live:
// o)"; "fedavg has no settings of its own".
func (m *Model) methodSettings() string {
	meth, _ := sim.LookupMethod(m.cfg.Algo)
	if len(meth.Settings) == 0 {
		return fmt.Sprintf("%s has no settings of its own", m.cfg.Algo)
	}
	k := m.Knobs()
	var parts []string
	for _, s := range meth.Settings {
		v := k.Settings.String(s.Key)
		if s.Live {
			v = fmtKnob(k.Value(sim.Knob(s.Key))) + " (live: o)"
		}
		parts = append(parts, s.Key+" "+v)
	}
	return fmt.Sprintf("%s's settings: %s", m.cfg.Algo, strings.Join(parts, ", "))
}

// helpText explains what the keys do not.
const helpText = `Knob changes apply from the next round: header α old→new, chart marker;
"–": the algorithm does not read the knob. A failed round rolls back to the
last good one. ] [ A: auto α, alpha per client for P partners (0: fixed α).
g x: sim source and apv-mix of the next engine (header "on r/R:"); r
restarts with the next seed, R with the same, keeping the knobs. m: the
round's matrices. z: raw or stretched scale (auto under 1 % of the raw
scale). Any key returns.`

// dashboard renders the bars, the chart and the heat map.
func (m *Model) dashboard(l layout) string {
	if l.chartBelow {
		top := joinColumns(1, fit(m.bars.View(), l.leftW, l.topH), fit(m.heat.View(), l.rightW, l.topH))
		return top + "\n" + fit(m.chart.View(), m.width, l.chartH)
	}
	left := fit(m.bars.View(), l.leftW, l.bodyH)
	if l.rightW == 0 {
		return left
	}
	var right []string
	if l.showHeat {
		right = append(right, fit(m.heat.View(), l.rightW, l.heatH))
	}
	if l.showChart {
		right = append(right, fit(m.chart.View(), l.rightW, l.chartH))
	}
	return joinColumns(1, left, fit(strings.Join(right, "\n"), l.rightW, l.bodyH))
}

// eventsView renders the last n lines of the console's log. An error
// wider than w (when w > 0) wraps onto the lines above it that are left
// (errorLines); other lines are cut by fit.
func (m *Model) eventsView(n, w int) string {
	var lines []string // built from the newest up
	for i := len(m.events) - 1; i >= 0 && len(lines) < n; i-- {
		e := m.events[i]
		style, parts := m.styles.Event, []string{"· " + e.text}
		if e.bad {
			style, parts = m.styles.Error, errorLines("! "+e.text, w, n-len(lines))
		}
		for j := len(parts) - 1; j >= 0; j-- {
			lines = append(lines, style.Render(parts[j]))
		}
	}
	slices.Reverse(lines)
	return strings.Join(lines, "\n")
}

// errorLines lays text out on at most room lines of width w, the
// continuations indented by two: word-wrapped when that fits, so that
// what went wrong is read whole on a screen with room for it; else the
// head on all but the last line and, on the last, the end of text (often
// the reason: "file name too long"), the middle elided (what the head
// leaves wraps onto two lines or more, so that end repeats nothing of
// the head). One line, or w <= 2, leaves text whole for fit to cut.
func errorLines(text string, w, room int) []string {
	width := ansi.StringWidth(text)
	if w <= 2 || room <= 1 || width <= w {
		return []string{text}
	}
	parts := strings.Split(ansi.Wrap(text, w-2, " "), "\n")
	if len(parts) > room {
		parts = append(parts[:room-1:room-1], ansi.TruncateLeft(text, width-(w-3), "…"))
	}
	for j := 1; j < len(parts); j++ {
		parts[j] = "  " + parts[j]
	}
	return parts
}

// footer is the prompt when one is open, else the short help.
func (m *Model) footer() string {
	if m.screen == prompting {
		return m.prompt.View()
	}
	if m.screen == editing {
		return m.help.ShortHelpView(m.scen.keys.ShortHelp())
	}
	if m.screen == choosing {
		return m.help.ShortHelpView(m.algos.help())
	}
	if m.screen == picking {
		return m.help.ShortHelpView(m.picker.help())
	}
	if m.screen == helping {
		return m.help.ShortHelpView(m.keys.helpScreen())
	}
	return m.help.ShortHelpView(m.keys.ShortHelp())
}
