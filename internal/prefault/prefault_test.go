package prefault

import (
	"math"
	"testing"
)

// TestFloatsKeepsValues: mapping an array's pages changes none of its
// values, at any length and alignment, fresh or written before.
func TestFloatsKeepsValues(t *testing.T) {
	for _, n := range []int{0, 1, 1000, minBytes/8 - 1, minBytes / 8, 3*minBytes/8 + 5} {
		x := make([]float64, n+1)
		for i := range x {
			x[i] = float64(i) - 0.5
		}
		y := make([]float32, 2*n)
		Floats(x[1:]) // off a page boundary
		Floats(y)
		for i, v := range x {
			if v != float64(i)-0.5 {
				t.Fatalf("n %d: x[%d] = %v after Floats", n, i, v)
			}
		}
		for i, v := range y {
			if v != 0 || math.Signbit(float64(v)) {
				t.Fatalf("n %d: fresh y[%d] = %v after Floats", n, i, v)
			}
		}
	}
}

// TestPageRange: the whole pages within a range, none when it holds no
// whole page.
func TestPageRange(t *testing.T) {
	for _, c := range []struct{ start, n, lo, m uintptr }{
		{0, 8192, 0, 8192},
		{1, 8192, 4096, 4096},
		{4096, 4095, 8192, 0},
		{4095, 4097, 4096, 4096},
		{100, 10, 4096, 0},
	} {
		lo, m := pageRange(c.start, c.n, 4096)
		if m != c.m || (m != 0 && lo != c.lo) {
			t.Errorf("pageRange(%d, %d) = %d, %d; want %d, %d", c.start, c.n, lo, m, c.lo, c.m)
		}
	}
}
