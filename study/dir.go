package study

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fedaux/fedaux/internal/atomicfile"
	"github.com/fedaux/fedaux/presets"
)

// A DirStudy is a study kept in a directory, as table, sweep and
// similarity keep theirs: its results files (the shard's own appended to,
// every one read), the checkpoint of an interrupted cell in
// Dir/checkpoints (resumed by the next run), the manifest that fixes its
// shards (ManifestFile), and a report rendered from all the results
// before the first cell, after each and at the end.
//
// Processes may run shards of one study into one directory at once, on
// one machine or on many sharing a file system: each appends to its own
// results file, and reports are rendered under the directory's lock
// (LockFile), each from every result stored before it.
type DirStudy struct {
	Dir   string
	Shard Shard
	// Reshard replaces the directory's manifest with Shard's (removes it
	// for the whole study) instead of refusing a shard that disagrees
	// with it; only for a directory none of whose shards is running.
	Reshard bool
	// SkipMissing skips the cells whose data files are absent; without
	// it such cells are an error (MissingDataError) before any cell runs.
	SkipMissing bool
	Env         presets.Env
	Recorder    Recorder // nil: Nop
	Interrupts  *Interrupts
	// Render, when not nil, rewrites the report from the store (which
	// holds every results file in Dir); final is set the last time.
	Render func(s *Store, final bool) error
	// Runner, when not nil, adjusts the runner (hooks) before it runs.
	Runner func(*Runner)

	claimed bool
	lock    *runLock // held from Claim to the end of Run
}

// LockFile is the file in a study directory that its processes lock
// while they render its report or write its manifest.
const LockFile = ".study.lock"

// staleAge is how old a temporary file left in a study directory must be
// to be taken for one left by a killed process.
const staleAge = 10 * time.Minute

// Claim checks the shard against the directory's manifest (writing one
// for the first shard of a study), so that d.Shard is the shard this
// process runs (see Manifest), and takes the shard's run lock, which
// Run releases when it ends (Release, for a caller that claims and does
// not run): while it is held, another process that would run the shard
// is refused with a BusyError. Run claims if it was not done before.
func (d *DirStudy) Claim(cells []*Cell) error {
	if d.claimed {
		return nil
	}
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	unlock, _ := lockDir(d.Dir)
	defer unlock()
	s, err := claim(d.Dir, d.Shard, cells, d.Reshard, d.lockRun)
	if err != nil {
		d.Release()
		return err
	}
	d.Shard, d.claimed = s, true
	return nil
}

// lockRun takes the run lock of shard s, letting go of another shard's
// taken before.
func (d *DirStudy) lockRun(s Shard) error {
	if l := d.lock; l != nil {
		if l.shard.Index == s.Index && l.shard.Count == s.Count {
			return nil
		}
		d.Release()
	}
	l, err := lockRun(d.Dir, s)
	if err != nil {
		return err
	}
	d.lock = l
	return nil
}

// Release lets go of the run lock that Claim took, so that another
// process may run the shard; a later Run claims it again.
func (d *DirStudy) Release() {
	if d.lock != nil {
		d.lock.release()
		d.lock = nil
	}
	d.claimed = false
}

// Run runs the cells not in the directory's results (see Runner.Run) and
// keeps the report current.
func (d *DirStudy) Run(ctx context.Context, cells []*Cell) (Stats, *Store, error) {
	if err := d.Claim(cells); err != nil {
		return Stats{Plan: Plan{Cells: len(cells), Shard: d.Shard}}, nil, err
	}
	defer d.Release()
	store, err := OpenStore(d.Dir, d.Shard.File())
	if err != nil {
		return Stats{}, nil, err
	}
	rr := &rendering{Recorder: cmp.Or[Recorder](d.Recorder, Nop{}), store: store, render: d.Render}
	if err := rr.write(false); err != nil {
		return Stats{}, store, err
	}
	r := &Runner{Store: store, Shard: d.Shard, Env: d.Env, Recorder: rr, Interrupts: d.Interrupts, CheckData: true, SkipMissing: d.SkipMissing,
		Checkpoint: func(c *Cell) string { return filepath.Join(d.Dir, "checkpoints", c.Key()+".ckpt") }}
	if d.Runner != nil {
		d.Runner(r)
	}
	st, err := r.Run(ctx, cells)
	if werr := rr.write(true); err == nil {
		err = cmp.Or(rr.err, werr)
	}
	return st, store, err
}

// rendering rewrites the report after each finished cell.
type rendering struct {
	Recorder
	store  *Store
	render func(*Store, bool) error
	err    error
}

// write renders the report under the directory's lock, from every result
// stored before it took the lock: of processes rendering one after the
// other, the last one's report holds everything.
func (r *rendering) write(final bool) error {
	if r.render == nil {
		return nil
	}
	unlock, locked := lockDir(r.store.Dir())
	defer unlock()
	if locked {
		if err := atomicfile.RemoveStaleIn(r.store.Dir(), staleAge); err != nil {
			return fmt.Errorf("study: %w", err)
		}
	}
	if err := r.store.Reload(); err != nil {
		return err
	}
	return r.render(r.store, final)
}

func (r *rendering) Finish(n, total int, c *Cell, rec *Record) {
	r.Recorder.Finish(n, total, c, rec)
	if err := r.write(false); err != nil && r.err == nil {
		r.err = err
	}
}

// lockDir takes the lock of the study directory dir and returns its
// release. Where the file system cannot lock, it goes on without (a
// report is then still written whole, but may lag a result behind until
// the next one) and reports false.
func lockDir(dir string) (unlock func(), locked bool) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return func() {}, false
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return func() {}, false
	}
	return func() { unlockFile(f); f.Close() }, true
}
