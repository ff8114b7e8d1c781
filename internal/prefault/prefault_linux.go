package prefault

import (
	"os"

	"golang.org/x/sys/unix"
)

var pageSize = uintptr(os.Getpagesize())

// populate asks the kernel to map the whole pages of [start, start+n)
// for writing. An error (EINVAL from a kernel older than 5.14, ENOMEM
// when there is no memory to map now) leaves them to be mapped on first
// write.
func populate(start, n uintptr) error {
	lo, m := pageRange(start, n, pageSize)
	if m == 0 {
		return nil
	}
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, lo, m, unix.MADV_POPULATE_WRITE); e != 0 {
		return e
	}
	return nil
}

// MinorFaults returns the page faults the process has taken so far that
// needed no I/O (getrusage's ru_minflt), for tests that check whether
// memory was mapped ahead. MADV_POPULATE_WRITE counts a page it maps as
// one.
func MinorFaults() (int64, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return ru.Minflt, nil
}
