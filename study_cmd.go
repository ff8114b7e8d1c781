package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// interrupted reports whether err is a study stopped or aborted by an
// interrupt, and if so tells w how to resume: the same command again.
func interrupted(err error, w io.Writer, cmd, out string) bool {
	var ie *study.InterruptedError
	var ae *study.AbortedError
	switch {
	case errors.As(err, &ie):
		at := ""
		if ie.Checkpoint != "" {
			at = fmt.Sprintf("; %s was checkpointed at round %d", ie.Cell, ie.Round)
		}
		fmt.Fprintf(w, "%s: interrupted%s; run the same command again to resume (%s)\n", cmd, at, out)
		return true
	case errors.As(err, &ae):
		fmt.Fprintf(w, "%s: aborted during round %d of %s; run the same command again to resume (%s)\n", cmd, ae.Round, ae.Cell, out)
		return true
	}
	return false
}

// shardError names the flag of a bad shard.
func shardError(err error) error {
	var se *study.ShardError
	if errors.As(err, &se) {
		return fmt.Errorf("-shard: %s: %s", se.Value, se.Reason)
	}
	return err
}

// shardNote says which shard ran, for the closing line.
func shardNote(s study.Shard) string {
	if s.Whole() {
		return ""
	}
	return " in shard " + s.String()
}

// parseAlgos reads -algos, a comma-separated list of algorithms.
func parseAlgos(s string) ([]sim.Algorithm, error) {
	var out []sim.Algorithm
	for _, name := range splitList(s) {
		a, err := sim.ParseAlgorithm(name)
		if err != nil {
			var se *sim.SettingError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("-algos: %s, want %s", se.Value, se.Want)
			}
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}
