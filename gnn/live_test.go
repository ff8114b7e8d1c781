package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMulTransAddLiveBits compares mulTransAddLive with mulTransAddSkip
// bit for bit at every kernel level: p with rows of +0, of -0 and of
// both, from none of its rows to all of them (below and past the quarter
// that it needs to leave rows out), x dense and sparse, and the cases in
// which leaving the rows out would change a sum and it must not: an
// infinity or a NaN of x in a row of p's zeros (x_ij times 0 is NaN) and
// a -0 in dst (-0 + +0 is +0), with p all zeros.
func TestMulTransAddLiveBits(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		cases := 60
		if testing.Short() { // the race pass: the small shapes
			cases = 30
		}
		for it := range cases {
			n, k, m := 1+rng.IntN(300), 1+rng.IntN(40), 1+rng.IntN(70)
			if it%10 == 0 && !testing.Short() {
				n, k, m = 257+rng.IntN(100), 767, 256 // past a block of transBlock rows, a 2 KiB source
			}
			x := randDense(rng, n, k, []float64{1, 0.3}[it%2])
			p := randDense(rng, n, m, 1)
			dead := []float64{0, 0.1, 0.5, 0.9, 1}[it%5]
			for i := range n {
				if rng.Float64() < dead {
					row := p.RawRowView(i)
					for j := range row {
						row[j] = [][]float64{{0}, {math.Copysign(0, -1)}, {0, math.Copysign(0, -1)}}[it%3][j%(1+it%3/2)]
					}
				}
			}
			dst := randDense(rng, k, m, 0.5)
			switch it % 6 {
			case 1: // a non-finite x in a row of p's zeros, where there is one
				for i := range n {
					if allZero(p.RawRowView(i)) {
						x.Set(i, rng.IntN(k), []float64{math.Inf(1), math.NaN()}[rng.IntN(2)])
						break
					}
				}
			case 3: // -0 in dst, p all zeros
				p.Zero()
				for j := range k {
					dst.Set(j, rng.IntN(m), math.Copysign(0, -1))
				}
			}
			want := mat.DenseCopyOf(dst)
			mulTransAddSkip(want, x, p)
			var l liveRows
			for rep := range 2 { // the buffers reused
				got := mat.DenseCopyOf(dst)
				mulTransAddLive(got, x, p, &l)
				name := fmt.Sprintf("case %d (%dx%d x, %d columns, dead %v), call %d", it, n, k, m, dead, rep)
				for j := range k {
					for c := range m {
						if g, w := got.At(j, c), want.At(j, c); math.Float64bits(g) != math.Float64bits(w) {
							t.Fatalf("%s: (%d, %d) is %v, want %v", name, j, c, g, w)
						}
					}
				}
			}
		}
	})
}
