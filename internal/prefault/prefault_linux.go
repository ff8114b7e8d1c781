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
