package cputime

import (
	"testing"

	"github.com/fedaux/fedaux/internal/proctime"
)

// Start begins measuring the CPU time of the whole process (every thread,
// the garbage collector included) and returns the function that stops
// and reports it as the metric cpu-ns/op. Call Start after the setup and
// the returned function after the loop:
//
//	stop := cputime.Start(b)
//	for b.Loop() { ... }
//	stop()
//
// Where the operating system does not report CPU time, nothing is
// reported.
func Start(b *testing.B) (stop func()) {
	start, ok := proctime.CPU()
	return func() {
		end, ok2 := proctime.CPU()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
