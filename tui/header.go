package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// activity is what the console is doing.
type activity int

const (
	idle       activity = iota // paused, waiting for the user
	stepping                   // a round is in progress
	building                   // an engine is being built
	computing                  // the shown view of the last round is being computed
	recovering                 // the engine rolls back after a failed round
	finished                   // every configured round has run
)

// headerModel is the top line: preset, algorithm and similarity source
// (with the variant the next reset builds, when changed), round r / R,
// seed, knobs, how far the mixing weights are from uniform, state and a
// progress indicator of the clients done.
type headerModel struct {
	styles *Styles
	width  int

	preset, algo, source string
	branch               string // the branch shown when forked ("A", "B"), else ""
	apvMix               bool
	nextSource           string // the source the next reset builds; "" when unchanged
	nextMix              string // "on" or "off" when the next reset changes apv-mix
	round, rounds        int
	seed                 uint64
	alpha, sigma         float64 // the values the next round will use
	hasLast              bool
	// hasPrev: prev* hold the knobs of the last round shown or, before
	// the first is shown, of the round in flight, from which the header
	// draws a change as old→new.
	hasPrev                         bool
	prevAlpha, prevSigma, prevPartn float64
	readsAlpha, readsSigma          bool       // the algorithm reads the knob (else "α –")
	partners                        float64    // > 0: alpha is set per client (auto alpha); next round
	settings                        []liveView // the method's live settings
	spread                          float64    // largest / smallest off-diagonal weight of the last round
	hasSpread                       bool
	act                             activity
	running                         bool // run mode (or a batch of steps) is on
	stepsLeft                       int
	done, total                     int // clients done in the round in progress
	seconds                         float64
}

// liveView is a live method setting in the header: its value for the
// next round and for the last round shown (or the round in flight).
type liveView struct {
	name       string
	next, last float64
}

// SetWidth sets the width of the line.
func (h *headerModel) SetWidth(w int) { h.width = w }

// knob renders "α 10", or "α 10→12" when the next round uses a new
// value, or "α –" when the algorithm does not read it.
func (h *headerModel) knob(sym string, next, last float64, reads bool) string {
	s := h.styles.Key.Render(sym) + " "
	if !reads {
		return s + h.styles.Dim.Render("–")
	}
	if h.hasPrev && next != last {
		return s + h.styles.Dim.Render(fmtKnob(last)+"→") + h.styles.Changed.Render(fmtKnob(next))
	}
	return s + h.styles.Value.Render(fmtKnob(next))
}

// alphaView renders alpha: "α 10", or "auto α (4 partners)" when alpha
// is chosen per client for 4 effective partners ("α auto(4)" if short),
// with the change when the next round differs from the last.
func (h *headerModel) alphaView(short bool) string {
	st := h.styles
	next, last := h.partners, h.prevPartn
	if !h.hasPrev {
		last = next
	}
	if !h.readsAlpha {
		return h.knob("α", 0, 0, false)
	}
	partners := func(p string) string {
		if short {
			return st.Key.Render("α ") + st.Value.Render("auto(") + p + st.Value.Render(")")
		}
		return st.Key.Render("auto α ") + st.Value.Render("(") + p + st.Value.Render(" partners)")
	}
	switch {
	case next == 0 && last == 0:
		return h.knob("α", h.alpha, h.prevAlpha, true)
	case next == last:
		return partners(st.Value.Render(fmtKnob(next)))
	case last > 0 && next > 0:
		return partners(st.Dim.Render(fmtKnob(last)+"→") + st.Changed.Render(fmtKnob(next)))
	case next > 0: // fixed alpha to auto
		return st.Key.Render("α ") + st.Dim.Render(fmtKnob(h.prevAlpha)+"→") +
			st.Changed.Render("auto("+fmtKnob(next)+")")
	}
	return st.Key.Render("α ") + st.Dim.Render("auto→") + st.Changed.Render(fmtKnob(h.alpha))
}

// fmtKnob formats a knob value as the run uses it: the shortest text that
// reads back as the same float64, so that two values the run tells apart
// never look the same.
func fmtKnob(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// expShortener drops the plus sign and leading zero of an exponent.
var expShortener = strings.NewReplacer("e+0", "e", "e+", "e", "e-0", "e-")

// fmtAlpha formats a per-client alpha in at most 7 columns: "12.5",
// "1.23e5".
func fmtAlpha(v float64) string {
	return expShortener.Replace(strconv.FormatFloat(v, 'g', 3, 64))
}

// fmtSpread formats the weights' max/min ratio: "1.0006", "35.21", "∞".
func fmtSpread(r float64) string {
	switch {
	case math.IsInf(r, 1):
		return "∞"
	case r < 10:
		return strconv.FormatFloat(r, 'f', 4, 64)
	}
	return fmtAlpha(r)
}

// state renders what the console is doing; short drops the words.
func (h *headerModel) state(short bool) string {
	st := h.styles
	switch h.act {
	case stepping:
		mode := "round"
		if h.running {
			mode = "running"
		} else if h.stepsLeft > 0 {
			mode = fmt.Sprintf("%d left", h.stepsLeft+1)
		}
		bar := progressBar(h.done, h.total, 8, st.NoColor)
		if short {
			return st.Busy.Render("▶ "+bar) + fmt.Sprintf(" %d/%d", h.done, h.total)
		}
		return st.Busy.Render("▶ "+mode+" "+bar) + fmt.Sprintf(" %d/%d", h.done, h.total)
	case building:
		if short {
			return st.Busy.Render("◌")
		}
		return st.Busy.Render("◌ building…")
	case computing:
		if short {
			return st.Busy.Render("◌")
		}
		return st.Busy.Render("◌ computing the view…")
	case recovering:
		if short {
			return st.Busy.Render("◌")
		}
		return st.Busy.Render("◌ rolling back…")
	case finished:
		if short {
			return st.Paused.Render("■")
		}
		return st.Paused.Render("■ done")
	}
	if short {
		return st.Paused.Render("⏸")
	}
	return st.Paused.Render("⏸ paused")
}

// View renders the header line, exactly width columns wide: the longest
// form that fits (see line), the round time at the right when it fits.
func (h *headerModel) View() string {
	st := h.styles
	right := ""
	if h.hasLast && h.seconds > 0 {
		right = st.Dim.Render(fmt.Sprintf("%6.2fs/round", h.seconds))
	}
	// The round time stays while narrower separators or dropping the
	// seed make room for it, so that it does not come and go between
	// rounds and pauses; after that it goes before anything else.
	var left string
	rw := ansi.StringWidth(right)
	fits := false
	for level := 0; level < shortPending && rw > 0 && !fits; level++ {
		left = h.line(level)
		fits = ansi.StringWidth(left)+rw+1 <= h.width
	}
	if !fits {
		right, rw = "", 0
		for level := 0; level <= maxHeaderLevel; level++ {
			left = h.line(level)
			if ansi.StringWidth(left) <= h.width {
				break
			}
		}
	}
	lw := ansi.StringWidth(left)
	gap := max(0, h.width-lw-rw)
	return ansi.Truncate(left+strings.Repeat(" ", gap)+right, h.width, "…")
}

// Levels of brevity of the header line: from each on, the line is
// shorter in one more way.
const (
	narrowSeps     = iota + 1 // "  " between the parts instead of " │ "
	noSeed                    // the seed goes
	shortPending              // "r: pc1, mix off"
	shortAlpha                // "α auto(4)"
	shortSpread               // "w 1.0006"
	shortWords                // "r3/100", "⏸", single spaces
	noSource                  // the source and apv-mix go from the name
	noSpread                  // the weights' spread goes
	noPending                 // the pending variant goes
	noSettings                // the method's live settings go
	maxHeaderLevel = noSettings
)

// line renders the left part of the header at a level of brevity (see
// narrowSeps and the levels after it).
func (h *headerModel) line(level int) string {
	st := h.styles
	sep, round := st.Dim.Render(" │ "), "round "
	if level >= narrowSeps {
		sep = "  "
	}
	if level >= shortWords {
		sep, round = " ", "r"
	}
	name := st.Value.Render(h.preset) + st.Dim.Render("·") + st.Value.Render(h.algo)
	if level < noSource && h.source != "" {
		name += st.Dim.Render("·") + st.Value.Render(h.source)
		if !h.apvMix {
			name += st.Dim.Render("·") + st.Value.Render("apv-mix off")
		}
	}
	if h.branch != "" {
		name += " " + st.Changed.Render("branch "+h.branch)
	}
	parts := []string{name}
	if p := h.pendingView(level >= shortPending); p != "" && level < noPending {
		parts = append(parts, p)
	}
	parts = append(parts, st.Key.Render(round)+st.Value.Render(fmt.Sprintf("%d/%d", h.round, h.rounds)))
	if level < noSeed {
		parts = append(parts, st.Key.Render("seed ")+st.Value.Render(strconv.FormatUint(h.seed, 10)))
	}
	knobs := h.alphaView(level >= shortAlpha) + "  " + h.knob("σ", h.sigma, h.prevSigma, h.readsSigma)
	if level < noSettings {
		for _, s := range h.settings {
			knobs += "  " + h.knob(s.name, s.next, s.last, true)
		}
	}
	parts = append(parts, knobs)
	if h.hasSpread && level < noSpread {
		label := "w max/min "
		if level >= shortSpread {
			label = "w "
		}
		parts = append(parts, st.Key.Render(label)+st.Value.Render(fmtSpread(h.spread)))
	}
	parts = append(parts, h.state(level >= shortWords))
	return st.Brand.Render("fedaux") + " " + strings.Join(parts, sep)
}

// pendingView renders the variant the next reset builds ("on r: sim pc1,
// apv-mix off"; short "r: pc1, mix off"), or "" when it is unchanged.
func (h *headerModel) pendingView(short bool) string {
	var what []string
	if h.nextSource != "" {
		if short {
			what = append(what, h.nextSource)
		} else {
			what = append(what, "sim "+h.nextSource)
		}
	}
	if h.nextMix != "" {
		if short {
			what = append(what, "mix "+h.nextMix)
		} else {
			what = append(what, "apv-mix "+h.nextMix)
		}
	}
	if len(what) == 0 {
		return ""
	}
	head := "on r/R: "
	if short {
		head = "r/R: "
	}
	return h.styles.Changed.Render(head + strings.Join(what, ", "))
}

// progressBar draws done/total as a bar of width cells.
func progressBar(done, total, width int, noColor bool) string {
	fill := 0
	if total > 0 {
		fill = min(width, done*width/total)
	}
	empty := "░"
	if noColor {
		empty = "·"
	}
	return strings.Repeat("█", fill) + strings.Repeat(empty, width-fill)
}

// fit pads or cuts every line of s to exactly w columns and s to exactly h
// lines. A line cut at the edge ends with an ellipsis, so that a cut is
// never mistaken for the end of the text; colours are kept (ansi-aware).
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i >= len(lines) {
			b.WriteString(strings.Repeat(" ", w))
			continue
		}
		l := lines[i]
		lw := ansi.StringWidth(l)
		if lw > w {
			l = ansi.Truncate(l, w, "…")
			lw = ansi.StringWidth(l)
		}
		b.WriteString(l)
		b.WriteString(strings.Repeat(" ", max(0, w-lw)))
	}
	return b.String()
}

// joinColumns places blocks side by side, each already fitted to its
// width and the same height, separated by gap spaces.
func joinColumns(gap int, blocks ...string) string {
	if len(blocks) == 0 {
		return ""
	}
	cols := make([][]string, len(blocks))
	n := 0
	for i, b := range blocks {
		cols[i] = strings.Split(b, "\n")
		n = max(n, len(cols[i]))
	}
	sp := strings.Repeat(" ", gap)
	var b strings.Builder
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteByte('\n')
		}
		for i, c := range cols {
			if i > 0 {
				b.WriteString(sp)
			}
			if r < len(c) {
				b.WriteString(c[r])
			}
		}
	}
	return b.String()
}
