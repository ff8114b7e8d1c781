package study

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/fedaux/fedaux/sim"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// Bar is a Recorder that draws the cell in flight on one terminal line,
// redrawn in place: the rounds done, the clients done in the round in
// flight, the last mean accuracies and the best round so far; and one
// line per finished cell.
type Bar struct {
	mu           sync.Mutex
	w            io.Writer
	lines        Lines
	cell         string
	rounds       int
	round        int
	done, total  int
	last         string
	lastDraw     time.Time
	width        int
	wroteOnce    bool
	finishedLine bool
}

// NewBar returns a Bar on the terminal w.
func NewBar(w io.Writer, prefix string) *Bar {
	width := 80
	if f, ok := w.(*os.File); ok {
		if cw, _, err := term.GetSize(f.Fd()); err == nil && cw > 20 {
			width = cw
		}
	}
	return &Bar{w: w, width: width, lines: Lines{W: w, Prefix: prefix}}
}

func (p *Bar) Plan(pl Plan) { p.lines.Plan(pl) }

func (p *Bar) Start(n, total int, c *Cell, from int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines.Start(n, total, c, from)
	p.cell, p.rounds, p.round, p.done, p.last = fmt.Sprintf("seed %d", c.Config.Seed), c.Config.Rounds, from, 0, ""
	p.wroteOnce, p.finishedLine = false, false
}

// Clients records that done of total clients finished the round in progress.
func (p *Bar) Clients(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = max(p.done, done), total
	if time.Since(p.lastDraw) > 50*time.Millisecond || done == total {
		p.draw()
	}
}

// Round records a finished round and the summary so far.
func (p *Bar) Round(_ *Cell, r *sim.RoundReport, s sim.Summary) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.round, p.done = r.Round, 0
	p.last = fmt.Sprintf("val %5.1f test %5.1f  best %5.1f@%d  %.2fs/round", r.MeanVal, r.MeanTest, s.BestVal, s.BestRound, r.Seconds)
	p.draw()
}

// Finish ends the bar's line and prints the cell's line.
func (p *Bar) Finish(n, total int, c *Cell, r *Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
	p.lines.Finish(n, total, c, r)
}

// End ends the bar's line, so that what follows (an error, say) starts
// on a line of its own.
func (p *Bar) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
}

func (p *Bar) endLine() {
	if p.wroteOnce && !p.finishedLine {
		fmt.Fprintln(p.w)
		p.finishedLine = true
	}
}

// draw rewrites the line; the caller holds p.mu.
func (p *Bar) draw() {
	frac := float64(p.round) / float64(max(1, p.rounds))
	if p.total > 0 && p.round < p.rounds {
		frac += float64(p.done) / float64(p.total) / float64(max(1, p.rounds))
	}
	head := fmt.Sprintf("%s round %d/%d ", p.cell, p.round, p.rounds)
	tail := " " + p.last
	barW := max(10, min(40, p.width-len(head)-len(tail)-3))
	fill := int(frac * float64(barW))
	line := head + "[" + strings.Repeat("█", fill) + strings.Repeat("░", barW-fill) + "]" + tail
	if r := []rune(line); len(r) > p.width-1 {
		line = string(r[:p.width-2]) + "…"
	}
	fmt.Fprintf(p.w, "\r\x1b[2K%s", line)
	p.wroteOnce, p.finishedLine, p.lastDraw = true, false, time.Now()
}
