package study

import (
	"cmp"
	"context"
	"path/filepath"

	"github.com/fedaux/fedaux/presets"
)

// A DirStudy is a study kept in a directory, as table, sweep and
// similarity keep theirs: its results files (the shard's own appended to,
// every one read), the checkpoint of an interrupted cell in
// Dir/checkpoints (resumed by the next run), and a report rendered from
// all the results before the first cell, after each and at the end.
type DirStudy struct {
	Dir        string
	Shard      Shard
	Env        presets.Env
	Recorder   Recorder // nil: Nop
	Interrupts *Interrupts
	// Skip, when not nil, names cells not to run (see Runner.Skip).
	Skip func(*Cell) bool
	// Render, when not nil, rewrites the report from the store (which
	// holds every results file in Dir); final is set the last time.
	Render func(s *Store, final bool) error
	// Runner, when not nil, adjusts the runner (hooks) before it runs.
	Runner func(*Runner)
}

// Run runs the cells not in the directory's results (see Runner.Run) and
// keeps the report current.
func (d *DirStudy) Run(ctx context.Context, cells []*Cell) (Stats, *Store, error) {
	store, err := OpenStore(d.Dir, d.Shard.File())
	if err != nil {
		return Stats{}, nil, err
	}
	rr := &rendering{Recorder: cmp.Or[Recorder](d.Recorder, Nop{}), store: store, render: d.Render}
	if err := rr.write(false); err != nil {
		return Stats{}, store, err
	}
	r := &Runner{Store: store, Shard: d.Shard, Env: d.Env, Recorder: rr, Interrupts: d.Interrupts, Skip: d.Skip,
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

func (r *rendering) write(final bool) error {
	if r.render == nil {
		return nil
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
