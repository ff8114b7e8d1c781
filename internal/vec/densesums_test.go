package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDenseSumsEqualsRowSums compares DenseSums with RowSums given every
// term of every row, bit for bit, at every level: on random shapes (rows
// not a multiple of four, columns past every tail of the strips, no
// terms, a source with rows 2 KiB apart, more rows and terms than a
// tile), coefficients by rows and by columns of a matrix, adding to dst
// or from +0, with zeros, negative zeros, infinities and NaNs among the
// coefficients and the source.
func TestDenseSumsEqualsRowSums(t *testing.T) {
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e300}
	forLevels(t, func(t *testing.T) {
		l := Current()
		rng := rand.New(rand.NewPCG(31, uint64(l)))
		for it := range 300 {
			rows, cols, terms := 1+rng.IntN(13), 1+rng.IntN(75), rng.IntN(40)
			padded := false // rows of src 2 KiB apart: denseSums2's copy
			switch it % 10 {
			case 0:
				rows, cols, terms = 4*(1+rng.IntN(8)), 256, 100+rng.IntN(200)
			case 5:
				rows, cols, terms, padded = 16+rng.IntN(19), 256-rng.IntN(2)*rng.IntN(8), 1+rng.IntN(200), true
			case 7: // more rows and terms than a tile of denseSums2
				rows, cols, terms = 129+rng.IntN(80), 8+rng.IntN(20), 129+rng.IntN(150)
			}
			special := rng.IntN(3) == 0
			zero := rng.IntN(2) == 0
			byCols := rng.IntN(2) == 0 // a's rows are the columns of a matrix (mulTransAddSkip)
			draw := func() float64 {
				if special && rng.IntN(30) == 0 {
					return specials[rng.IntN(len(specials))]
				}
				return rng.NormFloat64()
			}
			srcStride := cols + rng.IntN(3)
			if padded {
				srcStride = 256
			}
			src := make([]float64, max(0, (terms-1)*srcStride+cols)+rng.IntN(3))
			for i := range src {
				src[i] = draw()
			}
			var rs, ts int
			if byCols {
				ts = rows + rng.IntN(3)
				rs = 1
			} else {
				rs = terms + rng.IntN(3)
				ts = 1
			}
			a := make([]float64, rows*rs+terms*ts+1)
			for i := range a {
				a[i] = draw()
			}
			stride := cols + rng.IntN(4)
			got := make([]float64, (rows-1)*stride+cols+2)
			for i := range got {
				got[i] = draw()
			}
			want := append([]float64(nil), got...)
			DenseSums(got, stride, cols, src, srcStride, a, rs, ts, rows, terms, zero)
			var ts_ []Term
			n := make([]int, rows)
			for r := range rows {
				for q := range terms {
					ts_ = append(ts_, Term{Off: q * srcStride, A: a[r*rs+q*ts]})
				}
				n[r] = terms
			}
			RowSums(want, stride, cols, src, ts_, n, zero)
			name := fmt.Sprintf("%v case %d (%d rows, %d cols, %d terms, zero %v, byCols %v)", l, it, rows, cols, terms, zero, byCols)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s: element %d is %v (%#x), want %v (%#x)", name, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
		}
	})
}

// BenchmarkDenseSums times DenseSums against RowSums with the same terms
// on a block of FedSage+'s generated rows (dense features of Computer)
// times a 767 x 256 weight.
func BenchmarkDenseSums(b *testing.B) {
	const rows, k, cols = 128, 767, 256
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, rows*k)
	w := make([]float64, k*cols)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	dst := make([]float64, rows*cols)
	b.Run("DenseSums", func(b *testing.B) {
		for b.Loop() {
			DenseSums(dst, cols, cols, w, cols, x, k, 1, rows, k, true)
		}
	})
	b.Run("RowSums", func(b *testing.B) {
		terms := make([]Term, rows*k)
		n := make([]int, rows)
		for b.Loop() {
			for r := range rows {
				for j := range k {
					terms[r*k+j] = Term{Off: j * cols, A: x[r*k+j]}
				}
				n[r] = k
			}
			RowSums(dst, cols, cols, w, terms, n, true)
		}
	})
}
