package study

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A process running cells of a study directory holds, for as long as it
// runs, a file there of its shard's alone (.results-shard-I-of-N.lock;
// .results.lock for the whole study). A process that would run the cells
// another process is running is refused (BusyError); a process that
// renders takes no such lock.

// A BusyError reports a study directory whose cells another process is
// running now: the same shard (a Slurm task requeued while the first
// attempt still runs). Running them too would compute them twice.
type BusyError struct {
	Dir string
	// Whole is set when the other process runs the study whole; else it
	// runs Shard.
	Whole bool
	Shard Shard
	// PID and Host are the other process's, when known (PID 0 when not).
	PID  int
	Host string
}

func (e *BusyError) Error() string {
	s := fmt.Sprintf("study: shard %s of %s is being run by another process", e.Shard, e.Dir)
	if e.Whole {
		s = fmt.Sprintf("study: %s is being run whole by another process", e.Dir)
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

// A runLock is what a process running a shard (or the whole study) of a
// directory holds until it ends.
type runLock struct {
	shard Shard
	own   *os.File
}

// shardLockFile is the file that the process running shard s holds.
func shardLockFile(s Shard) string {
	return "." + strings.TrimSuffix(s.File(), ".jsonl") + ".lock"
}

// lockRun takes, without waiting, the lock of a process that runs shard
// s of the study in dir (s.Whole(): all of it), or returns a BusyError
// naming the process that runs those cells. Where the file system cannot
// lock, it takes none and refuses nothing.
func lockRun(dir string, s Shard) (*runLock, error) {
	path := filepath.Join(dir, shardLockFile(s))
	own, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	ok, err := tryLockFile(own, true)
	if err != nil {
		own.Close()
		return nil, fmt.Errorf("study: lock %s: %w", path, err)
	}
	if !ok {
		own.Close()
		pid, host := readOwner(path)
		return nil, &BusyError{Dir: dir, Whole: s.Whole(), Shard: Shard{Index: s.Index, Count: s.Count}, PID: pid, Host: host}
	}
	writeOwner(own)
	return &runLock{shard: s, own: own}, nil
}

func (l *runLock) release() { l.own.Close() }

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
