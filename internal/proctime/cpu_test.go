package proctime

import "testing"

// TestCPUAdvances spins and checks that the clock moved forward by at
// least part of the spin.
func TestCPUAdvances(t *testing.T) {
	start, ok := CPU()
	if !ok {
		t.Skip("no CPU clock on this system")
	}
	var s float64
	for i := range 20_000_000 {
		s += float64(i)
	}
	end, _ := CPU()
	if end <= start {
		t.Fatalf("CPU time went from %v to %v over a spin (sum %g)", start, end, s)
	}
}
