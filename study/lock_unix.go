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
	if cannotLock(err) {
		return nil
	}
	return err
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// tryLockFile takes a lock on f, exclusive or shared, without waiting:
// it reports false when another open file holds a lock that excludes it.
// A file system that cannot lock reports true, as lockFile does.
func tryLockFile(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	switch {
	case err == nil, cannotLock(err):
		return true, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return false, nil
	}
	return false, err
}

func cannotLock(err error) bool {
	return errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOLCK)
}
