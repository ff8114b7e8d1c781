package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// levels returns the levels this machine can run, slowest first.
func levels() []Level {
	var ls []Level
	for l := Portable; l <= Best(); l++ {
		ls = append(ls, l)
	}
	return ls
}

// forLevels runs f as a subtest at every level this machine can run.
func forLevels(t *testing.T, f func(t *testing.T)) {
	for _, l := range levels() {
		t.Run(l.String(), func(t *testing.T) {
			prev := Use(l)
			defer Use(prev)
			if Current() != l {
				t.Fatalf("Use(%v) left %v", l, Current())
			}
			f(t)
		})
	}
}

// lengths are the vector lengths tried: every length up to 70, which
// covers every tail of every block size, and a few longer ones.
var lengths = func() []int {
	var ns []int
	for n := 0; n <= 70; n++ {
		ns = append(ns, n)
	}
	return append(ns, 127, 128, 129, 255, 256, 257, 511, 513, 1000, 1433)
}()

// offsets are the starting indices of the slices inside their backing
// arrays: aligned, and unaligned by one and three elements.
var offsets = []int{0, 1, 3}

const guard = 9 // elements kept on both sides of a slice to catch stray writes

// randVec returns a slice of length n starting at index off of a backing
// array with guard sentinels on both sides. Its entries are normal with
// varied magnitudes, and some are zero or negative zero.
func randVec(rng *rand.Rand, n, off int) (v, backing []float64) {
	backing = make([]float64, off+n+guard)
	for i := range backing {
		backing[i] = math.NaN()
	}
	v = backing[off : off+n]
	for i := range v {
		switch rng.IntN(10) {
		case 0:
			v[i] = 0
		case 1:
			v[i] = math.Copysign(0, -1)
		default:
			v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
		}
	}
	return v, backing
}

// checkGuards fails t if the sentinels around the slice at off of length
// n in backing were written.
func checkGuards(t *testing.T, backing []float64, off, n int) {
	t.Helper()
	for i, v := range backing {
		if (i < off || i >= off+n) && !math.IsNaN(v) {
			t.Fatalf("element %d outside the slice [%d, %d) was written", i, off, off+n)
		}
	}
}

// sameBits fails t unless got and want are equal bit for bit.
func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d is %v (%#x), want %v (%#x)", what, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

func TestUse(t *testing.T) {
	prev := Use(AVX512 + 1)
	defer Use(prev)
	if Current() != Best() {
		t.Errorf("Use above Best gave %v, want %v", Current(), Best())
	}
	Use(Portable - 1)
	if Current() != Portable {
		t.Errorf("Use below Portable gave %v", Current())
	}
	if runtime.GOARCH != "amd64" && Best() != Portable {
		t.Errorf("Best on %s is %v", runtime.GOARCH, Best())
	}
	for l, s := range map[Level]string{Portable: "portable", AVX2: "avx2", AVX512: "avx512", 7: "Level(7)"} {
		if l.String() != s {
			t.Errorf("%d.String() = %q", int(l), l.String())
		}
	}
	t.Logf("best level on this machine: %v", Best())
}

func TestAddScaledN(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, n := range lengths {
			for _, off := range offsets {
				for _, k := range []int{0, 1, 2, 5, 17} {
					dst, backing := randVec(rng, n, off)
					a := make([]float64, k)
					xs := make([][]float64, k)
					for i := range xs {
						a[i] = rng.NormFloat64()
						xs[i], _ = randVec(rng, n, offsets[(i+off)%len(offsets)])
					}
					if k > 0 {
						a[0] = -a[0] // a negative coefficient meets the zeros
					}
					start := append([]float64(nil), dst...)
					name := fmt.Sprintf("n=%d off=%d k=%d", n, off, k)

					// Reference: one scaled vector at a time, in order.
					want := append([]float64(nil), start...)
					for i, x := range xs {
						for j := range want {
							want[j] += a[i] * x[j]
						}
					}
					AddScaledN(dst, a, xs)
					sameBits(t, "AddScaledN "+name, dst, want)
					checkGuards(t, backing, off, n)

					want = make([]float64, n)
					for i, x := range xs {
						for j := range want {
							want[j] += a[i] * x[j]
						}
					}
					ScaledSum(dst, a, xs)
					sameBits(t, "ScaledSum "+name, dst, want)
					checkGuards(t, backing, off, n)

					if k > 0 {
						copy(dst, start)
						want = append(want[:0], start...)
						for j := range want {
							want[j] += a[0] * xs[0][j]
						}
						AddScaled(dst, a[0], xs[0])
						sameBits(t, "AddScaled "+name, dst, want)
						checkGuards(t, backing, off, n)
					}
				}
			}
		}
	})
}

// gonumDot is floats.Dot on amd64, whose order Dot keeps; elsewhere gonum
// sums in sequence and Dot's portable version is the reference.
func gonumDot(x, y []float64) float64 {
	if runtime.GOARCH == "amd64" {
		return floats.Dot(x, y)
	}
	return dotGo(x, y)
}

func TestDot(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, n := range lengths {
			for _, off := range offsets {
				x, _ := randVec(rng, n, off)
				ys := make([][]float64, 27) // DotN takes eight, then four, then one at a time
				for i := range ys {
					ys[i], _ = randVec(rng, n, offsets[(i+1)%len(offsets)])
				}
				for i, y := range ys {
					got, want := Dot(x, y), gonumDot(x, y)
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("Dot n=%d off=%d vector %d: %v, gonum %v", n, off, i, got, want)
					}
				}
				for _, nx := range []int{0, 1, 4, 7, 9} {
					xs := make([][]float64, nx)
					for a := range xs {
						xs[a], _ = randVec(rng, n, offsets[a%len(offsets)])
					}
					for _, ny := range []int{0, 1, 11, 17, 33} {
						yy := make([][]float64, ny)
						for t := range yy {
							yy[t] = ys[t%len(ys)]
						}
						dst, backing := randVec(rng, nx*ny, 1)
						DotMN(dst, xs, yy)
						checkGuards(t, backing, 1, nx*ny)
						for a := range nx {
							for b := range ny {
								if want := gonumDot(xs[a], yy[b]); math.Float64bits(dst[a*ny+b]) != math.Float64bits(want) {
									t.Fatalf("DotMN n=%d %dx%d (%d, %d): %v, gonum %v", n, nx, ny, a, b, dst[a*ny+b], want)
								}
							}
						}
					}
				}
				for _, k := range []int{0, 1, 3, 4, 5, 8, 11, 12, 16, 21, 27} {
					dst, backing := randVec(rng, k, 1)
					DotN(dst, x, ys[:k])
					checkGuards(t, backing, 1, k)
					for i := range k {
						if want := gonumDot(x, ys[i]); math.Float64bits(dst[i]) != math.Float64bits(want) {
							t.Fatalf("DotN n=%d off=%d k=%d vector %d: %v, gonum %v", n, off, k, i, dst[i], want)
						}
					}
				}
			}
		}
	})
}

func TestAdam(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, n := range lengths {
			for _, off := range offsets {
				th, thb := randVec(rng, n, off)
				g, _ := randVec(rng, n, 3-off)
				m, mb := randVec(rng, n, 1)
				v, vb := randVec(rng, n, off)
				for i := range v {
					v[i] = math.Abs(v[i])
				}
				s := AdamStep{Beta1: 0.9, Beta2: 0.999, WeightDecay: 1e-6, Eps: 1e-8}
				step := 1 + rng.IntN(50)
				s.StepSize = 0.01 / (1 - math.Pow(s.Beta1, float64(step)))
				s.InvBC2 = 1 / math.Sqrt(1-math.Pow(s.Beta2, float64(step)))
				wt, wm, wv := append([]float64(nil), th...), append([]float64(nil), m...), append([]float64(nil), v...)
				// Reference: gnn's loop before it called Adam.
				for i, x := range wt {
					gi := g[i] + s.WeightDecay*x
					mi := s.Beta1*wm[i] + (1-s.Beta1)*gi
					vi := s.Beta2*wv[i] + (1-s.Beta2)*gi*gi
					wm[i], wv[i] = mi, vi
					wt[i] = x - s.StepSize*mi/(math.Sqrt(vi)*s.InvBC2+s.Eps)
				}
				Adam(th, g, m, v, s)
				name := fmt.Sprintf("n=%d off=%d", n, off)
				sameBits(t, "theta "+name, th, wt)
				sameBits(t, "m "+name, m, wm)
				sameBits(t, "v "+name, v, wv)
				checkGuards(t, thb, off, n)
				checkGuards(t, mb, 1, n)
				checkGuards(t, vb, off, n)
			}
		}
	})
}

func TestPanics(t *testing.T) {
	x := make([]float64, 3)
	for name, f := range map[string]func(){
		"AddScaled":       func() { AddScaled(x, 1, x[:2]) },
		"AddScaledN coef": func() { AddScaledN(x, []float64{1}, [][]float64{x, x}) },
		"AddScaledN len":  func() { AddScaledN(x, []float64{1}, [][]float64{x[:1]}) },
		"ScaledSum len":   func() { ScaledSum(x, []float64{1}, [][]float64{x[:1]}) },
		"Dot":             func() { Dot(x, x[:1]) },
		"DotN dst":        func() { DotN(x[:1], x, [][]float64{x, x}) },
		"DotN len":        func() { DotN(x[:1], x, [][]float64{x[:2]}) },
		"DotMN dst":       func() { DotMN(x[:1], [][]float64{x}, [][]float64{x, x}) },
		"DotMN x":         func() { DotMN(x[:2], [][]float64{x, x[:1]}, [][]float64{x}) },
		"DotMN y":         func() { DotMN(x[:2], [][]float64{x}, [][]float64{x, x[:1]}) },
		"Adam":            func() { Adam(x, x, x, x[:2], AdamStep{}) },
		"Mul":             func() { Mul(x, x[:2], x) },
		"AddMul":          func() { AddMul(x, x, x[:2]) },
		"MulPruned":       func() { MulPruned(x[:2], x, x, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

// TestDotNaNPayloads: DotN keeps the payload of a NaN at every vector
// level as Dot does there (whose AVX2 kernel the AVX-512 level shares):
// the product's first operand is x's element and the sum's the partial
// sum. The vectors have NaNs of different payloads in x and in the ys, in
// the main loop and in the tail. (Go's portable version is no reference:
// the compiler may swap the operands of a sum.)
func TestDotNaNPayloads(t *testing.T) {
	nan := func(p uint64) float64 { return math.Float64frombits(0x7ff8000000000000 | p) }
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 23
	ys := make([][]float64, 53) // six groups of eight, one of four, one
	for i := range ys {
		ys[i], _ = randVec(rng, n, 0)
		for k := range 1 + rng.IntN(3) {
			ys[i][rng.IntN(n)] = nan(uint64(100*i + 10 + k))
		}
	}
	forLevels(t, func(t *testing.T) {
		if Current() < AVX2 {
			t.Skip("the portable sums' operand order is the compiler's")
		}
		for _, at := range [][]int{nil, {6}, {1, 21}, {0, 5, 10, 15}, {3, 22}} {
			x, _ := randVec(rand.New(rand.NewPCG(13, 14)), n, 0)
			for k, i := range at {
				x[i] = nan(uint64(1 + k))
			}
			got := make([]float64, len(ys))
			DotN(got, x, ys)
			for i, y := range ys {
				if want := Dot(x, y); math.Float64bits(got[i]) != math.Float64bits(want) {
					t.Errorf("x NaN at %v, DotN vector %d: %#x, Dot %#x", at, i, math.Float64bits(got[i]), math.Float64bits(want))
				}
			}
		}
	})
}
