// The race detector writes shadow memory beside every write, whose page
// faults TestPopulateMaps would count: it runs without the detector.

//go:build !race

package prefault

import (
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// minorFaults returns the process's minor page faults so far.
func minorFaults(t *testing.T) int64 {
	t.Helper()
	n, err := MinorFaults()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPopulateMaps: after populate, writing a fresh 8 MiB array takes
// almost none of the 2048 page faults it takes without (where the
// kernel has MADV_POPULATE_WRITE).
func TestPopulateMaps(t *testing.T) {
	x := make([]float64, 1<<20)
	err := populate(uintptr(unsafe.Pointer(&x[0])), uintptr(len(x))*8)
	if errors.Is(err, unix.EINVAL) {
		t.Skip("this kernel has no MADV_POPULATE_WRITE (Linux 5.14)")
	}
	if err != nil {
		t.Fatal(err)
	}
	before := minorFaults(t)
	for i := range x {
		x[i] = 1
	}
	if n := minorFaults(t) - before; n > 512 { // the process's other faults are some tens
		t.Errorf("writing the populated array took %d page faults", n)
	}
}
