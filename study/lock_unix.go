//go:build unix

package study

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f. A file system that cannot lock
// (Lustre mounted without flock, some FUSE file systems) is not an
// error: every shard appends to a results file of its own and O_APPEND
// writes each line at once, so the lock only guards against two
// processes run by mistake with one shard.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOLCK) {
		return nil
	}
	return err
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
