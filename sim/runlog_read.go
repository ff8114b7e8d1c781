package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// A LoggedRun is one run of a run log, as ReadRunLog reads it: its run
// line and the lines after it, up to the next run line. A log holds
// several runs when the console restarted a session in it.
type LoggedRun struct {
	Line   int // of its run line, from 1
	Header RunHeader
	// Controls are its knob changes ("control" lines), in order.
	Controls []KnobChange
	// Switches are its algorithm changes ("algorithm" lines, which a
	// console fork on another algorithm writes; Engine.ForkAs), and
	// SwitchLines the line of each.
	Switches    []AlgorithmChange
	SwitchLines []int
	// Reports are its rounds ("round" lines), in order, as Step
	// returned them but for what a log does not hold (Views), and
	// RoundLines the line of each.
	Reports    []*RoundReport
	RoundLines []int
	// Summary is its summary line, nil when it has none (a run stopped
	// before its end).
	Summary *Summary
}

// ReadRunLog reads the runs of the JSON Lines run log at path (see
// OpenRunLog and docs/running.md for its lines). It reads the logs of
// methods this build does not have: their names, and the names of their
// knobs, are as written. A line that cannot be
// read is an error naming the file and the line, but for a last line
// without its newline, which a process stopped while writing it leaves (a
// full disk, a kill): that one is left out, and torn is its line number.
func ReadRunLog(path string) (runs []*LoggedRun, torn int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("sim: %w", err)
	}
	defer f.Close()
	complete := true // the file ends with a newline
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil {
			complete = last[0] == '\n'
		}
	}
	var tornErr error // an unreadable line without a newline, if it is the last
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30)
	for n := 1; sc.Scan(); n++ {
		if tornErr != nil {
			return nil, 0, tornErr
		}
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var kind struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &kind); err != nil {
			tornErr, torn = fmt.Errorf("sim: %s:%d: not a JSON object: %v", path, n, err), n
			if complete {
				return nil, 0, tornErr
			}
			continue
		}
		bad := func(err error) error { return fmt.Errorf("sim: %s:%d: %s line: %v", path, n, kind.Type, err) }
		if kind.Type != "run" && len(runs) == 0 {
			return nil, 0, fmt.Errorf("sim: %s:%d: a %q line before any run line", path, n, kind.Type)
		}
		var r *LoggedRun
		if len(runs) > 0 {
			r = runs[len(runs)-1]
		}
		switch kind.Type {
		case "run":
			// The algorithm as written: a method this build does not have
			// is the reader's to refuse (a replay), not the log's.
			var h struct {
				RunHeader
				Algo string `json:"algo"`
			}
			if err := json.Unmarshal(b, &h); err != nil {
				return nil, 0, bad(err)
			}
			h.RunHeader.Algo = Algorithm(h.Algo)
			r = &LoggedRun{Line: n, Header: h.RunHeader}
			runs = append(runs, r)
		case "control":
			// The knob as written: a live setting of a method this build
			// does not have (or has not registered) is the reader's to
			// refuse (a replay), not the log's.
			var c struct {
				controlLine
				Name string `json:"name"`
			}
			if err := json.Unmarshal(b, &c); err != nil {
				return nil, 0, bad(err)
			}
			if c.Name == "" {
				return nil, 0, bad(fmt.Errorf("no knob name"))
			}
			r.Controls = append(r.Controls, KnobChange{Round: c.Round, Name: Knob(c.Name), From: c.From, To: c.To})
		case "algorithm":
			var c struct {
				Round    int
				From, To string
			}
			if err := json.Unmarshal(b, &c); err != nil {
				return nil, 0, bad(err)
			}
			if want := len(r.Reports) + 1; c.Round != want {
				return nil, 0, fmt.Errorf("sim: %s:%d: algorithm line for round %d after %d rounds, want round %d", path, n, c.Round, len(r.Reports), want)
			}
			r.Switches = append(r.Switches, AlgorithmChange{Round: c.Round, From: Algorithm(c.From), To: Algorithm(c.To)})
			r.SwitchLines = append(r.SwitchLines, n)
		case "round":
			rep := new(RoundReport)
			if err := json.Unmarshal(b, rep); err != nil {
				return nil, 0, bad(err)
			}
			if want := len(r.Reports) + 1; rep.Round != want {
				return nil, 0, fmt.Errorf("sim: %s:%d: round %d, want round %d of the run that starts on line %d", path, n, rep.Round, want, r.Line)
			}
			r.Reports = append(r.Reports, rep)
			r.RoundLines = append(r.RoundLines, n)
		case "summary":
			s := new(Summary)
			if err := json.Unmarshal(b, s); err != nil {
				return nil, 0, bad(err)
			}
			r.Summary = s
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("sim: %s: %w", path, err)
	}
	if len(runs) == 0 {
		return nil, 0, fmt.Errorf("sim: %s: no run line: not a fedaux run log", path)
	}
	return runs, torn, nil
}
