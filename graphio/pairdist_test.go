package graphio

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/fedaux/fedaux/internal/vec"
)

// TestDenseGramIsGemm: denseGram gives every Gram block the bits of
// gonum's Gemm (NoTrans, Trans, alpha 1, beta 0), which NonIID used
// before, on blocks split into gemmBlock pieces and on blocks too small
// for that (one at the bound), with widths below, at and across the
// piece size, in a buffer used before, at every level of vec.
func TestDenseGramIsGemm(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("vec.Dot keeps the order of gonum's DotUnitary on amd64 only")
	}
	defer vec.Use(vec.Use(vec.Best()))
	rng := rand.New(rand.NewPCG(3, 4))
	for lvl := vec.Portable; lvl <= vec.Best(); lvl++ {
		vec.Use(lvl)
		for _, sh := range []struct{ m, f, b int }{{5, 3, 5}, {70, 63, 64}, {130, 64, 64}, {200, 130, 70}, {300, 767, 128}, {129, 200, 512}, {40, 1, 40}, {128, 100, 128}} {
			z := make([]float64, sh.m*sh.f)
			for i := range z {
				z[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10))
				if rng.IntN(4) == 0 {
					z[i] = 0
				}
			}
			gram := denseGram(z, sh.m, sh.f, 2)
			for i0 := 0; i0 < sh.m-1; i0 += sh.b {
				b := min(sh.b, sh.m-i0)
				w := sh.m - i0
				got := make([]float64, b*w)
				for e := range got {
					got[e] = math.NaN() // a buffer used before
				}
				if rs, cs := gram(i0, b, got); rs != w || cs != 1 {
					t.Fatalf("strides %d, %d; want %d, 1", rs, cs, w)
				}
				want := make([]float64, b*w)
				blas64.Gemm(blas.NoTrans, blas.Trans, 1,
					blas64.General{Rows: b, Cols: sh.f, Stride: sh.f, Data: z[i0*sh.f:]},
					blas64.General{Rows: w, Cols: sh.f, Stride: sh.f, Data: z[i0*sh.f:]},
					0, blas64.General{Rows: b, Cols: w, Stride: w, Data: want})
				for e := range want {
					if math.Float64bits(got[e]) != math.Float64bits(want[e]) {
						t.Fatalf("%v m=%d f=%d i0=%d b=%d: entry (%d, %d) is %v, Gemm %v", lvl, sh.m, sh.f, i0, b, e/w, e%w, got[e], want[e])
					}
				}
			}
		}
	}
}
