package vec

import (
	"fmt"
	"math/rand/v2"
	"sync"
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

// BenchmarkAdamStreams runs Adam on one or two goroutines at once, each
// over its own four arrays of 2 to 128 MiB (a Cora client's first-layer
// weight is 2.9 MB an array in float64), and reports the bytes read and
// written a second by all of them (MB/s): what a second core adds to a
// pass bound by memory, from the third-level cache (32 MiB here) or
// beyond it.
func BenchmarkAdamStreams(b *testing.B) {
	for _, mib := range []int{2, 8, 32, 128} {
		for _, g := range []int{1, 2} {
			b.Run(fmt.Sprintf("MiB=%d/goroutines=%d", mib, g), func(b *testing.B) {
				n := mib << 20 / 8
				arrays := make([][4][]float64, g)
				for i := range arrays {
					for j := range arrays[i] {
						arrays[i][j] = make([]float64, n)
					}
					for k := range n {
						arrays[i][1][k] = 1e-3 // the gradient
					}
				}
				s := AdamStep{Beta1: 0.9, Beta2: 0.999, StepSize: 0.01, InvBC2: 1, Eps: 1e-8}
				b.SetBytes(int64(g * 56 * n)) // four arrays read, three written
				for b.Loop() {
					var wg sync.WaitGroup
					for _, a := range arrays {
						wg.Go(func() { Adam(a[0], a[1], a[2], a[3], s) })
					}
					wg.Wait()
				}
			})
		}
	}
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

// BenchmarkHasZero scans a row of generated features without a zero
// (FedSage+ checks every row of a mended graph's generated neighbours
// before its products: 767 on Amazon-Computer) and a long vector.
func BenchmarkHasZero(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, n := range []int{767, 65536} {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				x := make([]float64, n)
				for i := range x {
					x[i] = 1 + float64(i%7)
				}
				b.SetBytes(int64(8 * n))
				stop := cputime.Start(b)
				for b.Loop() {
					if HasZero(x) {
						b.Fatal("a zero")
					}
				}
				stop()
			})
		}
	})
}

// rowSumsBench is a product of a round: 250 or 1375 rows, each the sum of
// the rows of a 256 x 256 matrix that a quarter (training, after dropout)
// or a half (evaluation) of its inputs select, or of 7 columns of a
// 512-row matrix (the classifier).
func rowSumsBench(rows, srcRows, cols int, density float64) (dst, src []float64, terms []Term, n []int) {
	rng := rand.New(rand.NewPCG(3, 4))
	dst = make([]float64, rows*cols)
	src = make([]float64, srcRows*cols)
	for i := range src {
		src[i] = rng.NormFloat64()
	}
	n = make([]int, rows)
	for r := range n {
		for j := range srcRows {
			if rng.Float64() < density {
				terms = append(terms, Term{Off: j * cols, A: rng.NormFloat64()})
				n[r]++
			}
		}
	}
	return dst, src, terms, n
}

// BenchmarkRowSums times RowSums against the same sums row by row
// through ScaledSum (what the products of gnn did before RowSums).
func BenchmarkRowSums(b *testing.B) {
	for _, s := range []struct {
		rows, srcRows, cols int
		density             float64
	}{{250, 256, 256, 0.25}, {250, 256, 256, 0.5}, {1375, 256, 256, 0.25}, {250, 512, 7, 0.25}} {
		dst, src, terms, n := rowSumsBench(s.rows, s.srcRows, s.cols, s.density)
		name := fmt.Sprintf("rows=%d,src=%d,cols=%d,density=%v", s.rows, s.srcRows, s.cols, s.density)
		b.Run("RowSums/"+name, func(b *testing.B) {
			stop := cputime.Start(b)
			for b.Loop() {
				RowSums(dst, s.cols, s.cols, src, terms, n, true)
			}
			stop()
		})
		b.Run("ByRow/"+name, func(b *testing.B) {
			var a [64]float64
			var xs [64][]float64
			stop := cputime.Start(b)
			for b.Loop() {
				ts := terms
				for r, k := range n {
					row := dst[r*s.cols : (r+1)*s.cols]
					zero := true
					for k > 0 {
						m := min(k, 64)
						for t, term := range ts[:m] {
							a[t], xs[t] = term.A, src[term.Off:term.Off+s.cols]
						}
						if zero {
							ScaledSum(row, a[:m], xs[:m])
						} else {
							AddScaledN(row, a[:m], xs[:m])
						}
						zero = false
						ts, k = ts[m:], k-m
					}
				}
			}
			stop()
		})
	}
}

// BenchmarkNonzeroTerms32 gathers the terms of a ReLU and dropout
// output of 270 x 256 float32 entries (a Cora client's hidden layer)
// with a given share of them non-zero.
func BenchmarkNonzeroTerms32(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, share := range []float64{0.1, 0.3, 0.6} {
			b.Run(fmt.Sprintf("nonzero=%.1f", share), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(3, 4))
				x := make([]float32, 270*256)
				for i := range x {
					if rng.Float64() < share {
						x[i] = float32(rng.NormFloat64())
					}
				}
				dst := make([]Term32, len(x)+NonzeroTermsSlack)
				b.SetBytes(int64(4 * len(x)))
				for b.Loop() {
					NonzeroTerms32(dst, x, 256)
				}
			})
		}
	})
}

// BenchmarkNonzeroTerms is BenchmarkNonzeroTerms32 for float64 entries.
func BenchmarkNonzeroTerms(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		for _, share := range []float64{0.1, 0.3, 0.6} {
			b.Run(fmt.Sprintf("nonzero=%.1f", share), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(3, 4))
				x := make([]float64, 270*256)
				for i := range x {
					if rng.Float64() < share {
						x[i] = rng.NormFloat64()
					}
				}
				dst := make([]Term, len(x)+NonzeroTermsSlack)
				b.SetBytes(int64(8 * len(x)))
				for b.Loop() {
					NonzeroTerms(dst, x, 256)
				}
			})
		}
	})
}
