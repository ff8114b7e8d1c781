//go:build unix

package study

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
)

// TestShardRunByOneProcess: a shard started while another process runs
// it (a Slurm task requeued while the first attempt still runs) is
// refused at once, naming that process; it computed every run a second
// time. Another shard runs beside it, a render is not held up, and once
// the first ends the shard may run again.
func TestShardRunByOneProcess(t *testing.T) {
	dir := t.TempDir()
	cs := cells(4)
	first := &DirStudy{Dir: dir, Shard: Shard{Index: 0, Count: 2}}
	if err := first.Claim(cs); err != nil {
		t.Fatal(err)
	}
	again := &DirStudy{Dir: dir, Shard: Shard{Index: 0, Count: 2}}
	st, _, err := again.Run(context.Background(), cs)
	var be *BusyError
	if !errors.As(err, &be) || st.Ran != 0 {
		t.Fatalf("the same shard again: %+v, %v; want a BusyError and nothing run", st, err)
	}
	if want := fmt.Sprintf("study: shard 0/2 of %s is being run by another process (pid %d)", dir, os.Getpid()); err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	other := &DirStudy{Dir: dir, Shard: Shard{Index: 1, Count: 2}}
	if err := other.Claim(cs); err != nil {
		t.Errorf("the other shard: %v", err)
	}
	other.Release()
	unlock, locked := lockDir(dir) // a render's lock
	unlock()
	if !locked {
		t.Error("a render could not lock the directory")
	}
	first.Release()
	if st, _, err := again.Run(context.Background(), cs); err != nil || st.Ran != 2 {
		t.Errorf("the shard once the first ended: %+v, %v; want its 2 runs", st, err)
	}
	if err := again.Claim(cs); err != nil {
		t.Errorf("the shard after its Run ended: %v", err)
	}
	again.Release()
}

// TestWholeAndShardsExclude: shards started while the study runs whole
// in their directory are refused, and leave no manifest (they computed
// every run a second time: only a manifest written first refused a
// whole run); a whole run that would re-plan the directory while a shard
// runs is refused too.
func TestWholeAndShardsExclude(t *testing.T) {
	dir := t.TempDir()
	cs := cells(4)
	whole := &DirStudy{Dir: dir}
	if err := whole.Claim(cs); err != nil {
		t.Fatal(err)
	}
	shard := &DirStudy{Dir: dir, Shard: Shard{Index: 0, Count: 2}}
	err := shard.Claim(cs)
	var be *BusyError
	if want := fmt.Sprintf("study: %s is being run whole by another process (pid %d)", dir, os.Getpid()); !errors.As(err, &be) || err.Error() != want {
		t.Errorf("a shard while the study runs whole: %v, want %q", err, want)
	}
	if m, err := ReadManifest(dir); m != nil || err != nil {
		t.Errorf("the refused shard left a manifest: %+v, %v", m, err)
	}
	whole.Release()
	if err := shard.Claim(cs); err != nil {
		t.Fatalf("a shard once the whole run ended: %v", err)
	}
	again := &DirStudy{Dir: dir, Reshard: true}
	err = again.Claim(cs)
	if want := fmt.Sprintf("study: shard 0/2 of %s is being run by another process (pid %d)", dir, os.Getpid()); !errors.As(err, &be) || err.Error() != want {
		t.Errorf("a whole run re-planning the directory while a shard runs: %v, want %q", err, want)
	}
	if m, _ := ReadManifest(dir); m == nil {
		t.Error("the refused whole run removed the manifest")
	}
	shard.Release()
	if err := again.Claim(cs); err != nil {
		t.Errorf("-reshard once the shard ended: %v", err)
	}
	again.Release()
}
