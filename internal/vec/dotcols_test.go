package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotMNStride checks every entry of DotMNStride against Dot (itself
// gonum's DotUnitary, TestDot) to the bit, at every level, for lengths
// with and without a tail of one to three elements, numbers of ys around
// the strips' 8 and 16, odd numbers of rows (and more than the 64 of a
// block), a stride wider than a row, with and without a pattern, and
// guards around the result.
func TestDotMNStride(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(21, 22))
		for _, m := range []int{0, 1, 2, 3, 4, 5, 7, 8, 13, 14, 20, 64, 255, 256, 257} {
			for _, k := range []int{1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 256} {
				for _, nx := range []int{1, 2, 3, 5, 67} {
					if m*k*nx > 1<<21 {
						continue
					}
					ys := make([][]float64, k)
					for j := range ys {
						ys[j], _ = randVec(rng, m, offsets[j%len(offsets)])
					}
					xs := make([][]float64, nx)
					for a := range xs {
						xs[a], _ = randVec(rng, m, offsets[a%len(offsets)])
					}
					stride := k + 3
					n := (nx-1)*stride + k
					// No pattern, one four fifths non-zero (computed whole)
					// and one a tenth non-zero (the kept entries alone).
					for _, withPattern := range []int{0, 1, 2} {
						var pattern []float64
						if withPattern > 0 {
							pattern, _ = randVec(rng, nx*k, 0) // a tenth +0, a tenth -0
							pattern[rng.IntN(len(pattern))] = math.NaN()
						}
						if withPattern == 2 {
							for i := range pattern {
								if rng.IntN(10) > 0 {
									pattern[i] = math.Copysign(0, float64(rng.IntN(2)*2-1))
								}
							}
						}
						dst, backing := randVec(rng, n, 1)
						for i := range dst {
							dst[i] = math.NaN()
						}
						DotMNStride(dst, stride, xs, ys, pattern, k)
						checkGuards(t, backing, 1, n)
						for a, x := range xs {
							for j, y := range ys {
								want := Dot(x, y)
								if pattern != nil && pattern[a*k+j] == 0 {
									want = 0
								}
								if got := dst[a*stride+j]; math.Float64bits(got) != math.Float64bits(want) {
									t.Fatalf("m=%d k=%d rows=%d pattern %d (%d, %d): %v, want %v", m, k, nx, withPattern, a, j, got, want)
								}
							}
							for j := k; j < stride && a+1 < nx; j++ {
								if !math.IsNaN(dst[a*stride+j]) {
									t.Fatalf("m=%d k=%d rows=%d: the gap after row %d was written", m, k, nx, a)
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestDotMNStrideNaNPayloads checks that a NaN's payload comes out of
// DotMNStride as out of Dot: the lanes keep Dot's operand order, with a
// pattern or without, computed whole or by the kept entries.
func TestDotMNStrideNaNPayloads(t *testing.T) {
	nan := func(p uint64) float64 { return math.Float64frombits(0x7ff8000000000000 | p) }
	const m, k = 67, 43 // m past keptMinLen, with a tail of three
	rng := rand.New(rand.NewPCG(23, 24))
	ys := make([][]float64, k)
	for j := range ys {
		ys[j], _ = randVec(rng, m, 0)
		for q := range 1 + rng.IntN(3) {
			ys[j][rng.IntN(m)] = nan(uint64(100*j + 10 + q))
		}
	}
	forLevels(t, func(t *testing.T) {
		if Current() < AVX2 {
			t.Skip("the portable sums' operand order is the compiler's")
		}
		for _, at := range [][]int{nil, {6}, {1, 21}, {0, 5, 10, 15}, {3, 66}} {
			x, _ := randVec(rand.New(rand.NewPCG(25, 26)), m, 0)
			for q, i := range at {
				x[i] = nan(uint64(1 + q))
			}
			xs := [][]float64{x, x, x}
			for _, kept := range []int{1, k} { // every entry non-zero, one a row (the kept entries alone)
				pattern := make([]float64, 3*k)
				for i := range pattern {
					if i%kept == 0 {
						pattern[i] = 1
					}
				}
				got := make([]float64, 3*k)
				DotMNStride(got, k, xs, ys, pattern, k)
				for j, y := range ys {
					want := Dot(x, y)
					for a := range xs {
						if pattern[a*k+j] == 0 {
							want = 0
						}
						if math.Float64bits(got[a*k+j]) != math.Float64bits(want) {
							t.Errorf("x NaN at %v, 1 in %d kept, row %d column %d: %#x, Dot %#x", at, kept, a, j, math.Float64bits(got[a*k+j]), math.Float64bits(want))
						}
					}
				}
			}
		}
	})
}

func TestDotMNStridePanics(t *testing.T) {
	x := make([]float64, 4)
	ys := [][]float64{x, x, x, x}
	for name, f := range map[string]func(){
		"ragged xs":     func() { DotMNStride(make([]float64, 8), 4, [][]float64{x, x[:3]}, ys, nil, 0) },
		"ragged ys":     func() { DotMNStride(make([]float64, 8), 4, [][]float64{x, x}, [][]float64{x, x[:2]}, nil, 0) },
		"narrow dst":    func() { DotMNStride(make([]float64, 8), 3, [][]float64{x, x}, ys, nil, 0) },
		"short dst":     func() { DotMNStride(make([]float64, 7), 4, [][]float64{x, x}, ys, nil, 0) },
		"short pattern": func() { DotMNStride(make([]float64, 8), 4, [][]float64{x, x}, ys, make([]float64, 7), 4) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func BenchmarkDotMNStride(b *testing.B) {
	for _, s := range []struct{ n, m, k int }{{250, 256, 256}, {1375, 20, 256}} {
		for _, l := range levels() {
			b.Run(fmt.Sprintf("level=%v/n=%d,m=%d,k=%d", l, s.n, s.m, s.k), func(b *testing.B) {
				prev := Use(l)
				defer Use(prev)
				rng := rand.New(rand.NewPCG(1, 2))
				xs := make([][]float64, s.n)
				for a := range xs {
					xs[a], _ = randVec(rng, s.m, 0)
				}
				ys := make([][]float64, s.k)
				for j := range ys {
					ys[j], _ = randVec(rng, s.m, 0)
				}
				dst := make([]float64, s.n*s.k)
				for b.Loop() {
					DotMNStride(dst, s.k, xs, ys, nil, 0)
				}
				b.ReportMetric(float64(s.n*s.m*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmadd/s")
			})
		}
	}
}

// TestDotMNStride32 checks DotMNStride32 against Dot32's order written
// out (dot32Go) to the bit, a NaN matching any NaN as for the other
// float32 kernels, at every level, for lengths that are and are not
// multiples of 16, numbers of ys around a strip's 16, odd and many rows,
// a stride wider than a row, with and without a pattern.
func TestDotMNStride32(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(27, 28))
		for _, m := range []int{0, 1, 2, 15, 16, 17, 20, 31, 32, 64, 255, 256, 257} {
			for _, k := range []int{1, 7, 15, 16, 17, 31, 33, 64, 100, 256} {
				for _, nx := range []int{1, 2, 3, 67} {
					if m*k*nx > 1<<21 {
						continue
					}
					ys := make([][]float32, k)
					for j := range ys {
						ys[j], _ = randVec32(rng, m, j%3, j == 5)
					}
					xs := make([][]float32, nx)
					for a := range xs {
						xs[a], _ = randVec32(rng, m, a%3, a == 1)
					}
					stride := k + 3
					n := (nx-1)*stride + k
					// No pattern, one mostly non-zero (computed whole) and one
					// a tenth non-zero (the kept entries alone).
					for _, withPattern := range []int{0, 1, 2} {
						var pattern []float32
						if withPattern > 0 {
							pattern, _ = randVec32(rng, nx*k, 0, true)
						}
						if withPattern == 2 {
							for i := range pattern {
								if rng.IntN(10) > 0 {
									pattern[i] = float32(math.Copysign(0, float64(rng.IntN(2)*2-1)))
								}
							}
						}
						dst, backing := randVec32(rng, n, 1, false)
						for i := range dst {
							dst[i] = float32(math.NaN())
						}
						DotMNStride32(dst, stride, xs, ys, pattern, k)
						checkGuards32(t, backing, 1, n)
						for a, x := range xs {
							got, want := dst[a*stride:a*stride+k], make([]float32, k)
							for j, y := range ys {
								if pattern == nil || pattern[a*k+j] != 0 {
									want[j] = dot32Go(x, y)
								}
							}
							sameBits32(t, fmt.Sprintf("m=%d k=%d rows=%d pattern %d row %d", m, k, nx, withPattern, a), got, want)
							for j := k; j < stride && a+1 < nx; j++ {
								if v := dst[a*stride+j]; v == v {
									t.Fatalf("m=%d k=%d rows=%d: the gap after row %d was written", m, k, nx, a)
								}
							}
						}
					}
				}
			}
		}
	})
}

// BenchmarkDotMNStride32 times the float32 products without a pattern
// and with patterns of a fifth, 0.3 and half non-zero entries, the
// kept=1 cases at every level, the others at the best.
func BenchmarkDotMNStride32(b *testing.B) {
	for _, s := range []struct{ n, m, k int }{{250, 256, 256}, {1375, 256, 256}} {
		for _, l := range levels() {
			for _, kept := range []float64{1, 0.5, 0.3, 0.2} {
				if kept < 1 && l != Best() {
					continue
				}
				b.Run(fmt.Sprintf("level=%v/n=%d,m=%d,k=%d,kept=%v", l, s.n, s.m, s.k, kept), func(b *testing.B) {
					prev := Use(l)
					defer Use(prev)
					rng := rand.New(rand.NewPCG(1, 2))
					xs := make([][]float32, s.n)
					for a := range xs {
						xs[a], _ = randVec32(rng, s.m, 0, false)
					}
					ys := make([][]float32, s.k)
					for j := range ys {
						ys[j], _ = randVec32(rng, s.m, 0, false)
					}
					var pattern []float32
					if kept < 1 {
						pattern = make([]float32, s.n*s.k)
						for i := range pattern {
							if rng.Float64() < kept {
								pattern[i] = 1
							}
						}
					}
					dst := make([]float32, s.n*s.k)
					for b.Loop() {
						DotMNStride32(dst, s.k, xs, ys, pattern, s.k)
					}
					b.ReportMetric(float64(s.n*s.m*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmadd/s")
				})
			}
		}
	}
}

// TestSeqDotMNStride checks SeqDotMNStride against RowSums on the rows of
// ys transposed (the terms xs[a][t], row t), which sums in the same
// sequence from +0 with the same operand order: bit for bit, NaN payloads
// included, with and without a pattern, zeros of both signs, infinities
// and NaNs.
func TestSeqDotMNStride(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(41, 42))
		for _, m := range []int{0, 1, 2, 5, 12, 14, 15, 20} {
			for _, k := range []int{1, 7, 15, 16, 17, 33, 256} {
				for _, nx := range []int{1, 2, 3, 67} {
					ys := make([][]float64, k)
					yt := make([]float64, m*k) // ys transposed, m x k
					for j := range ys {
						ys[j], _ = randVec(rng, m, offsets[j%len(offsets)])
						if j%5 == 1 && m > 0 {
							ys[j][rng.IntN(m)] = math.Inf(1)
						}
						if j%3 == 2 && m > 0 { // a NaN of its own payload
							ys[j][rng.IntN(m)] = math.Float64frombits(0x7ff8000000000000 | uint64(100+j))
						}
						for q, v := range ys[j] {
							yt[q*k+j] = v
						}
					}
					xs := make([][]float64, nx)
					for a := range xs {
						xs[a], _ = randVec(rng, m, offsets[a%len(offsets)])
						if a%3 == 2 && m > 0 {
							xs[a][rng.IntN(m)] = math.NaN()
						}
					}
					for _, withPattern := range []bool{false, true} {
						var pattern []float64
						if withPattern {
							pattern, _ = randVec(rng, nx*k, 0)
						}
						stride := k + 3
						dst := make([]float64, (nx-1)*stride+k)
						for i := range dst {
							dst[i] = math.NaN()
						}
						if !SeqDotMNStride(dst, stride, xs, ys, pattern, k) {
							if Current() >= AVX512 {
								t.Fatalf("SeqDotMNStride refused at %v", Current())
							}
							continue
						}
						want := make([]float64, nx*k)
						var terms []Term
						n := make([]int, nx)
						for a, x := range xs {
							for q, v := range x {
								terms = append(terms, Term{Off: q * k, A: v})
							}
							n[a] = m
						}
						RowSums(want, k, k, yt, terms, n, true)
						for a := range xs {
							for j := range k {
								w := want[a*k+j]
								if pattern != nil && pattern[a*k+j] == 0 {
									w = 0
								}
								if got := dst[a*stride+j]; math.Float64bits(got) != math.Float64bits(w) {
									t.Fatalf("m=%d k=%d rows=%d pattern %v (%d, %d): %#x, RowSums %#x", m, k, nx, withPattern, a, j, math.Float64bits(got), math.Float64bits(w))
								}
							}
						}
					}
				}
			}
		}
	})
}
