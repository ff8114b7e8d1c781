package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fedaux/fedaux/presets"
)

func TestClaim(t *testing.T) {
	cs := cells(6)
	other := cells(4)
	slurm := func(id, count, min, step int) Shard {
		return Shard{Index: (id - min) / step, Count: count, Task: &Task{Scheduler: "slurm", ID: id, Min: min, Step: step}}
	}
	type step struct {
		shard   Shard
		cells   []*Cell
		reshard bool
		want    Shard  // the shard to run, when no error
		err     string // part of the error, else ""
	}
	for _, tt := range []struct {
		name  string
		steps []step
		// manifest is the shards.json left at the end (0: none).
		manifest int
	}{
		{"whole study writes no manifest", []step{{shard: Shard{}, cells: cs}}, 0},
		{"shards agree", []step{
			{shard: Shard{Index: 1, Count: 3}, cells: cs, want: Shard{Index: 1, Count: 3}},
			{shard: Shard{Index: 2, Count: 3}, cells: cs, want: Shard{Index: 2, Count: 3}},
			{shard: Shard{Index: 1, Count: 3}, cells: cs, want: Shard{Index: 1, Count: 3}},
		}, 3},
		{"another count is refused", []step{
			{shard: Shard{Index: 0, Count: 3}, cells: cs, want: Shard{Index: 0, Count: 3}},
			{shard: Shard{Index: 0, Count: 2}, cells: cs, err: "split into 3 shards, not 2"},
		}, 3},
		{"the whole study is refused in a sharded directory", []step{
			{shard: Shard{Index: 0, Count: 3}, cells: cs, want: Shard{Index: 0, Count: 3}},
			{shard: Shard{}, cells: cs, err: "running it whole"},
		}, 3},
		{"other cells are refused", []step{
			{shard: Shard{Index: 0, Count: 2}, cells: cs, want: Shard{Index: 0, Count: 2}},
			{shard: Shard{Index: 1, Count: 2}, cells: other, err: "6 runs split into 2 shards, and this one is 4 other runs"},
		}, 2},
		{"a Slurm task resubmitted alone runs its own shard", []step{
			{shard: slurm(0, 3, 0, 1), cells: cs, want: Shard{Index: 0, Count: 3}},
			// sbatch --array=2: a one-task array whose task ID is 2.
			{shard: slurm(2, 1, 2, 1), cells: cs, want: Shard{Index: 2, Count: 3}},
			// sbatch --array=1-2: two tasks, IDs 1 and 2.
			{shard: slurm(1, 2, 1, 1), cells: cs, want: Shard{Index: 1, Count: 3}},
			{shard: slurm(3, 1, 3, 1), cells: cs, err: "Slurm task 3 was not a task of the array"},
		}, 3},
		{"a stepped Slurm array", []step{
			{shard: slurm(2, 3, 0, 2), cells: cs, want: Shard{Index: 1, Count: 3}}, // --array=0-4:2
			{shard: slurm(4, 1, 4, 1), cells: cs, want: Shard{Index: 2, Count: 3}}, // --array=4
			{shard: slurm(3, 1, 3, 1), cells: cs, err: "first task 0, step 2"},
		}, 3},
		{"a Slurm array resubmitted with the same count but other task IDs", []step{
			{shard: slurm(2, 3, 0, 2), cells: cs, want: Shard{Index: 1, Count: 3}}, // --array=0-4:2
			// --array=0-2: three tasks again, but task 2 was shard 1 and
			// task 1 was none; --array=4-6: task 4 was shard 2, 5 and 6 none.
			{shard: slurm(0, 3, 0, 1), cells: cs, want: Shard{Index: 0, Count: 3}},
			{shard: slurm(2, 3, 0, 1), cells: cs, want: Shard{Index: 1, Count: 3}},
			{shard: slurm(1, 3, 0, 1), cells: cs, err: "Slurm task 1 was not a task of the array"},
			{shard: slurm(4, 3, 4, 1), cells: cs, want: Shard{Index: 2, Count: 3}},
			{shard: slurm(5, 3, 4, 1), cells: cs, err: "Slurm task 5 was not a task of the array"},
			{shard: slurm(6, 3, 4, 1), cells: cs, err: "first task 0, step 2"},
		}, 3},
		{"a Kubernetes index with another count is refused", []step{
			{shard: Shard{Index: 1, Count: 4, Task: &Task{Scheduler: "kubernetes", ID: 1, Step: 1}}, cells: cs, want: Shard{Index: 1, Count: 4}},
			{shard: Shard{Index: 0, Count: 1, Task: &Task{Scheduler: "kubernetes", ID: 0, Step: 1}}, cells: cs, err: "running it whole"},
		}, 4},
		{"reshard re-plans", []step{
			{shard: Shard{Index: 0, Count: 3}, cells: cs, want: Shard{Index: 0, Count: 3}},
			{shard: Shard{Index: 1, Count: 2}, cells: other, reshard: true, want: Shard{Index: 1, Count: 2}},
			{shard: Shard{Index: 0, Count: 2}, cells: other, want: Shard{Index: 0, Count: 2}},
		}, 2},
		{"reshard of the whole study removes the manifest", []step{
			{shard: Shard{Index: 0, Count: 3}, cells: cs, want: Shard{Index: 0, Count: 3}},
			{shard: Shard{}, cells: cs, reshard: true},
		}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, s := range tt.steps {
				d := &DirStudy{Dir: dir, Shard: s.shard, Reshard: s.reshard}
				err := d.Claim(s.cells)
				d.Release() // as a task that ended before the next started
				if s.err != "" {
					var ce *ShardConflictError
					if !errors.As(err, &ce) || !strings.Contains(err.Error(), s.err) {
						t.Fatalf("step %d: %v, want a ShardConflictError with %q", i, err, s.err)
					}
					if !strings.Contains(err.Error(), filepath.Join(dir, ManifestFile)) {
						t.Errorf("step %d: the error does not name the manifest: %v", i, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if d.Shard.Index != s.want.Index || d.Shard.Count != s.want.Count {
					t.Errorf("step %d: runs shard %v, want %v", i, d.Shard, s.want)
				}
			}
			m, err := ReadManifest(dir)
			switch {
			case err != nil:
				t.Fatal(err)
			case tt.manifest == 0 && m != nil:
				t.Errorf("manifest %+v left, want none", m)
			case tt.manifest > 0 && (m == nil || m.Shards != tt.manifest):
				t.Errorf("manifest %+v, want %d shards", m, tt.manifest)
			}
		})
	}
}

// TestClaimConcurrent starts every shard of a study at once: one
// manifest is written, every shard is accepted, and a bad one is not.
func TestClaimConcurrent(t *testing.T) {
	cs := cells(8)
	for trial := range 20 {
		dir := t.TempDir()
		const n = 4
		var wg sync.WaitGroup
		errs := make([]error, n+1)
		for i := range n + 1 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := Shard{Index: i, Count: n}
				if i == n { // a task started with another count
					s = Shard{Index: 0, Count: n + 1}
				}
				d := &DirStudy{Dir: dir, Shard: s}
				errs[i] = d.Claim(cs)
				d.Release()
			}()
		}
		wg.Wait()
		m, err := ReadManifest(dir)
		if err != nil || m == nil {
			t.Fatalf("trial %d: manifest %v, %v", trial, m, err)
		}
		refused := 0
		for i, err := range errs {
			if err != nil {
				refused++
				if i < n && m.Shards == n {
					t.Errorf("trial %d: shard %d/%d refused: %v", trial, i, n, err)
				}
			}
		}
		// Whichever count was first, the other is refused.
		if want := map[int]int{n: 1, n + 1: n}[m.Shards]; refused != want {
			t.Errorf("trial %d: manifest of %d shards, %d starts refused, want %d", trial, m.Shards, refused, want)
		}
		if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
			t.Errorf("trial %d: temporary files left: %v", trial, tmp)
		}
	}
}

func TestReadManifestBad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ManifestFile)
	for _, body := range []string{`{"shards": 4,`, `{"shards": 1, "cells": 3, "plan": "ab"}`, `{"shards": 3, "cells": 3}`} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadManifest(dir)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("manifest %s: %v, want an error naming %s", body, err, path)
		}
		if err := (&DirStudy{Dir: dir, Shard: Shard{Index: 0, Count: 3}}).Claim(cells(3)); err == nil {
			t.Errorf("manifest %s: a shard was claimed", body)
		}
	}
}

// TestMissingData runs a study with cells whose data is absent: without
// SkipMissing nothing runs and the error names the files; with it the
// others run.
func TestMissingData(t *testing.T) {
	cora, err := presets.Get("cora-10")
	if err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	cs := cells(2)
	c := cora.Config()
	c.Rounds = 1
	cs = append(cs, &Cell{Scenario: cora, Config: c})
	ctx := context.Background()

	st, err := (&Runner{Env: presets.Env{DataDir: empty}, CheckData: true}).Run(ctx, cs)
	var me *MissingDataError
	if !errors.As(err, &me) || me.Runs != 1 || st.Ran != 0 {
		t.Fatalf("Run: %+v, %v; want a MissingDataError for 1 run and nothing run", st, err)
	}
	if want := filepath.Join(empty, "cora.npz"); !strings.Contains(err.Error(), "cora-10 needs "+want) {
		t.Errorf("error %q does not name %s", err, want)
	}
	st, err = (&Runner{Env: presets.Env{DataDir: empty}, SkipMissing: true}).Run(ctx, cs)
	if err != nil || st.Ran != 2 || st.Skipped != 1 {
		t.Errorf("Run with SkipMissing: %+v, %v; want 2 run and 1 skipped", st, err)
	}
	// A cell of another shard does not count.
	st, err = (&Runner{Env: presets.Env{DataDir: empty}, CheckData: true, Shard: Shard{Index: 0, Count: 3}}).Run(ctx, cs)
	if err != nil || st.Ran != 1 {
		t.Errorf("shard 0/3 without the missing cell: %+v, %v; want 1 run", st, err)
	}
}

// TestManifestMode: shards.json is readable by everyone, as every other
// file of a study directory is (it was written 0600, the mode of
// os.CreateTemp, so another user's render or shard could not read it).
func TestManifestMode(t *testing.T) {
	dir := t.TempDir()
	if err := (&DirStudy{Dir: dir, Shard: Shard{Index: 0, Count: 2}}).Claim(cells(4)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o644 {
		t.Errorf("%s has mode %o, want 644", ManifestFile, got)
	}
}
