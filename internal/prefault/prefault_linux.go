package prefault

import (
	"os"

	"golang.org/x/sys/unix"
)

var pageSize = uintptr(os.Getpagesize())

// populate asks the kernel to map the whole pages of [start, start+n)
// for writing; an error (an older kernel without MADV_POPULATE_WRITE, or
// no memory to map now) leaves them to be mapped on first write.
func populate(start, n uintptr) {
	lo, m := pageRange(start, n, pageSize)
	if m == 0 {
		return
	}
	unix.Syscall(unix.SYS_MADVISE, lo, m, unix.MADV_POPULATE_WRITE)
}
