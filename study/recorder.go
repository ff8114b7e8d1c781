package study

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fedaux/fedaux/sim"
)

// A Recorder is told how a study goes, as it goes: it prints progress,
// draws a bar, or keeps nothing. The study knows no screen. A Recorder's
// Clients may be called from several goroutines at once; the others are
// called from the study's goroutine.
type Recorder interface {
	// Plan is told once, before any cell runs, what the study holds.
	Plan(p Plan)
	// Start is told that the n-th cell to run (1-based) of total starts
	// at round from (0, or the round of the checkpoint it resumes).
	Start(n, total int, c *Cell, from int)
	// Clients is told that done of total clients finished the round in flight.
	Clients(done, total int)
	// Round is told each finished round and the cell's summary so far.
	Round(c *Cell, r *sim.RoundReport, s sim.Summary)
	// Finish is told a finished cell's record, once it is stored.
	Finish(n, total int, c *Cell, r *Record)
	// End is told that the study stopped, finished or not.
	End()
}

// Plan is what a study holds when it starts.
type Plan struct {
	Cells   int   // cells in the study
	Shard   Shard // the share this process runs
	Mine    int   // cells of the shard
	Reused  int   // of those, already in the store
	Shared  int   // of those, not stored, whose run an earlier one is
	Skipped int   // of those, not run (no data)
	ToRun   int   // of those, to run now
	Store   string
	// SkippedLines counts the lines of the store's files that hold no
	// result it takes, by file (Store.Skipped).
	SkippedLines map[string]SkippedLines
}

// Nop is a Recorder that records nothing.
type Nop struct{}

func (Nop) Plan(Plan)                                  {}
func (Nop) Start(int, int, *Cell, int)                 {}
func (Nop) Clients(int, int)                           {}
func (Nop) Round(*Cell, *sim.RoundReport, sim.Summary) {}
func (Nop) Finish(int, int, *Cell, *Record)            {}
func (Nop) End()                                       {}

// Lines is a Recorder that prints plain lines: the plan, every Every-th
// round (and the last), and every finished cell with the time left.
type Lines struct {
	W      io.Writer // nil writes nothing
	Prefix string    // "table: ", ...
	Every  int       // rounds between round lines; 0 means 10
	start  time.Time
	ran    int
}

// out is W, or io.Discard when W is nil.
func (l *Lines) out() io.Writer {
	if l.W == nil {
		return io.Discard
	}
	return l.W
}

func (l *Lines) Plan(p Plan) {
	l.start = time.Now()
	if p.Cells <= 1 {
		ReportTorn(l.out(), l.Prefix, p.SkippedLines)
		return
	}
	shard := ""
	if !p.Shard.Whole() {
		shard = fmt.Sprintf(" (shard %s: %d of them)", p.Shard, p.Mine)
	}
	where := ""
	if p.Store != "" {
		where = " in " + p.Store
	}
	skipped := ""
	if p.Shared > 0 {
		skipped = fmt.Sprintf(", %s with another cell", SharedNote(p.Shared))
	}
	if p.Skipped > 0 {
		skipped += fmt.Sprintf(", %d skipped (no data)", p.Skipped)
	}
	fmt.Fprintf(l.out(), "%s%d cells%s, %d already%s%s, %d to run\n", l.Prefix, p.Cells, shard, p.Reused, where, skipped, p.ToRun)
	ReportTorn(l.out(), l.Prefix, p.SkippedLines)
}

// SharedNote says that n cells share a run ("2 share a run"): cells
// whose run an earlier cell of the study is, run once (Plan.Shared).
func SharedNote(n int) string {
	if n == 1 {
		return "1 shares a run"
	}
	return fmt.Sprintf("%d share a run", n)
}

// ReportTorn writes to w, each line after prefix, which results files had
// lines that the store skipped, and why (Store.Skipped, Plan.SkippedLines):
// lines that did not parse, lines that are no finished run, results of
// methods this build does not have, and keys stored twice. It writes
// nothing when no line was skipped.
func ReportTorn(w io.Writer, prefix string, skipped map[string]SkippedLines) {
	for _, f := range slices.Sorted(maps.Keys(skipped)) {
		k := skipped[f]
		if k.Torn > 0 {
			fmt.Fprintf(w, "%s%s: %d line(s) did not parse (cut short by a crash?) and were skipped; their runs count as not run\n", prefix, f, k.Torn)
		}
		if k.Incomplete > 0 {
			fmt.Fprintf(w, "%s%s: %d line(s) are no finished run (a key, scenario or algo missing, not every round's val and test, or a summary that is not its rounds') and were skipped; their runs count as not run\n", prefix, f, k.Incomplete)
		}
		if len(k.Methods) > 0 {
			n := 0
			for _, c := range k.Methods {
				n += c
			}
			fmt.Fprintf(w, "%s%s: %d result(s) of methods this build does not have (%s) skipped\n", prefix, f, n, strings.Join(slices.Sorted(maps.Keys(k.Methods)), ", "))
		}
		if k.Repeated > 0 {
			fmt.Fprintf(w, "%s%s: %d line(s) repeat the key of a result read before them and were skipped\n", prefix, f, k.Repeated)
		}
	}
}

func (l *Lines) Start(n, total int, c *Cell, from int) {
	switch {
	case from > 0: // a resumed run is said even when it is the only one
		fmt.Fprintf(l.out(), "%s[%d/%d] %s: %d rounds, resumed from its checkpoint at round %d\n", l.Prefix, n, total, c, c.Config.Rounds, from)
	case total > 1:
		fmt.Fprintf(l.out(), "%s[%d/%d] %s: %d rounds\n", l.Prefix, n, total, c, c.Config.Rounds)
	}
}

func (*Lines) Clients(int, int) {}

func (*Lines) End() {}

func (l *Lines) Round(c *Cell, r *sim.RoundReport, s sim.Summary) {
	every := l.Every
	if every <= 0 {
		every = 10
	}
	if r.Round%every != 0 && r.Round != c.Config.Rounds {
		return
	}
	fmt.Fprintf(l.out(), "%sseed %d round %3d/%d  val %6.2f  test %6.2f  best val %6.2f (round %d)  %.3f s/round\n",
		l.Prefix, c.Config.Seed, r.Round, c.Config.Rounds, r.MeanVal, r.MeanTest, s.BestVal, s.BestRound, r.Seconds)
}

func (l *Lines) Finish(n, total int, c *Cell, r *Record) {
	if total <= 1 {
		return
	}
	l.ran++
	elapsed := time.Since(l.start)
	eta := time.Duration(float64(elapsed) / float64(l.ran) * float64(total-n))
	fmt.Fprintf(l.out(), "%s[%d/%d] %s: %.2f (best val round %d) in %.1f s; elapsed %s, about %s left\n",
		l.Prefix, n, total, c, r.TestAtBestVal, r.BestRound, r.Seconds, elapsed.Round(time.Second), eta.Round(time.Second))
}

// Progress returns the Recorder for progress on w: a Bar on a terminal,
// else Lines; Nop for a nil w.
func Progress(w io.Writer, prefix string) Recorder {
	if w == nil {
		return Nop{}
	}
	if IsTerminal(w) {
		return NewBar(w, prefix)
	}
	return &Lines{W: w, Prefix: prefix}
}
