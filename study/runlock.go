package study

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RunLockFile is the file in a study directory that the processes
// running its cells lock for as long as they run: a process running the
// study whole holds it alone, the shards' processes share it. Each
// shard's process also holds a file of its own (.results-shard-I-of-N.lock)
// alone. A process that would run cells another process is running is
// refused (BusyError); a process that renders takes neither.
const RunLockFile = ".study.run.lock"

// A BusyError reports a study directory whose cells another process is
// running now: the same shard (a Slurm task requeued while the first
// attempt still runs), the study whole while this process would run a
// shard of it, or shards of it while this process would run it whole
// (or re-plan it). Running them too would compute them twice.
type BusyError struct {
	Dir string
	// Whole is set when the other process runs the study whole; else it
	// runs Shard (the zero Shard when which one is not known).
	Whole bool
	Shard Shard
	// PID and Host are the other process's, when known (PID 0 when not).
	PID  int
	Host string
}

func (e *BusyError) Error() string {
	var s string
	switch {
	case e.Whole:
		s = fmt.Sprintf("study: %s is being run whole by another process", e.Dir)
	case e.Shard.Whole():
		return fmt.Sprintf("study: shards of %s are being run by other processes", e.Dir)
	default:
		s = fmt.Sprintf("study: shard %s of %s is being run by another process", e.Shard, e.Dir)
	}
	if e.PID > 0 {
		s += fmt.Sprintf(" (pid %d", e.PID)
		if h, _ := os.Hostname(); e.Host != "" && e.Host != h {
			s += " on " + e.Host
		}
		s += ")"
	}
	return s
}

// A runLock is what a process running shard (or the whole study) of a
// directory holds until it ends.
type runLock struct {
	shard    Shard
	run, own *os.File // own is nil for the whole study
}

// shardLockFile is the file that the process running shard s holds.
func shardLockFile(s Shard) string {
	return "." + strings.TrimSuffix(s.File(), ".jsonl") + ".lock"
}

// lockRun takes, without waiting, the locks of a process that runs
// shard s of the study in dir (s.Whole(): all of it), or returns a
// BusyError naming the process that runs those cells. Where the file
// system cannot lock, it takes none and refuses nothing.
func lockRun(dir string, s Shard) (*runLock, error) {
	path := filepath.Join(dir, RunLockFile)
	run, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	ok, err := tryLockFile(run, s.Whole())
	if err != nil {
		run.Close()
		return nil, fmt.Errorf("study: lock %s: %w", path, err)
	}
	if !ok {
		run.Close()
		return nil, busy(dir)
	}
	l := &runLock{shard: s, run: run}
	if s.Whole() {
		writeOwner(run)
		return l, nil
	}
	path = filepath.Join(dir, shardLockFile(s))
	own, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		l.release()
		return nil, fmt.Errorf("study: %w", err)
	}
	if ok, err = tryLockFile(own, true); err != nil || !ok {
		own.Close()
		l.release()
		if err != nil {
			return nil, fmt.Errorf("study: lock %s: %w", path, err)
		}
		pid, host := readOwner(path)
		return nil, &BusyError{Dir: dir, Shard: Shard{Index: s.Index, Count: s.Count}, PID: pid, Host: host}
	}
	writeOwner(own)
	l.own = own
	return l, nil
}

func (l *runLock) release() {
	if l.own != nil {
		l.own.Close()
	}
	l.run.Close()
}

// busy returns the BusyError of a directory whose RunLockFile another
// process holds: the whole study's process (which holds it alone), or
// else the first shard whose process holds its file.
func busy(dir string) error {
	path := filepath.Join(dir, RunLockFile)
	if f, err := os.Open(path); err == nil {
		ok, _ := tryLockFile(f, false)
		f.Close()
		if !ok {
			pid, host := readOwner(path)
			return &BusyError{Dir: dir, Whole: true, PID: pid, Host: host}
		}
	}
	names, _ := filepath.Glob(filepath.Join(dir, ".results-shard-*-of-*.lock"))
	sort.Strings(names)
	for _, n := range names {
		var s Shard
		if _, err := fmt.Sscanf(filepath.Base(n), ".results-shard-%d-of-%d.lock", &s.Index, &s.Count); err != nil {
			continue
		}
		f, err := os.Open(n)
		if err != nil {
			continue
		}
		ok, _ := tryLockFile(f, true)
		f.Close()
		if !ok {
			pid, host := readOwner(n)
			return &BusyError{Dir: dir, Shard: s, PID: pid, Host: host}
		}
	}
	return &BusyError{Dir: dir}
}

// writeOwner writes this process's ID and host into the lock file f it
// holds, for the message of a process it refuses.
func writeOwner(f *os.File) {
	host, _ := os.Hostname()
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(fmt.Sprintf("%d %s\n", os.Getpid(), host)), 0)
	}
}

// readOwner reads what writeOwner wrote (0 and "" when nothing is there).
func readOwner(path string) (pid int, host string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, ""
	}
	fmt.Sscanf(string(b), "%d %s", &pid, &host) // what it reads, if anything
	return pid, host
}
