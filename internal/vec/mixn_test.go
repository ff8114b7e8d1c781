package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMixInPlace checks MixInPlace against ScaledSum of the vectors as
// they were, row by row, bit for bit, at every level: numbers of vectors
// from one to twenty, lengths on both sides of the AVX-512 kernel's block
// of 64 and with every tail, signed zeros in the vectors and in the
// coefficients, and from AVX2 on (the portable sums' operand order is the
// compiler's) NaNs of different payloads in the vectors and coefficients.
// The scratch memory's guards must not be written past k*n.
func TestMixInPlace(t *testing.T) {
	nan := func(p uint64) float64 { return math.Float64frombits(0x7ff8000000000000 | p) }
	forLevels(t, func(t *testing.T) {
		for _, k := range []int{1, 2, 3, 7, 10, 20} {
			for _, n := range []int{0, 1, 7, 31, 32, 33, 63, 64, 65, 96, 128, 200, 4096 + 13} {
				for _, nans := range []bool{false, true} {
					if nans && Current() < AVX2 {
						continue
					}
					t.Run(fmt.Sprintf("k=%d/n=%d/nan=%v", k, n, nans), func(t *testing.T) {
						rng := rand.New(rand.NewPCG(uint64(k), uint64(n)))
						xs := make([][]float64, k)
						backs := make([][]float64, k)
						w := make([][]float64, k)
						for i := range xs {
							xs[i], backs[i] = randVec(rng, n, 1)
							w[i], _ = randVec(rng, k, 0)
							w[i] = append(w[i], math.NaN()) // rows may be longer than k
						}
						if n > 0 {
							w[0][k-1] = math.Copysign(0, -1)
							if nans {
								// Element n-1: a NaN in the first vector and
								// another in the last, so that a NaN sum meets
								// a NaN product.
								xs[k-1][n-1] = nan(7)
								xs[0][n-1] = nan(6)
								xs[0][n/2] = nan(8)
								w[k/2][0] = nan(9)
							}
						}
						old := make([][]float64, k)
						for i, x := range xs {
							old[i] = slices.Clone(x)
						}
						want := make([][]float64, k)
						for i := range want {
							want[i] = make([]float64, n)
							ScaledSum(want[i], w[i][:k], old)
						}
						tmp := make([]float64, k*n+guard)
						for i := range tmp {
							tmp[i] = math.NaN()
						}
						MixInPlace(xs, w, tmp[:k*n])
						for i := range xs {
							sameBits(t, fmt.Sprintf("row %d", i), xs[i], want[i])
							checkGuards(t, backs[i], 1, n)
						}
						for _, v := range tmp[k*n:] {
							if !math.IsNaN(v) {
								t.Fatal("scratch written past k*n")
							}
						}
					})
				}
			}
		}
	})
}

func TestMixInPlacePanics(t *testing.T) {
	xs := [][]float64{make([]float64, 4), make([]float64, 4)}
	w := [][]float64{{1, 0}, {0, 1}}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"lengths", func() { MixInPlace([][]float64{xs[0], make([]float64, 3)}, w, make([]float64, 8)) }},
		{"rows", func() { MixInPlace(xs, w[:1], make([]float64, 8)) }},
		{"row length", func() { MixInPlace(xs, [][]float64{{1}, {0, 1}}, make([]float64, 8)) }},
		{"scratch", func() { MixInPlace(xs, w, make([]float64, 7)) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			c.f()
		}()
	}
	MixInPlace(nil, nil, nil) // no vectors: nothing to do
}
