// Package prefault maps the pages of a new array before it is first
// written, in one system call instead of one page fault a page.
//
// A large array that Go allocates from fresh memory is not touched until
// the program first writes it; each of its 4 KiB pages then costs a page
// fault, which in a virtual machine is a trap to the guest kernel and
// often to the host. A client's Adam moments are such arrays, written in
// full at the first step, by both workers at once: on the 2-core
// Firecracker host of bench/compare.sh, mapping them when they are made
// took a float64 Cora-10 run's system time from 0.56-0.67 s to
// 0.24-0.26 s (docs/performance.md, session 16).
package prefault

import "unsafe"

// minBytes is the smallest array worth a system call: 16 pages.
const minBytes = 64 << 10

// Floats maps the pages that lie wholly within x, for writing, where the
// system can (Linux 5.14 and later: madvise MADV_POPULATE_WRITE); it
// changes no value and reports nothing: where it cannot, the pages are
// mapped on first write as before. Only arrays that the caller is about
// to write in full are worth it: a mapped page counts in the resident
// set whether it is written or not.
func Floats[T float32 | float64](x []T) {
	n := uintptr(len(x)) * unsafe.Sizeof(*new(T))
	if n < minBytes {
		return
	}
	_ = populate(uintptr(unsafe.Pointer(&x[0])), n) // else mapped on first write
}

// pageRange returns the whole pages of size page within [start,
// start+n): from lo, length m (0 when there is none).
func pageRange(start, n, page uintptr) (lo, m uintptr) {
	lo = (start + page - 1) &^ (page - 1)
	hi := (start + n) &^ (page - 1)
	if hi <= lo {
		return lo, 0
	}
	return lo, hi - lo
}
