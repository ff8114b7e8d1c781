package study

import (
	"fmt"
	"strconv"
	"strings"
)

// A Shard is one of Count shares of a study's cells: the cells whose
// index in the study's stable order is Index mod Count. The zero Shard
// is the whole study.
type Shard struct {
	Index, Count int
}

// Whole reports whether s is the whole study.
func (s Shard) Whole() bool { return s.Count <= 1 }

// Owns reports whether the cell at index i belongs to the shard.
func (s Shard) Owns(i int) bool { return s.Whole() || i%s.Count == s.Index }

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
// job array (SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN, and
// SLURM_ARRAY_TASK_COUNT), or a Kubernetes Indexed Job
// (JOB_COMPLETION_INDEX, with N from count when positive, else from
// FEDAUX_SHARD_COUNT).
func ParseShard(v string, count int, getenv func(string) string) (Shard, error) {
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
		if getenv("SLURM_ARRAY_TASK_MIN") != "" {
			lo, err := atoi("SLURM_ARRAY_TASK_MIN")
			if err != nil {
				return Shard{}, err
			}
			id -= lo
		}
		return checkShard(fmt.Sprintf("auto (Slurm task %s of %d)", getenv("SLURM_ARRAY_TASK_ID"), n), id, n)
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
		return checkShard(fmt.Sprintf("auto (Kubernetes index %d of %d)", id, n), id, n)
	}
	return Shard{}, &ShardError{"auto", "neither a Slurm job array (SLURM_ARRAY_TASK_ID) nor a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) is running this process; give -shard I/N"}
}
