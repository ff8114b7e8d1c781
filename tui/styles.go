package tui

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/list"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"

	"github.com/fedaux/fedaux/export"
)

// Styles holds every style and colour the console uses. With NoColor set
// (the NO_COLOR convention) nothing is coloured: the heat map shades cells
// with glyphs and the bars and chart tell series apart by shape.
type Styles struct {
	NoColor bool

	Header, Brand, Key, Value, Dim, Title lipgloss.Style
	Running, Paused, Busy, Changed        lipgloss.Style
	Error, Event, Selected, Prompt        lipgloss.Style

	// Test and Val draw the two accuracy series (bars and chart); Both a
	// bar cell where both reach (upper half test, lower half val).
	Test, Val, Both lipgloss.Style
	// Marker draws knob-change markers; Axis and Label the chart's frame.
	Marker, Axis, Label lipgloss.Style

	Help      help.Styles
	List      list.Styles
	ListItems list.DefaultItemStyles
	Input     textinput.Styles

	heat       []color.Color
	heatGlyphs []string
	groups     []color.Color

	// Pre-rendered cells, so that a frame costs little.
	fullCells   []string   // [level]: a two-column heat cell
	wideCells   []string   // [level]: a three-column heat cell
	narrowCells []string   // [level]: a one-column heat cell (legend)
	cellsByW    [][]string // [w][level]: a w-column heat cell, made on first use
	heatNums    []lipgloss.Style
	halfCells   [][]string // [top][bottom]: a two-column cell showing two rows
	groupTags   []lipgloss.Style
}

// Group colours and series colours; the heat map's palette is
// export.Viridis (9 steps).
var (
	groupColors = []string{"#E74C3C", "#3498DB", "#2ECC71", "#F1C40F", "#9B59B6", "#E67E22", "#1ABC9C", "#EC87C0"}
	testColor   = lipgloss.Color("#3DA5E0")
	valColor    = lipgloss.Color("#F39C12")
	accent      = lipgloss.Color("#7D56F4")
	dimColor    = lipgloss.Color("#808080")
	errColor    = lipgloss.Color("#FF5F5F")
	okColor     = lipgloss.Color("#5FD75F")
	warnColor   = lipgloss.Color("#FFD75F")
)

// NewStyles returns the console's styles, coloured unless noColor.
func NewStyles(noColor bool) Styles {
	s := Styles{NoColor: noColor}
	n := lipgloss.NewStyle
	s.Brand = n().Bold(true)
	s.Title = n().Bold(true)
	s.Running = n().Bold(true)
	s.Changed = n().Bold(true)
	s.Error = n().Bold(true)
	s.Selected = n().Reverse(true)
	s.Help = help.DefaultStyles(true)
	s.List = list.DefaultStyles(true)
	s.ListItems = list.NewDefaultItemStyles(true)
	s.Input = textinput.DefaultStyles(true)
	s.Input.Cursor.Blink = false // a steady cursor: no timers, no redraws
	s.heatGlyphs = []string{"··", "░░", "▒▒", "▓▓", "██"}
	if noColor {
		s.Help = help.Styles{}
		s.List = list.Styles{}
		s.ListItems = list.DefaultItemStyles{SelectedTitle: n().Reverse(true), SelectedDesc: n().Reverse(true)}
		s.Input = textinput.Styles{}
		for _, g := range s.heatGlyphs {
			s.fullCells = append(s.fullCells, g)
			s.wideCells = append(s.wideCells, g+g[:len(g)/2])
			s.narrowCells = append(s.narrowCells, g[:len(g)/2])
		}
		for range groupColors {
			s.groupTags = append(s.groupTags, n())
		}
		for range s.fullCells {
			s.heatNums = append(s.heatNums, n())
		}
		return s
	}
	s.Brand = s.Brand.Foreground(lipgloss.Color("#FFFDF5")).Background(accent).Padding(0, 1)
	s.Key = n().Foreground(dimColor)
	s.Dim = n().Foreground(dimColor)
	s.Title = s.Title.Foreground(accent)
	s.Running = s.Running.Foreground(okColor)
	s.Paused = n().Foreground(warnColor)
	s.Busy = n().Foreground(okColor)
	s.Changed = s.Changed.Foreground(warnColor)
	s.Error = s.Error.Foreground(errColor)
	s.Event = n().Foreground(lipgloss.Color("#AFAFD7"))
	s.Prompt = n().Foreground(accent).Bold(true)
	s.Test = n().Foreground(testColor)
	s.Val = n().Foreground(valColor)
	s.Both = n().Foreground(testColor).Background(valColor)
	s.Marker = n().Foreground(lipgloss.Color("#D75FD7"))
	s.Axis = n().Foreground(dimColor)
	s.Label = n().Foreground(dimColor)
	for _, c := range export.Viridis {
		// color.RGBA, as lipgloss.Color("#rrggbb") gives (opaque, so the
		// same channels as the NRGBA).
		s.heat = append(s.heat, color.RGBA(c))
	}
	for _, g := range groupColors {
		c := lipgloss.Color(g)
		s.groups = append(s.groups, c)
		s.groupTags = append(s.groupTags, n().Foreground(c).Bold(true))
	}
	for i, c := range s.heat {
		s.fullCells = append(s.fullCells, n().Foreground(c).Render("██"))
		s.wideCells = append(s.wideCells, n().Foreground(c).Render("███"))
		s.narrowCells = append(s.narrowCells, n().Foreground(c).Render("█"))
		fg := lipgloss.Color("#FFFFFF")
		if i >= len(s.heat)/2 {
			fg = lipgloss.Color("#000000")
		}
		s.heatNums = append(s.heatNums, n().Background(c).Foreground(fg))
	}
	s.halfCells = make([][]string, len(s.heat)+1)
	for t := range s.halfCells {
		s.halfCells[t] = make([]string, len(s.heat)+1)
		for b := range s.halfCells[t] {
			st := n()
			if t < len(s.heat) {
				st = st.Foreground(s.heat[t])
			}
			if b < len(s.heat) {
				st = st.Background(s.heat[b])
			}
			glyph := "▀▀"
			if t == len(s.heat) {
				glyph = "  "
			}
			s.halfCells[t][b] = st.Render(glyph)
		}
	}
	return s
}

// HeatLevels returns the number of shades a heat-map cell can take.
func (s *Styles) HeatLevels() int { return len(s.fullCells) }

// heatLevel maps v in [lo, hi] to a shade 0..HeatLevels()-1.
func (s *Styles) heatLevel(v, lo, hi float64) int {
	n := s.HeatLevels()
	if !(hi > lo) || v != v {
		return n / 2
	}
	i := int((v-lo)/(hi-lo)*float64(n-1) + 0.5)
	return max(0, min(n-1, i))
}

// fullCell returns a cell of the given shade, w columns wide (2 or
// more).
func (s *Styles) fullCell(level, w int) string {
	switch w {
	case 2:
		return s.fullCells[level]
	case 3:
		return s.wideCells[level]
	}
	for len(s.cellsByW) <= w {
		s.cellsByW = append(s.cellsByW, nil)
	}
	if s.cellsByW[w] == nil {
		for i := range s.fullCells {
			if s.NoColor {
				g := []rune(s.heatGlyphs[i])[0]
				s.cellsByW[w] = append(s.cellsByW[w], strings.Repeat(string(g), w))
			} else {
				s.cellsByW[w] = append(s.cellsByW[w], lipgloss.NewStyle().Foreground(s.heat[i]).Render(strings.Repeat("█", w)))
			}
		}
	}
	return s.cellsByW[w][level]
}

// heatNumber renders text on a cell of the given shade.
func (s *Styles) heatNumber(level int, text string) string { return s.heatNums[level].Render(text) }

// halfCell returns a two-column cell whose upper half has shade top and
// lower half shade bottom; bottom = HeatLevels() leaves the lower half
// empty (odd K). Only in colour.
func (s *Styles) halfCell(top, bottom int) string { return s.halfCells[top][bottom] }

// legend renders the shades from lowest to highest, each w (1 or 2)
// columns wide.
func (s *Styles) legend(w int) string {
	var b strings.Builder
	for i := range s.HeatLevels() {
		if w == 2 {
			b.WriteString(s.fullCell(i, 2))
		} else {
			b.WriteString(s.narrowCells[i])
		}
	}
	return b.String()
}

// groupTag renders text in the colour of group g.
func (s *Styles) groupTag(g int, text string) string {
	if g < 0 {
		return text
	}
	return s.groupTags[g%len(s.groupTags)].Render(text)
}

// groupStrip renders one column of a group-colour strip: the upper half in
// group top's colour and the lower half in bottom's (-1: empty).
func (s *Styles) groupStrip(top, bottom int, width int) string {
	if s.NoColor || top < 0 {
		return strings.Repeat(" ", width)
	}
	st := lipgloss.NewStyle().Foreground(s.groups[top%len(s.groups)])
	if bottom >= 0 {
		st = st.Background(s.groups[bottom%len(s.groups)])
	}
	return st.Render(strings.Repeat("▀", width))
}

// groupName is the letter naming group g (A, B, ...); "" when g < 0.
func groupName(g int) string {
	if g < 0 {
		return ""
	}
	return string(rune('A' + g%26))
}
