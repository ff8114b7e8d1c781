package export

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/fedaux/fedaux/sim"
)

type controlLine struct {
	Type string `json:"type"`
	Control
}

type roundLine struct {
	Type string `json:"type"`
	*sim.RoundReport
}

type summaryLine struct {
	Type string `json:"type"`
	sim.Summary
}

// writeLog writes the run as the run log does (see the design document):
// the run line, then each round's line preceded by the control lines that
// took effect from it, then the changes made for a round not run yet, then
// the summary of the rounds run.
func (r *Run) writeLog(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	h := r.Header
	h.Type = "run"
	if err := enc.Encode(h); err != nil {
		return err
	}
	next, sw := 0, 0
	for _, rep := range r.Reports {
		for ; sw < len(r.Switches) && r.Switches[sw].Round <= rep.Round; sw++ {
			if err := enc.Encode(r.Switches[sw].Line()); err != nil {
				return err
			}
		}
		for ; next < len(r.Controls) && r.Controls[next].Round <= rep.Round; next++ {
			if err := enc.Encode(controlLine{"control", r.Controls[next]}); err != nil {
				return err
			}
		}
		if err := enc.Encode(roundLine{"round", rep}); err != nil {
			return err
		}
	}
	for ; sw < len(r.Switches); sw++ {
		if err := enc.Encode(r.Switches[sw].Line()); err != nil {
			return err
		}
	}
	for ; next < len(r.Controls); next++ {
		if err := enc.Encode(controlLine{"control", r.Controls[next]}); err != nil {
			return err
		}
	}
	if err := enc.Encode(summaryLine{"summary", sim.Summarize(r.Reports)}); err != nil {
		return err
	}
	return bw.Flush()
}
