package study

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fedaux/fedaux/internal/atomicfile"
)

// ManifestFile is the file in a study directory that fixes how the study
// is split into shards: the first shard to start writes it, and every
// later process that runs cells there must agree with it.
const ManifestFile = "shards.json"

// A Manifest fixes the shards of a study directory: their number and the
// cells they divide, so that a task resubmitted alone, or started with
// other flags, can neither recompute other shards' cells nor leave any
// undone. A study run whole (no shard) writes none.
type Manifest struct {
	// Shards is the number of shards the cells are divided into.
	Shards int `json:"shards"`
	// Cells is the number of cells, and Plan a hash of their keys in
	// order: the study every shard must be given.
	Cells int    `json:"cells"`
	Plan  string `json:"plan"`
	// Scheduler, TaskMin and TaskStep are the job array of the task that
	// wrote the manifest (see Task), so that a Slurm task resubmitted
	// alone, whose own array is one task long, finds its shard.
	Scheduler string `json:"scheduler,omitempty"`
	TaskMin   int    `json:"task_min,omitempty"`
	TaskStep  int    `json:"task_step,omitempty"`
	// Created is when the manifest was written (RFC 3339, UTC).
	Created string `json:"created"`
}

// A ShardConflictError reports a shard that disagrees with the study
// directory's manifest: running it would compute other shards' cells, or
// leave some undone. Reshard (DirStudy.Reshard) re-plans the directory.
type ShardConflictError struct {
	Dir      string
	Manifest Manifest
	Shard    Shard
	Cells    int // the cells this process was given
	Reason   string
}

func (e *ShardConflictError) Error() string {
	return fmt.Sprintf("study: %s: %s", filepath.Join(e.Dir, ManifestFile), e.Reason)
}

// planOf is the hash of the cells' keys in order.
func planOf(cells []*Cell) string {
	h := sha256.New()
	for _, c := range cells {
		h.Write([]byte(c.Key()))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// ReadManifest reads the manifest of the study directory dir; it returns
// nil and no error when there is none.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("study: %s: %w", path, err)
	}
	if m.Shards < 2 || m.Cells < 0 || m.Plan == "" {
		return nil, fmt.Errorf("study: %s: shards %d, cells %d, plan %q: want shards >= 2 and a plan", path, m.Shards, m.Cells, m.Plan)
	}
	return &m, nil
}

// claim checks shard s against the manifest of dir, writing one when
// there is none and s is a share of the study, and returns the shard to
// run: s itself, or, for a Slurm task in a directory that a Slurm array
// split, the shard its task ID had in that array (a task resubmitted
// alone, or in an array numbered otherwise); a task ID that array did
// not have is refused. With reshard the manifest is replaced by s's
// (removed when s is the whole study) instead. lock takes the run lock
// of the shard to run, before the manifest is written or removed. The
// caller holds the directory's lock.
func claim(dir string, s Shard, cells []*Cell, reshard bool, lock func(Shard) error) (Shard, error) {
	plan := planOf(cells)
	if reshard {
		if err := lock(s); err != nil {
			return s, err
		}
		if s.Whole() {
			if err := os.Remove(filepath.Join(dir, ManifestFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return s, fmt.Errorf("study: %w", err)
			}
			return s, nil
		}
		return s, writeManifest(dir, manifestOf(s, cells, plan), true)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		return s, err
	}
	if m == nil {
		if err := lock(s); err != nil {
			return s, err
		}
		if s.Whole() {
			return s, nil
		}
		if err := writeManifest(dir, manifestOf(s, cells, plan), false); err != nil {
			return s, err
		}
		// Another process may have been first: its manifest decides.
		if m, err = ReadManifest(dir); err != nil {
			return s, err
		}
		if m == nil {
			return s, fmt.Errorf("study: %s was removed while this shard started", filepath.Join(dir, ManifestFile))
		}
	}
	conflict := func(reason string, args ...any) error {
		return &ShardConflictError{Dir: dir, Manifest: *m, Shard: s, Cells: len(cells), Reason: fmt.Sprintf(reason, args...)}
	}
	if m.Plan != plan || m.Cells != len(cells) {
		return s, conflict("the directory's study is %d runs split into %d shards, and this one is %d other runs (other datasets, algorithms, seeds or settings)",
			m.Cells, m.Shards, len(cells))
	}
	// A Slurm task finds its shard through the first array's task IDs,
	// whatever its own array: one resubmitted with as many tasks but
	// another first ID or step numbers them otherwise.
	if t := s.Task; t != nil && t.Scheduler == "slurm" && m.Scheduler == "slurm" && m.TaskStep > 0 {
		if off := t.ID - m.TaskMin; off >= 0 && off%m.TaskStep == 0 && off/m.TaskStep < m.Shards {
			s := Shard{Index: off / m.TaskStep, Count: m.Shards, Task: t}
			return s, lock(s)
		}
		return s, conflict("Slurm task %d was not a task of the array that split the directory into %d shards (first task %d, step %d)",
			t.ID, m.Shards, m.TaskMin, m.TaskStep)
	}
	if s.Count == m.Shards {
		return s, lock(s)
	}
	if s.Whole() {
		return s, conflict("the directory's study is split into %d shards; running it whole would compute the runs of shards that may still be running", m.Shards)
	}
	return s, conflict("the directory's study is split into %d shards, not %d", m.Shards, s.Count)
}

func manifestOf(s Shard, cells []*Cell, plan string) *Manifest {
	m := &Manifest{Shards: s.Count, Cells: len(cells), Plan: plan, Created: time.Now().UTC().Format(time.RFC3339)}
	if t := s.Task; t != nil && t.Scheduler == "slurm" {
		m.Scheduler, m.TaskMin, m.TaskStep = t.Scheduler, t.Min, t.Step
	}
	return m
}

// writeManifest writes m into dir: replacing the one there with replace,
// else only if there is none (two shards starting at once both read the
// winner's).
func writeManifest(dir string, m *Manifest, replace bool) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("study: %w", err)
	}
	b = append(b, '\n')
	path := filepath.Join(dir, ManifestFile)
	if replace {
		if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return fmt.Errorf("study: %w", err)
		}
		return nil
	}
	// Written whole under a name of its own, then linked to the
	// manifest's name, which fails when another process was first.
	tmp, err := os.CreateTemp(dir, "."+ManifestFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("study: %w", err)
	}
	defer os.Remove(tmp.Name())
	// 0644 as every other file of the directory (os.CreateTemp makes 0600).
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("study: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("study: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("study: %w", err)
	}
	return nil
}
