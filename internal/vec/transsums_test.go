package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestTransSums checks TransSums against its definition (transSumsGo)
// and against RowSums on the terms of the columns of x, bit for bit (NaN
// payloads too against RowSums, whose kernel also adds acc+product), with
// zeros of both signs, infinities and NaNs in x, p and the starting dt,
// on widths around its eight lanes and groups of four, and row counts
// across its blocks of 128.
func TestTransSums(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(31, 32))
		special := func(v []float64) {
			for i := range v {
				switch rng.IntN(40) {
				case 0:
					v[i] = math.Inf(1)
				case 1:
					v[i] = math.NaN()
				case 2:
					v[i] = math.Copysign(0, -1)
				}
			}
		}
		for _, k := range []int{1, 7, 8, 9, 16, 20, 256} {
			for _, m := range []int{1, 3, 4, 5, 7, 14, 20} {
				for _, n := range []int{0, 1, 5, 130, 300} {
					if n*k*m > 1<<20 {
						continue
					}
					xStride, pStride := k+2, m+1
					x, _ := randVec(rng, max(0, (n-1)*xStride+k), 0)
					p, _ := randVec(rng, max(0, (n-1)*pStride+m), 0)
					dt, backing := randVec(rng, m*k, 1)
					for i := range x {
						if rng.IntN(2) == 0 {
							x[i] = 0 // about half zero, as after ReLU
						}
					}
					if n%2 == 1 {
						special(x)
						special(p)
						special(dt)
					}
					want := append([]float64(nil), dt...)
					transSumsGo(want, k, x, xStride, p, pStride, n, m)
					got := append([]float64(nil), dt...)
					copy(dt, got)
					if !TransSums(dt, k, x, xStride, p, pStride, n, m) {
						if Current() >= AVX512 {
							t.Fatalf("TransSums refused at %v", Current())
						}
						sameBits(t, "refused", dt, got)
						continue
					}
					checkGuards(t, backing, 1, m*k)
					for i := range want { // a NaN matches any NaN: Go's operand order is the compiler's
						if a, b := math.Float64bits(dt[i]), math.Float64bits(want[i]); a != b && !(math.IsNaN(dt[i]) && math.IsNaN(want[i])) {
							t.Fatalf("k=%d m=%d n=%d element %d: %v, want %v", k, m, n, i, dt[i], want[i])
						}
					}

					// RowSums of row j of the k x m product, terms x_ij p_i.
					rs := make([]float64, k*m)
					for j := range k {
						for c := range m {
							rs[j*m+c] = got[c*k+j]
						}
					}
					var terms []Term
					cnt := make([]int, k)
					for j := range k {
						for i := range n {
							if v := x[i*xStride+j]; v != 0 {
								terms = append(terms, Term{Off: i * pStride, A: v})
								cnt[j]++
							}
						}
					}
					if n > 0 {
						RowSums(rs, m, m, p, terms, cnt, false)
					}
					for j := range k {
						for c := range m {
							// Both in assembly, with the same operand order:
							// the same bits, NaN payloads included.
							if a, b := math.Float64bits(rs[j*m+c]), math.Float64bits(dt[c*k+j]); a != b {
								t.Fatalf("k=%d m=%d n=%d (%d, %d): TransSums %v, RowSums %v", k, m, n, j, c, dt[c*k+j], rs[j*m+c])
							}
						}
					}
				}
			}
		}
	})
}

func BenchmarkTransSums(b *testing.B) {
	for _, s := range []struct{ n, k, m int }{{1375, 256, 20}, {250, 256, 14}} {
		b.Run(fmt.Sprintf("n=%d,k=%d,m=%d", s.n, s.k, s.m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x, _ := randVec(rng, s.n*s.k, 0)
			for i := range x {
				if rng.IntN(2) == 0 {
					x[i] = 0
				}
			}
			p, _ := randVec(rng, s.n*s.m, 0)
			dt := make([]float64, s.k*s.m)
			for b.Loop() {
				TransSums(dt, s.k, x, s.k, p, s.m, s.n, s.m)
			}
		})
	}
}

// transSumsGo is TransSums in Go, its definition.
func transSumsGo(dt []float64, k int, x []float64, xStride int, p []float64, pStride, n, m int) {
	for i := range n {
		for j, v := range x[i*xStride : i*xStride+k] {
			if v == 0 {
				continue
			}
			for c, pc := range p[i*pStride : i*pStride+m] {
				dt[c*k+j] += float64(v * pc)
			}
		}
	}
}
