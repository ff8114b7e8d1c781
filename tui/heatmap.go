package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/sim"
)

// heatModel draws one of a round's client matrices (a heatSource, m
// switches) as a heat map whose rows and columns are in display order (by
// group when known). Its colours span the raw scale of the matrix's kind
// ([-1, 1] for cosines, [0, 1] for weights), on which nearly equal values
// look the same, as they are, or, stretched, the matrix's off-diagonal
// range, which makes tiny differences visible. Until the user chooses a
// scale with z, each matrix shown (each round's, and each m switches to)
// gets the one the auto-stretch rule picks (see stretchBelow), and the
// legend says auto; z then fixes the other one. The title line names the
// source and the scale; the line below gives the true minimum and
// maximum. With values on, a cursor selects a cell whose value is
// printed, and the cells show their values when the pane is wide enough.
type heatModel struct {
	styles        *Styles
	width, height int

	k       int
	report  *sim.RoundReport
	order   []int
	groups  []int
	algo    string
	offered []string // the optional matrices the engine can compute (sim.Engine.Offered)

	src    string // the source shown; "" for the one that sets the weights
	scale  scaleMode
	values bool
	cx, cy int // cursor (display column and row)

	gen      int // bumped when the data changes
	cache    string
	cacheKey heatKey

	// Where the last rendering put the cells, for the mouse: the line of
	// the first client's row (-1: none), the column of the first cell and
	// the width of a cell; geoPair when a line holds two clients' rows
	// (the compact layout).
	geoRowY, geoColX, geoCellW int
	geoPair                    bool
}

type heatKey struct {
	report       *sim.RoundReport
	w, h, cx, cy int
	src          string
	scale        scaleMode
	values       bool
	gen          int
}

// SetSize sets the pane's size.
func (h *heatModel) SetSize(w, hgt int) { h.width, h.height = w, hgt }

// SetData sets the report whose matrices to show, the display order and
// the clients' groups (nil when unknown).
func (h *heatModel) SetData(k int, rep *sim.RoundReport, order, groups []int, algo string) {
	if k != h.k || rep != h.report || algo != h.algo || !slices.Equal(order, h.order) || !slices.Equal(groups, h.groups) {
		h.gen++
	}
	h.k, h.report, h.order, h.groups, h.algo = k, rep, order, groups, algo
	h.cx, h.cy = min(h.cx, max(0, k-1)), min(h.cy, max(0, k-1))
}

// SetOffered sets the optional matrices the engine can compute, which
// the heat map lists even in rounds that did not compute them.
func (h *heatModel) SetOffered(names []string) {
	h.offered = names
	h.gen++
}

// invalidate drops the cached rendering.
func (h *heatModel) invalidate() { h.gen++ }

// NextSource switches to the next matrix of the last round and returns
// its name ("" when there is no round yet).
func (h *heatModel) NextSource() string {
	srcs := heatSources(h.report, h.offered)
	i := pickSource(srcs, h.src)
	if i < 0 {
		return ""
	}
	h.src = srcs[(i+1)%len(srcs)].name
	return h.src
}

// ToggleScale switches from the scale shown to the other one, which
// ends the automatic choice, and reports whether it is now stretched.
func (h *heatModel) ToggleScale() bool {
	stretched, _ := h.Stretched()
	h.scale = scaleStretched
	if stretched {
		h.scale = scaleRaw
	}
	return !stretched
}

// Stretched reports whether the matrix shown is drawn stretched, and
// whether the auto-stretch rule chose so (the user has not pressed z).
// Before the first round it reports the user's choice, if any.
func (h *heatModel) Stretched() (stretched, auto bool) {
	s, ok := h.shown()
	if !ok {
		return h.scale == scaleStretched, false
	}
	return h.scale.stretched(s), h.scale == scaleAuto && h.scale.stretched(s)
}

// shown returns the matrix the map shows; ok is false before any round.
func (h *heatModel) shown() (s heatSource, ok bool) {
	srcs := heatSources(h.report, h.offered)
	if i := pickSource(srcs, h.src); i >= 0 {
		return srcs[i], true
	}
	return heatSource{}, false
}

// ToggleValues shows or hides values and the cursor.
func (h *heatModel) ToggleValues() { h.values = !h.values }

// CellAt returns the display column and row of the cell at (x, y) of
// the last rendering, when there is one there.
func (h *heatModel) CellAt(x, y int) (cx, cy int, ok bool) {
	if h.geoRowY < 0 || h.geoCellW < 1 || h.report == nil {
		return 0, 0, false
	}
	cy, dx := y-h.geoRowY, x-h.geoColX
	if h.geoPair {
		cy *= 2 // the upper of the line's two clients
	}
	if cy < 0 || cy >= h.k || dx < 0 || dx/h.geoCellW >= h.k {
		return 0, 0, false
	}
	return dx / h.geoCellW, cy, true
}

// Select puts the cursor on a cell, and shows the values.
func (h *heatModel) Select(cx, cy int) {
	h.cx, h.cy, h.values = cx, cy, true
}

// Move moves the cursor by (dx, dy) cells.
func (h *heatModel) Move(dx, dy int) {
	h.cx = max(0, min(h.k-1, h.cx+dx))
	h.cy = max(0, min(h.k-1, h.cy+dy))
}

// needFull and needCompact are the heights the two layouts take: the
// title, the legend line, the column header (or the group strip) and the
// rows, one per client or per two, and the readout line with values on.
func (h *heatModel) needFull() int    { return 3 + h.k + h.boolInt(h.values) }
func (h *heatModel) needCompact() int { return 3 + (h.k+1)/2 + h.boolInt(h.values) }
func (h *heatModel) boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// AutoNote explains an automatic stretch of the matrix shown, for the
// console's log; it is "" when the scale shown is not the rule's stretch.
func (h *heatModel) AutoNote() string {
	s, ok := h.shown()
	if !ok || h.scale != scaleAuto || !autoStretch(s) {
		return ""
	}
	lo, hi, _ := export.OffDiagRange(s.m)
	raw := export.RawScale(s.kind)
	return fmt.Sprintf("heat map stretched: the off-diagonal entries of %s span %.2g, under %g %% of the raw scale [%g, %g] (z: raw)",
		s.name, hi-lo, 100*stretchBelow, raw.Lo, raw.Hi)
}

// View renders the heat map in the model's size.
func (h *heatModel) View() string {
	key := heatKey{h.report, h.width, h.height, h.cx, h.cy, h.src, h.scale, h.values, h.gen}
	if key == h.cacheKey {
		return h.cache
	}
	h.cache, h.cacheKey = h.render(), key
	return h.cache
}

func (h *heatModel) render() string {
	st := h.styles
	srcs := heatSources(h.report, h.offered)
	i := pickSource(srcs, h.src)
	switch {
	case h.report == nil:
		name := h.src
		if name == "" {
			name = "similarity"
		}
		return st.Title.Render(name) + "\n" + st.Dim.Render("no round yet (n steps one)")
	case i >= 0 && srcs[i].later:
		return st.Title.Render(srcs[i].name) + "\n" + st.Dim.Render(fmt.Sprintf("computed from round %d on: views are computed only while shown", h.report.Round+1))
	case i < 0 || len(srcs[i].m) != h.k:
		return st.Title.Render("no matrix") + "\n" + st.Dim.Render(h.algo+": the round has no client matrix")
	}
	s := srcs[i]
	sc := scaleFor(s, h.scale.stretched(s))
	compact := !st.NoColor && h.height < h.needFull() && h.height >= h.needCompact()
	// Lines beyond the title, the rows and the readout: the legend line
	// first, then the column header (full layout only).
	spare := h.height - 1 - h.boolInt(h.values)
	if compact {
		spare -= (h.k + 1) / 2
	} else {
		spare -= h.k
	}
	title, info := h.heading(s, sc, spare >= 1)
	out := title
	if info != "" {
		out += "\n" + info
		spare--
	}
	h.geoRowY, h.geoPair = -1, compact
	if compact {
		h.geoRowY = strings.Count(out, "\n") + 1 + h.boolInt(len(h.groups) == h.k) // under the group strip
		out += "\n" + h.compact(s.m, sc.Lo, sc.Hi)
	} else {
		header := spare >= 1
		rows := h.height - 1 - strings.Count(out, "\n") - h.boolInt(header) - h.boolInt(h.values)
		h.geoRowY = strings.Count(out, "\n") + 1 + h.boolInt(header)
		out += "\n" + h.full(s.m, sc.Lo, sc.Hi, header, rows)
	}
	if h.values {
		out += "\n" + h.readout(s.m)
	}
	return out
}

// heading returns the title line (the source's name and the scale's
// legend) and, when withInfo, the legend line: the matrix's true minimum
// and maximum, its off-diagonal range on the raw scale and what its
// entries are, as much as fits.
func (h *heatModel) heading(s heatSource, sc export.Scale, withInfo bool) (title, info string) {
	st := h.styles
	name := st.Title.Render(s.name)
	a, b := sc.Labels()
	lo, hi := export.Range(s.m)
	los, his := export.RangeLabels(lo, hi)
	pieces := []string{"min " + los + " max " + his}
	if olo, ohi, ok := export.OffDiagRange(s.m); ok && !sc.Stretched {
		x, y := export.RangeLabels(olo, ohi)
		pieces = append(pieces, "off-diag "+x+"…"+y)
	}
	if sc.Stretched && h.scale == scaleAuto {
		raw := export.RawScale(s.kind)
		pieces = append(pieces, st.Changed.Render(fmt.Sprintf("auto: span %.2g < %g%% of [%g, %g]",
			sc.Hi-sc.Lo, 100*stretchBelow, raw.Lo, raw.Hi)))
	}
	desc := s.desc
	if s.setsW {
		desc += ", sets the weights"
	}
	pieces = append(pieces, st.Dim.Render(desc))
	mode := st.Value.Render(sc.Name())
	if sc.Stretched {
		mode = st.Changed.Render(sc.Name())
	}
	var legend string
	for _, w := range []int{2, 1} {
		legend = mode + " " + a + " " + st.legend(w) + " " + b
		if ansi.StringWidth(name)+2+ansi.StringWidth(legend) <= h.width {
			break
		}
	}
	if ansi.StringWidth(name)+2+ansi.StringWidth(legend) <= h.width {
		title = name + "  " + legend
	} else {
		// The legend goes on the next line, before the rest.
		title = name
		pieces = append([]string{legend}, pieces...)
	}
	add := func(line string, pieces []string) string {
		for _, p := range pieces {
			if line == "" {
				if ansi.StringWidth(p) <= h.width {
					line = p
				}
				continue
			}
			if ansi.StringWidth(line)+2+ansi.StringWidth(p) <= h.width {
				line += "  " + p
			}
		}
		return line
	}
	if withInfo {
		return title, add("", pieces)
	}
	return add(title, pieces), ""
}

// readout is the line under the map with values on: the selected cell's
// clients and value, and the row client's alpha when alpha is automatic.
func (h *heatModel) readout(m [][]float64) string {
	st := h.styles
	i, j := h.at(h.cy), h.at(h.cx)
	s := st.Selected.Render(fmt.Sprintf("%s×%s", clientLabel(i, h.groups), clientLabel(j, h.groups))) +
		" = " + strconv.FormatFloat(m[i][j], 'g', 8, 64)
	if a := h.report.Alphas; i < len(a) {
		s += "  " + st.Key.Render("α("+clientLabel(i, h.groups)+") ") + st.Value.Render(fmtAlpha(a[i]))
	}
	return s + st.Dim.Render("  ←↑↓→ move")
}

// at maps a display position to a client id.
func (h *heatModel) at(p int) int {
	if p < len(h.order) {
		return h.order[p]
	}
	return p
}

func (h *heatModel) group(id int) int {
	if id < len(h.groups) {
		return h.groups[id]
	}
	return -1
}

// maxCellW is the widest heat-map cell.
const maxCellW = 8

// full draws one line per client and two columns (or, with values on and
// room enough, five) per cell, under a column header when header is set,
// and in at most rows lines of clients.
func (h *heatModel) full(m [][]float64, lo, hi float64, header bool, rows int) string {
	st := h.styles
	labelW := len(clientLabel(h.k-1, h.groups))
	// Cells as wide as the pane allows (up to maxCellW), so that a wide
	// terminal shows a wide map.
	cellW := max(2, min(maxCellW, (h.width-labelW-1)/max(1, h.k)))
	h.geoColX, h.geoCellW = labelW+1, cellW
	showNums := h.values && cellW >= 4
	var b strings.Builder
	// Column header: group letters (or the last digit of the id).
	if header {
		b.WriteString(strings.Repeat(" ", labelW+1))
		for c := 0; c < h.k; c++ {
			id := h.at(c)
			tag := groupName(h.group(id))
			if tag == "" {
				tag = fmt.Sprint(id % 10)
			}
			b.WriteString(st.groupTag(h.group(id), fmt.Sprintf("%-*s", cellW, tag)))
		}
		b.WriteByte('\n')
	}
	for r := 0; r < min(h.k, rows); r++ {
		if r > 0 {
			b.WriteByte('\n')
		}
		i := h.at(r)
		b.WriteString(st.groupTag(h.group(i), fmt.Sprintf("%*s", labelW, clientLabel(i, h.groups))))
		b.WriteByte(' ')
		for c := 0; c < h.k; c++ {
			j := h.at(c)
			lv := st.heatLevel(m[i][j], lo, hi)
			sel := h.values && r == h.cy && c == h.cx
			switch {
			case showNums && sel:
				b.WriteString(st.Selected.Render(cellNumber(m[i][j], cellW)))
			case showNums:
				b.WriteString(st.heatNumber(lv, cellNumber(m[i][j], cellW)))
			case sel:
				b.WriteString(st.Selected.Render("[" + strings.Repeat(" ", cellW-2) + "]"))
			default:
				b.WriteString(st.fullCell(lv, cellW))
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// compact draws two clients per line with half blocks (colour only),
// each cell two columns wide after a three-column label.
func (h *heatModel) compact(m [][]float64, lo, hi float64) string {
	st := h.styles
	h.geoColX, h.geoCellW = 3, 2
	var b strings.Builder
	if len(h.groups) == h.k {
		b.WriteString("   ")
		for c := 0; c < h.k; c++ {
			b.WriteString(st.groupTag(h.group(h.at(c)), "▄▄"))
		}
		b.WriteByte('\n')
	}
	none := st.HeatLevels()
	for r := 0; r < h.k; r += 2 {
		if r > 0 {
			b.WriteByte('\n')
		}
		i := h.at(r)
		j2, g2 := -1, -1
		if r+1 < h.k {
			j2 = h.at(r + 1)
			g2 = h.group(j2)
		}
		b.WriteString(" " + st.groupStrip(h.group(i), g2, 1) + " ")
		for c := 0; c < h.k; c++ {
			j := h.at(c)
			top := st.heatLevel(m[i][j], lo, hi)
			bot := none
			if j2 >= 0 {
				bot = st.heatLevel(m[j2][j], lo, hi)
			}
			b.WriteString(st.halfCell(top, bot))
		}
	}
	return b.String()
}

// cellNumber formats v right-aligned in w >= 4 columns, with as many
// decimals as fit in w-1 columns (one is the gap) and without the zero
// before the point when |v| < 1 (" .9995", "-.450", " 1.000" in six
// columns), so that close values differ.
func cellNumber(v float64, w int) string {
	for d := w - 2; d >= 0; d-- {
		s := strconv.FormatFloat(v, 'f', d, 64)
		if math.Abs(v) < 1 {
			s = strings.Replace(s, "0.", ".", 1)
		}
		if len(s) <= w-1 {
			return fmt.Sprintf("%*s", w, s)
		}
	}
	return fmt.Sprintf("%*.*s", w, w, strconv.FormatFloat(v, 'g', 2, 64))
}
