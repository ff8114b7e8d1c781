package vec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/cputime"
)

// benchLevels runs f as a sub-benchmark at every level this machine can
// run, so that benchstat compares the portable kernels with the others.
func benchLevels(b *testing.B, f func(b *testing.B)) {
	for l := Portable; l <= Best(); l++ {
		b.Run("level="+l.String(), func(b *testing.B) {
			prev := Use(l)
			defer Use(prev)
			f(b)
		})
	}
}

func benchVecs(k, n int) (dst, a []float64, xs [][]float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	dst, _ = randVec(rng, n, 0)
	a = make([]float64, k)
	xs = make([][]float64, k)
	for t := range xs {
		a[t] = rng.NormFloat64()
		xs[t], _ = randVec(rng, n, 0)
	}
	return dst, a, xs
}

func BenchmarkAddScaled(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, n := range []int{7, 64, 256, 4096} {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				dst, a, xs := benchVecs(1, n)
				b.SetBytes(int64(24 * n))
				stop := cputime.Start(b)
				for b.Loop() {
					AddScaled(dst, a[0], xs[0])
				}
				stop()
			})
		}
	})
}

func BenchmarkAddScaledN(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, s := range []struct{ k, n int }{{16, 256}, {64, 256}, {10, 4096}} {
			b.Run(fmt.Sprintf("k=%d,n=%d", s.k, s.n), func(b *testing.B) {
				dst, a, xs := benchVecs(s.k, s.n)
				b.SetBytes(int64(8 * s.k * s.n))
				stop := cputime.Start(b)
				for b.Loop() {
					AddScaledN(dst, a, xs)
				}
				stop()
			})
		}
	})
}

func BenchmarkDot(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, n := range []int{16, 256, 4096} {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				x, _, ys := benchVecs(1, n)
				b.SetBytes(int64(16 * n))
				var s float64
				stop := cputime.Start(b)
				for b.Loop() {
					s += Dot(x, ys[0])
				}
				stop()
				_ = s
			})
		}
	})
}

func BenchmarkDotN(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, s := range []struct{ k, n int }{{64, 256}, {64, 64}} {
			b.Run(fmt.Sprintf("k=%d,n=%d", s.k, s.n), func(b *testing.B) {
				x, _, ys := benchVecs(s.k, s.n)
				dst := make([]float64, s.k)
				b.SetBytes(int64(8 * s.k * s.n))
				stop := cputime.Start(b)
				for b.Loop() {
					DotN(dst, x, ys)
				}
				stop()
			})
		}
	})
}

func BenchmarkAdam(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, n := range []int{1000, 65536} {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				th, _, xs := benchVecs(3, n)
				for i := range xs[2] {
					xs[2][i] *= xs[2][i]
				}
				s := AdamStep{Beta1: 0.9, Beta2: 0.999, WeightDecay: 1e-6, StepSize: 0.01, InvBC2: 30, Eps: 1e-8}
				b.SetBytes(int64(56 * n))
				stop := cputime.Start(b)
				for b.Loop() {
					Adam(th, xs[0], xs[1], xs[2], s)
				}
				stop()
			})
		}
	})
}

func BenchmarkMul(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, n := range []int{256, 65536} {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				dst, _, xs := benchVecs(2, n)
				b.SetBytes(int64(24 * n))
				stop := cputime.Start(b)
				for b.Loop() {
					AddMul(dst, xs[0], xs[1])
				}
				stop()
			})
		}
	})
}

func BenchmarkAllFinite(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, n := range []int{256, 65536} {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				_, _, xs := benchVecs(1, n)
				b.SetBytes(int64(8 * n))
				stop := cputime.Start(b)
				for b.Loop() {
					if !AllFinite(xs[0]) {
						b.Fatal("not finite")
					}
				}
				stop()
			})
		}
	})
}
