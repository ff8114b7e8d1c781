package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fedaux/fedaux/internal/dirs"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// An exitError ends the program with its exit code, printing err first
// unless it is nil (the command said what happened itself).
type exitError struct {
	err  error
	code int
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// interrupted returns, when err is a study stopped or aborted by an
// interrupt, the error that ends the program with the interrupt's exit
// status (it.ExitCode: the work is unfinished, so a scheduler must not
// take it for done), having told w what was saved and how to resume:
// the same command again. Otherwise it returns nil.
func interrupted(err error, it *study.Interrupts, w io.Writer, cmd, out string) error {
	var ie *study.InterruptedError
	var ae *study.AbortedError
	switch {
	case errors.As(err, &ie):
		at := "; no run was in flight"
		if ie.SaveErr != nil {
			at = fmt.Sprintf("; %s had run %d rounds, but its checkpoint could not be saved: %v", ie.Cell, ie.Round, ie.SaveErr)
		} else if ie.Checkpoint != "" {
			at = fmt.Sprintf("; %s was checkpointed at round %d (%s)", ie.Cell, ie.Round, ie.Checkpoint)
		} else if ie.Round > 0 {
			at = fmt.Sprintf("; %s had run %d rounds, not checkpointed", ie.Cell, ie.Round)
		}
		fmt.Fprintf(w, "%s: interrupted%s; run the same command again to resume (%s)\n", cmd, at, out)
	case errors.As(err, &ae):
		at := "no checkpoint of it was saved"
		if ae.Checkpoint != "" {
			at = fmt.Sprintf("it resumes from its checkpoint at round %d", ae.Saved)
		}
		fmt.Fprintf(w, "%s: aborted during round %d of %s, %s; run the same command again to resume (%s)\n", cmd, ae.Round, ae.Cell, at, out)
	default:
		return nil
	}
	return &exitError{code: it.ExitCode()}
}

// studyError translates the errors of a study directory to the flags
// that change them: a shard that disagrees with the directory's
// manifest, and runs whose data is missing.
func studyError(err error) error {
	var ce *study.ShardConflictError
	var me *study.MissingDataError
	switch {
	case errors.As(err, &ce):
		m := ce.Manifest
		how := fmt.Sprintf("run its shards with -shard I/%d (0 <= I < %d) and the flags that started it", m.Shards, m.Shards)
		if m.Scheduler == "slurm" {
			how += fmt.Sprintf(", or resubmit the array's own tasks (sbatch --array=ID with the task IDs of the first array: %d, %d, ...)", m.TaskMin, m.TaskMin+m.TaskStep)
		}
		return fmt.Errorf("-shard: %s; %s; render it with -render; or, once none of its shards is running, pass -reshard to re-plan the directory for this command", ce.Error(), how)
	case errors.As(err, &me):
		return fmt.Errorf("%w; put them in the data directory (-data or $FEDAUX_DATA; 'fedaux data' lists what it finds), or pass -skip-missing to run the others and mark these 'no data'", err)
	}
	return err
}

// renderDir checks that out, the -out of -render, is a directory (a
// study's Load would make one).
func renderDir(out string) error {
	if err := dirs.Check(out); err != nil {
		return fmt.Errorf("-render: -out %w", err)
	}
	return nil
}

// loaded is a study's results as its Load returns them.
type loaded interface {
	Stored() (stored, runs int)
	Torn() map[string]study.SkippedLines
}

// renderable tells w (each line after prefix) which results lines of
// res were skipped, and refuses to render report from results in out
// that hold none of the runs asked for: it would replace a finished
// report with an empty one.
func renderable(res loaded, w io.Writer, prefix, out, report string) error {
	study.ReportTorn(w, prefix, res.Torn())
	if stored, runs := res.Stored(); stored == 0 && runs > 0 {
		return fmt.Errorf("-render: %s holds none of the %d runs these flags ask for (are they the flags of its runs?); %s not written", out, runs, report)
	}
	return nil
}

// parseShard reads -shard and -shard-count.
func parseShard(shard string, count int) (study.Shard, error) {
	if count != 0 && shard != "auto" {
		return study.Shard{}, fmt.Errorf("-shard-count: %d is for -shard auto only", count)
	}
	sh, err := study.ParseShard(shard, count, os.Getenv)
	return sh, shardError(err)
}

// shardError names the flag of a bad shard.
func shardError(err error) error {
	var se *study.ShardError
	if errors.As(err, &se) && se.Value == "" {
		return fmt.Errorf("-shard-count: %s", se.Reason)
	}
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

// skippedNote says how many runs shared another's run, and how many
// were skipped for missing data.
func skippedNote(st study.Stats) string {
	s := ""
	if st.Shared > 0 {
		s = ", " + study.SharedNote(st.Shared)
	}
	if st.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped: no data", st.Skipped)
	}
	return s
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
	if a, ok := repeated(out); ok {
		return nil, fmt.Errorf("-algos: %s twice", a)
	}
	return out, nil
}
