package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/fedaux/fedaux/sim"
)

// barsModel shows one row per client: a bar whose upper half is the
// client's test accuracy and whose lower half is its validation accuracy
// in the last round, then both numbers.
type barsModel struct {
	styles        *Styles
	width, height int

	k      int
	report *sim.RoundReport
	order  []int
	groups []int
	// other, when not nil, is the other branch's last round (a fork):
	// a last column gives each client's test accuracy here minus there.
	other     *sim.RoundReport
	otherName string
}

// SetSize sets the pane's size.
func (b *barsModel) SetSize(w, h int) { b.width, b.height = w, h }

// SetData sets the last round's report (nil before the first round), the
// display order of the clients and their groups (nil when unknown).
func (b *barsModel) SetData(k int, rep *sim.RoundReport, order, groups []int) {
	b.k, b.report, b.order, b.groups = k, rep, order, groups
}

// label is a client's row label: its group letter (if known) and id.
func clientLabel(id int, groups []int) string {
	if id < len(groups) {
		return fmt.Sprintf("%s%02d", groupName(groups[id]), id)
	}
	return fmt.Sprintf("%02d", id)
}

// alphaW is the width of the per-client alpha column (" 1.23e5").
const alphaW = 7

// View renders the title line and as many client rows as fit, with each
// client's alpha in a last column when alpha is automatic and the pane is
// wide enough.
func (b *barsModel) View() string {
	st := b.styles
	var out strings.Builder
	title := st.Title.Render("clients") + "  " + st.Test.Render("▀") + " test  " + st.Val.Render("▄") + " val"
	labelW := 2
	if len(b.groups) == b.k && b.k > 0 {
		labelW = 3
	}
	const numW = 12 // " 100.0 100.0"
	barW := max(1, b.width-labelW-1-numW)
	var diff []float64
	if o := b.other; o != nil && b.report != nil && len(o.Clients) == len(b.report.Clients) && barW-alphaW >= 12 {
		for i, c := range b.report.Clients {
			diff = append(diff, c.TestAcc-o.Clients[i].TestAcc)
		}
		barW -= alphaW
		title += strings.Repeat(" ", max(2, b.width-ansi.StringWidth(title)-alphaW)) + st.Marker.Render(fmt.Sprintf("%*s", alphaW, "Δ "+b.otherName))
	}
	var alphas []float64
	if b.report != nil && len(b.report.Alphas) == b.k && diff == nil && barW-alphaW >= 12 {
		alphas = b.report.Alphas
		barW -= alphaW
		title += strings.Repeat(" ", max(2, b.width-ansi.StringWidth(title)-alphaW)) + st.Key.Render(fmt.Sprintf("%*s", alphaW, "auto α"))
	}
	out.WriteString(title)
	rows := min(b.k, b.height-1)
	more := 0
	if rows < b.k {
		rows = max(0, b.height-2)
		more = b.k - rows
	}
	for r := 0; r < rows; r++ {
		id := r
		if r < len(b.order) {
			id = b.order[r]
		}
		out.WriteByte('\n')
		g := -1
		if id < len(b.groups) {
			g = b.groups[id]
		}
		out.WriteString(st.groupTag(g, fmt.Sprintf("%*s", labelW, clientLabel(id, b.groups))))
		out.WriteByte(' ')
		if b.report == nil || id >= len(b.report.Clients) {
			out.WriteString(st.Dim.Render(strings.Repeat("·", barW)))
			continue
		}
		c := b.report.Clients[id]
		out.WriteString(b.bar(c.TestAcc, c.ValAcc, barW))
		out.WriteString(st.Test.Render(fmt.Sprintf(" %5.1f", c.TestAcc)))
		out.WriteString(st.Val.Render(fmt.Sprintf(" %5.1f", c.ValAcc)))
		if alphas != nil {
			out.WriteString(st.Value.Render(fmt.Sprintf(" %*s", alphaW-1, fmtAlpha(alphas[id]))))
		}
		if diff != nil && id < len(diff) {
			out.WriteString(st.Marker.Render(fmt.Sprintf(" %+*.1f", alphaW-1, diff[id])))
		}
	}
	if more > 0 && b.height > 1 {
		out.WriteString("\n" + st.Dim.Render(fmt.Sprintf("… %d more (enlarge the terminal)", more)))
	}
	return out.String()
}

// bar draws two bars (test above, val below) of width cells for
// accuracies in percent.
func (b *barsModel) bar(test, val float64, width int) string {
	st := b.styles
	cells := func(p float64) int {
		if math.IsNaN(p) {
			return 0
		}
		return max(0, min(width, int(math.Round(p/100*float64(width)))))
	}
	nt, nv := cells(test), cells(val)
	both := min(nt, nv)
	var out strings.Builder
	full := "▀"
	if st.NoColor {
		full = "█"
	}
	if both > 0 {
		out.WriteString(st.Both.Render(strings.Repeat(full, both)))
	}
	switch {
	case nt > nv:
		out.WriteString(st.Test.Render(strings.Repeat("▀", nt-both)))
	case nv > nt:
		out.WriteString(st.Val.Render(strings.Repeat("▄", nv-both)))
	}
	out.WriteString(strings.Repeat(" ", width-max(nt, nv)))
	return out.String()
}
