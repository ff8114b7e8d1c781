package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/fedaux/fedaux/sim"
)

// drillModel is the drill-down on one client: its validation and test
// accuracy over the rounds (a chart), its training loss over the rounds
// (a sparkline), its row of the mixing weights over the rounds (one
// line a round, a cell a partner) and its top partners in the last
// round.
type drillModel struct {
	styles        *Styles
	width, height int

	id      int // the client
	k       int
	groups  []int
	order   []int
	reports []*sim.RoundReport
	chart   chartModel
}

// SetSize sets the pane's size.
func (d *drillModel) SetSize(w, h int) { d.width, d.height = w, h }

// SetData sets the rounds, the clients' groups and display order.
func (d *drillModel) SetData(k int, reports []*sim.RoundReport, groups, order []int) {
	d.k, d.reports, d.groups, d.order = k, reports, groups, order
	d.id = max(0, min(d.id, k-1))
}

// Move selects the client dy places further in display order.
func (d *drillModel) Move(dy int) {
	pos := slices.Index(d.order, d.id)
	if pos < 0 {
		pos = d.id
	}
	pos = max(0, min(d.k-1, pos+dy))
	d.id = pos
	if pos < len(d.order) {
		d.id = d.order[pos]
	}
}

// client returns the client's metrics in report r (ok false when the
// report has none for it).
func (d *drillModel) client(r *sim.RoundReport) (sim.ClientMetrics, bool) {
	for _, c := range r.Clients {
		if c.ID == d.id {
			return c, true
		}
	}
	return sim.ClientMetrics{}, false
}

// label is the client's label (group letter and id).
func (d *drillModel) label(id int) string { return clientLabel(id, d.groups) }

// View renders the drill-down in the pane's size.
func (d *drillModel) View() string {
	st := d.styles
	if d.k == 0 {
		return ""
	}
	name := d.label(d.id)
	g := -1
	if d.id < len(d.groups) {
		g = d.groups[d.id]
	}
	head := st.Title.Render("client ") + st.groupTag(g, name)
	if g >= 0 {
		head += st.Dim.Render(" · group " + groupName(g))
	}
	if len(d.reports) == 0 {
		return head + "\n" + st.Dim.Render("no round yet (n steps one) · ↑↓ client · c, esc back")
	}
	last := d.reports[len(d.reports)-1]
	c, _ := d.client(last)
	head += st.Dim.Render(fmt.Sprintf(" · %d nodes · round %d: ", c.Nodes, last.Round)) +
		st.Test.Render(fmt.Sprintf("test %.1f", c.TestAcc)) + " " + st.Val.Render(fmt.Sprintf("val %.1f", c.ValAcc)) +
		st.Dim.Render(fmt.Sprintf(" loss %.4g", c.TrainLoss))
	if c.Absent {
		head += st.Changed.Render(" (missed the round)")
	}
	head = joinFit(d.width, head, st.Dim.Render("↑↓ client · c, esc back"))
	lines := []string{head, d.lossLine(), d.partnersLine(last)}
	rest := d.height - len(lines)
	strip := d.weightStrip(max(0, rest/2-1))
	chartH := rest - len(strip)
	if chartH < minChartRows {
		strip = nil
		chartH = rest
	}
	// The chart of the client's accuracies: reports whose means are the
	// client's.
	mine := make([]*sim.RoundReport, 0, len(d.reports))
	for _, r := range d.reports {
		cm, _ := d.client(r)
		mine = append(mine, &sim.RoundReport{Round: r.Round, MeanVal: cm.ValAcc, MeanTest: cm.TestAcc})
	}
	d.chart.styles, d.chart.name = st, name
	d.chart.SetSize(d.width, chartH)
	d.chart.SetData(mine, nil)
	d.chart.invalidate()
	lines = append(lines, d.chart.View())
	lines = append(lines, strip...)
	return strings.Join(lines, "\n")
}

// sparkChars draw a sparkline from low to high.
var sparkChars = []rune("▁▂▃▄▅▆▇█")

// lossLine is the client's training loss over the rounds as a sparkline
// (the last rounds that fit), with its last value and range.
func (d *drillModel) lossLine() string {
	st := d.styles
	var v []float64
	for _, r := range d.reports {
		c, _ := d.client(r)
		v = append(v, c.TrainLoss)
	}
	lo, hi := slices.Min(v), slices.Max(v)
	tail := fmt.Sprintf(" %.4g (range %.4g…%.4g)", v[len(v)-1], lo, hi)
	label := "train loss "
	w := max(1, d.width-len(label)-ansi.StringWidth(tail))
	if len(v) > w {
		v = v[len(v)-w:]
	}
	var b strings.Builder
	for _, x := range v {
		i := 0
		if hi > lo {
			i = int((x - lo) / (hi - lo) * float64(len(sparkChars)-1))
		}
		b.WriteRune(sparkChars[max(0, min(len(sparkChars)-1, i))])
	}
	return st.Key.Render(label) + st.Value.Render(b.String()) + st.Dim.Render(tail)
}

// partnersLine names the client's top partners in report r: the largest
// weights of its row of the mixing matrix, self left out.
func (d *drillModel) partnersLine(r *sim.RoundReport) string {
	st := d.styles
	if d.id >= len(r.Weights) {
		return st.Dim.Render("top partners: the round has no mixing weights")
	}
	row := r.Weights[d.id]
	type p struct {
		id int
		w  float64
	}
	var ps []p
	for j, w := range row {
		if j != d.id {
			ps = append(ps, p{j, w})
		}
	}
	slices.SortStableFunc(ps, func(a, b p) int { return cmp.Compare(b.w, a.w) })
	out := st.Key.Render("top partners ") + st.Dim.Render(fmt.Sprintf("(self %.5g) ", row[d.id]))
	for _, q := range ps {
		g := -1
		if q.id < len(d.groups) {
			g = d.groups[q.id]
		}
		item := st.groupTag(g, d.label(q.id)) + " " + st.Value.Render(fmt.Sprintf("%.5g", q.w))
		if ansi.StringWidth(out)+2+ansi.StringWidth(item) > d.width {
			break
		}
		out += item + "  "
	}
	return strings.TrimRight(out, " ")
}

// weightStrip draws the client's row of the mixing weights in the last
// n rounds, one line a round and a cell a partner in display order,
// stretched over the range of the values shown; nil when there is no
// room or no weights.
func (d *drillModel) weightStrip(n int) []string {
	st := d.styles
	if n < 3 {
		return nil
	}
	var rows []*sim.RoundReport
	for _, r := range d.reports {
		if d.id < len(r.Weights) {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	rows = rows[max(0, len(rows)-(n-2)):]
	lo, hi := 2.0, -1.0
	for _, r := range rows {
		for j, w := range r.Weights[d.id] {
			if j != d.id { // the self weight is larger: it would flatten the rest
				lo, hi = min(lo, w), max(hi, w)
			}
		}
	}
	labelW := len(fmt.Sprint(rows[len(rows)-1].Round)) + 1
	cellW := max(1, min(4, (d.width-labelW-1)/max(1, d.k)))
	out := []string{st.Key.Render("weights of "+d.label(d.id)+" over rounds ") +
		st.Dim.Render(fmt.Sprintf("(columns: partners in display order, self blank; stretched %.5g…%.5g)", lo, hi))}
	if len(d.groups) == d.k { // the columns' groups
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", labelW+1))
		for c := 0; c < d.k; c++ {
			j := c
			if c < len(d.order) {
				j = d.order[c]
			}
			b.WriteString(st.groupTag(d.groups[j], fmt.Sprintf("%-*s", cellW, groupName(d.groups[j]))))
		}
		out = append(out, b.String())
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(st.Label.Render(fmt.Sprintf("%*d ", labelW, r.Round)))
		for c := 0; c < d.k; c++ {
			j := c
			if c < len(d.order) {
				j = d.order[c]
			}
			lv := st.heatLevel(r.Weights[d.id][j], lo, hi)
			if j == d.id {
				b.WriteString(strings.Repeat(" ", cellW))
				continue
			}
			if cellW == 1 {
				b.WriteString(st.narrowCells[lv])
			} else {
				b.WriteString(st.fullCell(lv, cellW))
			}
		}
		out = append(out, b.String())
	}
	return out
}
