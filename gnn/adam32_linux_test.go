// The race detector writes shadow memory beside every write, whose page
// faults the test would count: it runs without the detector.

//go:build linux && !race

package gnn

import (
	"testing"

	"github.com/fedaux/fedaux/internal/prefault"
)

// minorFaults returns the process's minor page faults so far.
func minorFaults(t *testing.T) int64 {
	t.Helper()
	n, err := prefault.MinorFaults()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAdam32FirstStepMaps checks that Adam32's first step maps its fresh
// moments before it reads them. Step reads each chunk of the moments
// before writing it, and a fresh page that is read first is mapped twice:
// the shared zero page on the read, then a copy on the write, which
// flushes the other cores' TLBs (half of a CiteSeer generator phase's CPU
// on this project's 2-core host). Mapped ahead, each page faults once
// (MADV_POPULATE_WRITE counts its pages as faults).
func TestAdam32FirstStepMaps(t *testing.T) {
	const n = 1 << 21 // 8 MiB a moment: 4096 pages for the two
	w, g := make([]float32, n), make([]float64, n)
	for i := range w {
		w[i], g[i] = 1, 1
	}
	a := NewAdam32(n, 0.01, 0)
	before := minorFaults(t)
	a.Step(w, g)
	f := minorFaults(t) - before
	t.Logf("the first step took %d page faults", f)
	if f > 6144 { // read first and then written: 8192
		t.Errorf("the first step took %d page faults for the moments' 4096 pages, want them mapped before they are read", f)
	}
}
