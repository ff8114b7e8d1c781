package study

import (
	"fmt"
	"strconv"
	"strings"
)

// A Shard is one of Count shares of a study's cells: the cells whose
// run (key) is the Index-th mod Count of the study's distinct runs in
// its stable order (see Mine). The zero Shard is the whole study.
type Shard struct {
	Index, Count int
	// Task, when not nil, is the scheduler task the shard was read from
	// (ParseShard "auto"); a study directory whose shards were fixed by
	// an earlier task maps a resubmitted task to its own shard through it
	// (see Manifest).
	Task *Task
}

// A Task is the scheduler's view of one task of a job array.
type Task struct {
	// Scheduler is "slurm" or "kubernetes".
	Scheduler string
	// ID is the task's own number: SLURM_ARRAY_TASK_ID, or
	// JOB_COMPLETION_INDEX.
	ID int
	// Min and Step are the Slurm array's first task ID and step (0 and 1
	// on Kubernetes).
	Min, Step int
}

// Whole reports whether s is the whole study.
func (s Shard) Whole() bool { return s.Count <= 1 }

// Owns reports whether the i-th distinct run of a study (counting from
// 0, in the order of the first cell of each key) belongs to the shard.
func (s Shard) Owns(i int) bool { return s.Whole() || i%s.Count == s.Index }

// Mine returns, for each of cells, whether the shard runs it. The
// cells' distinct keys, in the order of their first cells, are dealt to
// the shards in turn (Owns), and every cell of a key belongs to its
// key's shard: a run that several cells share (FedAvg at every alpha
// of a sweep) is one shard's, and computed once.
func (s Shard) Mine(cells []*Cell) []bool {
	out := make([]bool, len(cells))
	nth := map[string]int{} // each key's rank among the distinct keys
	for i, c := range cells {
		k := c.Key()
		j, ok := nth[k]
		if !ok {
			j = len(nth)
			nth[k] = j
		}
		out[i] = s.Owns(j)
	}
	return out
}

// File returns the results file the shard writes.
func (s Shard) File() string {
	if s.Whole() {
		return ResultsFile
	}
	return fmt.Sprintf("results-shard-%d-of-%d.jsonl", s.Index, s.Count)
}

func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Environment variables that ParseShard reads for "auto".
const (
	// EnvShardCount gives the number of shards where the scheduler does
	// not (a Kubernetes Indexed Job: set it to the Job's completions).
	EnvShardCount = "FEDAUX_SHARD_COUNT"
)

// A ShardError reports a shard that cannot be used.
type ShardError struct {
	Value, Reason string
}

func (e *ShardError) Error() string {
	return fmt.Sprintf("study: shard %q: %s", e.Value, e.Reason)
}

// ParseShard reads a shard: "" (the whole study), "I/N" (0 <= I < N), or
// "auto", which takes I and N from the scheduler through getenv: a Slurm
// job array ((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) /
// SLURM_ARRAY_TASK_STEP of SLURM_ARRAY_TASK_COUNT, so that --array=0-7,
// --array=1-8 and --array=0-14:2 each give shards 0..7 of 8), or a
// Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with N from count when
// positive, else from FEDAUX_SHARD_COUNT).
func ParseShard(v string, count int, getenv func(string) string) (Shard, error) {
	if count != 0 && v != "auto" {
		return Shard{}, &ShardError{v, fmt.Sprintf("a shard count (%d) is for shard \"auto\" only", count)}
	}
	switch v {
	case "":
		return Shard{}, nil
	case "auto":
		return autoShard(count, getenv)
	}
	i, n, ok := strings.Cut(v, "/")
	if !ok {
		return Shard{}, &ShardError{v, "want I/N (for example 0/4) or auto"}
	}
	si, err1 := strconv.Atoi(i)
	sn, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil {
		return Shard{}, &ShardError{v, "want I/N with integers I and N (for example 0/4) or auto"}
	}
	return checkShard(v, si, sn)
}

func checkShard(v string, i, n int) (Shard, error) {
	if n < 1 || i < 0 || i >= n {
		return Shard{}, &ShardError{v, fmt.Sprintf("index %d of %d shards, want 0 <= index < shards", i, n)}
	}
	return Shard{Index: i, Count: n}, nil
}

func autoShard(count int, getenv func(string) string) (Shard, error) {
	atoi := func(name string) (int, error) {
		v, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
		if err != nil {
			return 0, &ShardError{"auto", fmt.Sprintf("%s=%q is not an integer", name, getenv(name))}
		}
		return v, nil
	}
	if getenv("SLURM_ARRAY_TASK_ID") != "" {
		id, err := atoi("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return Shard{}, err
		}
		if getenv("SLURM_ARRAY_TASK_COUNT") == "" {
			return Shard{}, &ShardError{"auto", "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"}
		}
		n, err := atoi("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, err
		}
		t := &Task{Scheduler: "slurm", ID: id, Min: 0, Step: 1}
		if getenv("SLURM_ARRAY_TASK_MIN") != "" {
			if t.Min, err = atoi("SLURM_ARRAY_TASK_MIN"); err != nil {
				return Shard{}, err
			}
		}
		if getenv("SLURM_ARRAY_TASK_STEP") != "" {
			if t.Step, err = atoi("SLURM_ARRAY_TASK_STEP"); err != nil {
				return Shard{}, err
			}
			if t.Step < 1 {
				return Shard{}, &ShardError{"auto", fmt.Sprintf("SLURM_ARRAY_TASK_STEP=%d, want >= 1", t.Step)}
			}
		}
		v := fmt.Sprintf("auto (Slurm task %d of %d)", id, n)
		if (id-t.Min)%t.Step != 0 {
			return Shard{}, &ShardError{v, fmt.Sprintf("task %d is not on the array's step: first task %d, step %d", id, t.Min, t.Step)}
		}
		s, err := checkShard(v, (id-t.Min)/t.Step, n)
		s.Task = t
		return s, err
	}
	if getenv("JOB_COMPLETION_INDEX") != "" {
		id, err := atoi("JOB_COMPLETION_INDEX")
		if err != nil {
			return Shard{}, err
		}
		n := count
		if n <= 0 {
			if getenv(EnvShardCount) == "" {
				return Shard{}, &ShardError{"auto", "JOB_COMPLETION_INDEX is set but the number of shards is not: set " + EnvShardCount + " to the Job's completions (or pass the shard count)"}
			}
			if n, err = atoi(EnvShardCount); err != nil {
				return Shard{}, err
			}
		}
		s, err := checkShard(fmt.Sprintf("auto (Kubernetes index %d of %d)", id, n), id, n)
		s.Task = &Task{Scheduler: "kubernetes", ID: id, Step: 1}
		return s, err
	}
	return Shard{}, &ShardError{"auto", "neither a Slurm job array (SLURM_ARRAY_TASK_ID) nor a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) is running this process; give -shard I/N"}
}
