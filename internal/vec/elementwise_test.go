package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestMul(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 10))
		const thr = 1e-2
		for _, n := range lengths {
			for _, off := range offsets {
				name := fmt.Sprintf("n=%d off=%d", n, off)
				x, _ := randVec(rng, n, 3-off)
				y, _ := randVec(rng, n, 1)
				for i := range y {
					switch rng.IntN(12) {
					case 0:
						y[i] = math.NaN()
					case 1:
						y[i] = math.Inf(1 - 2*rng.IntN(2))
					case 2:
						y[i] = thr * float64(1-2*rng.IntN(2)) // on the threshold: kept
					case 3:
						y[i] = math.Nextafter(thr, 0) // just below: pruned
					}
				}
				dst, backing := randVec(rng, n, off)
				start := append([]float64(nil), dst...)

				want := make([]float64, n)
				for i := range want {
					want[i] = x[i] * y[i]
				}
				Mul(dst, x, y)
				sameBits(t, "Mul "+name, dst, want)
				checkGuards(t, backing, off, n)

				copy(dst, start)
				for i := range want {
					want[i] = start[i] + float64(x[i]*y[i])
				}
				AddMul(dst, x, y)
				sameBits(t, "AddMul "+name, dst, want)
				checkGuards(t, backing, off, n)

				for i, mi := range y {
					if math.Abs(mi) < thr {
						mi = 0
					}
					want[i] = x[i] * mi
				}
				MulPruned(dst, x, y, thr)
				sameBits(t, "MulPruned "+name, dst, want)
				checkGuards(t, backing, off, n)
			}
		}
	})
}

func TestAllFinite(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 12))
		for _, n := range lengths {
			for _, off := range offsets {
				x, backing := randVec(rng, n, off)
				if !AllFinite(x) {
					t.Fatalf("n=%d off=%d: finite vector reported non-finite", n, off)
				}
				for i := range x {
					for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
						v := x[i]
						x[i] = bad
						if AllFinite(x) {
							t.Fatalf("n=%d off=%d: %v at %d not found", n, off, bad, i)
						}
						x[i] = v
					}
				}
				// The NaN sentinels around the slice are not read.
				if !AllFinite(x) || !math.IsNaN(backing[len(backing)-1]) {
					t.Fatalf("n=%d off=%d: read outside the slice", n, off)
				}
			}
		}
	})
}

// TestHasZero checks HasZero at every level: a zero or a negative zero
// at every position of vectors of every length up to 70, NaN and
// infinities (not zeros) everywhere else.
func TestHasZero(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		for n := 0; n <= 70; n++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = []float64{1, math.NaN(), math.Inf(-1), -2.5, math.SmallestNonzeroFloat64}[i%5]
			}
			if HasZero(x) {
				t.Fatalf("n=%d: a zero found in %v", n, x)
			}
			for i := range x {
				for _, z := range []float64{0, math.Copysign(0, -1)} {
					old := x[i]
					x[i] = z
					if !HasZero(x) {
						t.Fatalf("n=%d: zero %v at %d not found", n, z, i)
					}
					x[i] = old
				}
			}
		}
	})
}

// TestFirstNonFinite checks FirstNonFinite at every level: no such
// element, and a NaN or an infinity at every position of vectors of
// every length up to 40 (after another at a later position).
func TestFirstNonFinite(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		for n := 0; n <= 40; n++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(i) - 3.5
			}
			if i := FirstNonFinite(x); i != -1 {
				t.Fatalf("n=%d: %d for a finite vector", n, i)
			}
			for i := range x {
				for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
					x[i] = bad
					if n-1 > i {
						x[n-1] = math.NaN()
					}
					if got := FirstNonFinite(x); got != i {
						t.Fatalf("n=%d: %d, want %d", n, got, i)
					}
					x[i], x[n-1] = float64(i)-3.5, float64(n-1)-3.5
				}
			}
		}
	})
}

// TestReLU: ReLU and ReLUBack at every level give, bit for bit, Go's
// max(x, 0) (a NaN kept, -0 made +0) and g where y > 0, +0 elsewhere (y
// a NaN too), on every length and alignment, with infinities and NaNs
// among the values, and write nothing outside dst.
func TestReLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 5))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}
	for _, n := range lengths {
		for _, off := range offsets {
			x, _ := randVec(rng, n, off)
			g, _ := randVec(rng, n, off)
			for i := range x {
				if rng.IntN(8) == 0 {
					x[i] = special[rng.IntN(len(special))]
				}
				if rng.IntN(8) == 0 {
					g[i] = special[rng.IntN(len(special))]
				}
			}
			want := make([]float64, n)
			for i, v := range x {
				want[i] = max(v, 0)
			}
			for l, got := range atLevels(func() []float64 {
				d, backing := randVec(rng, n, off)
				ReLU(d, x)
				checkGuards(t, backing, off, n)
				return d
			}) {
				sameBits(t, fmt.Sprintf("ReLU n=%d off=%d %v", n, off, levels()[l]), got, want)
			}
			for i, v := range g {
				if !(x[i] > 0) {
					v = 0
				}
				want[i] = v
			}
			for l, got := range atLevels(func() []float64 {
				d, backing := randVec(rng, n, off)
				ReLUBack(d, g, x)
				checkGuards(t, backing, off, n)
				return d
			}) {
				sameBits(t, fmt.Sprintf("ReLUBack n=%d off=%d %v", n, off, levels()[l]), got, want)
			}
		}
	}
}
