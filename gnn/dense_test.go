package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// forLevels runs f at every kernel level of internal/vec this machine
// can run, portable first.
func forLevels(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for l := vec.Portable; l <= vec.Best(); l++ {
		t.Run(l.String(), func(t *testing.T) {
			prev := vec.Use(l)
			defer vec.Use(prev)
			f(t)
		})
	}
}

// The reference products are the plain loops the kernels replaced: one
// axpy after another, and floats.Dot (gonum's DotUnitary on amd64) from
// shortLoop on. Products are converted so that no compiler fuses them.

func refAxpy(dst []float64, a float64, x []float64) {
	for i := range dst {
		dst[i] += float64(a * x[i])
	}
}

func refDot(a, b []float64) float64 {
	if len(a) >= shortLoop {
		if runtime.GOARCH == "amd64" {
			return floats.Dot(a, b)
		}
		return vec.Dot(a, b) // gonum sums in sequence elsewhere
	}
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}

func refMulSkip(dst, x, w *mat.Dense, zero bool) {
	n, k := x.Dims()
	for i := range n {
		row := dst.RawRowView(i)
		if zero {
			clear(row)
		}
		for j := range k {
			if v := x.At(i, j); v != 0 {
				refAxpy(row, v, w.RawRowView(j))
			}
		}
	}
}

func refMulTransAddSkip(dst, x, p *mat.Dense) {
	n, k := x.Dims()
	for i := range n {
		for j := range k {
			if v := x.At(i, j); v != 0 {
				refAxpy(dst.RawRowView(j), v, p.RawRowView(i))
			}
		}
	}
}

func refMulTransB(dst, p, w, pattern *mat.Dense) {
	n, k := dst.Dims()
	for i := range n {
		for j := range k {
			if pattern != nil && pattern.At(i, j) == 0 {
				dst.Set(i, j, 0)
				continue
			}
			dst.Set(i, j, refDot(p.RawRowView(i), w.RawRowView(j)))
		}
	}
}

// sameDense fails t unless got and want are equal bit for bit.
func sameDense(t *testing.T, what string, got, want *mat.Dense) {
	t.Helper()
	r, c := want.Dims()
	for i := range r {
		for j := range c {
			if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("%s: entry (%d, %d) is %v, want %v", what, i, j, g, w)
			}
		}
	}
}

// subDense returns an r x c view starting at row and column 1 of a larger
// random matrix, so that rows start unaligned and the stride exceeds c.
func subDense(rng *rand.Rand, r, c int, density float64) *mat.Dense {
	return randDense(rng, r+2, c+3, density).Slice(1, r+1, 1, c+1).(*mat.Dense)
}

// TestDenseProducts checks the row-loop products against the plain
// loops, bit for bit, at every kernel level, on odd shapes, strided
// views and row lengths on both sides of shortLoop and of every block
// size of the kernels (including more non-zeros a row than one batch).
func TestDenseProducts(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		for _, s := range []struct{ n, k, m int }{
			{1, 1, 1}, {3, 5, 7}, {17, 9, 15}, {5, 16, 16}, {33, 70, 17}, {19, 130, 33}, {40, 67, 70}, {2, 3, 257},
		} {
			for _, density := range []float64{0, 0.3, 1} {
				name := fmt.Sprintf("n=%d k=%d m=%d density=%v", s.n, s.k, s.m, density)
				x, w := subDense(rng, s.n, s.k, density), subDense(rng, s.k, s.m, 1)
				for _, zero := range []bool{true, false} {
					got, want := subDense(rng, s.n, s.m, 1), mat.NewDense(s.n, s.m, nil)
					want.Copy(got)
					mulSkipRows(got, x, w, zero)
					refMulSkip(want, x, w, zero)
					sameDense(t, fmt.Sprintf("mulSkipRows zero=%v %s", zero, name), got, want)
				}

				for _, width := range []int{1, 3, 5} {
					wc := subDense(rng, width*s.k, s.m, 1)
					got, want := subDense(rng, s.n, s.m, 1), mat.NewDense(s.n, s.m, nil)
					want.Copy(got)
					convAddSkip(got, x, wc, width)
					for t := range width { // the per-tap loop convAddSkip replaced
						off := t - (width-1)/2
						lo, hi := max(0, -off), min(s.n, s.n-off)
						if lo < hi {
							refMulSkip(rowRange(want, lo, hi), rowRange(x, lo+off, hi+off), rowRange(wc, t*s.k, (t+1)*s.k), false)
						}
					}
					sameDense(t, fmt.Sprintf("convAddSkip width=%d %s", width, name), got, want)
				}

				p := subDense(rng, s.n, s.m, 1)
				got, want := subDense(rng, s.k, s.m, 1), mat.NewDense(s.k, s.m, nil)
				want.Copy(got)
				mulTransAddSkip(got, x, p)
				refMulTransAddSkip(want, x, p)
				sameDense(t, "mulTransAddSkip "+name, got, want)

				for _, pattern := range []*mat.Dense{nil, x} {
					got, want := subDense(rng, s.n, s.k, 1), mat.NewDense(s.n, s.k, nil)
					mulTransB(got, p, w, pattern)
					refMulTransB(want, p, w, pattern)
					sameDense(t, fmt.Sprintf("mulTransB pattern=%v %s", pattern != nil, name), got, want)
				}

				for _, pattern := range []*mat.Dense{nil, x} {
					got, want := subDense(rng, s.n, s.k, 1), mat.NewDense(s.n, s.k, nil)
					want.Copy(got)
					mulTransBAdd(got, p, w, pattern)
					for i := range s.n {
						for j := range s.k {
							v := 0.0 // where the pattern is zero, +0 is added
							if pattern == nil || pattern.At(i, j) != 0 {
								v = refDot(p.RawRowView(i), w.RawRowView(j))
							}
							want.Set(i, j, want.At(i, j)+v)
						}
					}
					sameDense(t, fmt.Sprintf("mulTransBAdd pattern=%v %s", pattern != nil, name), got, want)
				}

				csr := CSRFromDense(x)
				got, want = subDense(rng, s.n, s.m, 1), mat.NewDense(s.n, s.m, nil)
				csr.mulDense(got, w)
				refMulSkip(want, x, w, true)
				sameDense(t, "CSR.mulDense "+name, got, want)
			}
		}
	})
}

// TestModelLevels trains a Cora-sized client for a few epochs at every
// kernel level and checks that the parameters agree bit for bit.
func TestModelLevels(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a Cora-sized model at every kernel level")
	}
	for name, cfg := range map[string]Config{
		"fedaux":      {Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5},
		"fedaux_hard": {Masked: true, Kernel: true, Hard: true, Score: Cosine, Sigma: 1, Dropout: 0.5},
		"gcn":         {Dropout: 0.5},
	} {
		var first []*Param
		t.Run(name, func(t *testing.T) {
			forLevels(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(61, 62))
				c := coraClient(rng)
				cfg.InFeatures, cfg.Hidden, cfg.Classes = 1433, 64, 7
				m, err := NewModel(cfg, rng)
				if err != nil {
					t.Fatal(err)
				}
				opt := NewAdam(m.Params(), 0.01, 1e-6)
				dlogits := mat.NewDense(250, 7, nil)
				for range 3 {
					logits, err := m.Forward(c.in, true, rng)
					if err != nil {
						t.Fatal(err)
					}
					SoftmaxCrossEntropy(logits, c.labels, c.train, dlogits)
					m.ZeroGrad()
					m.Backward(dlogits)
					opt.Step()
				}
				if first == nil {
					first = m.Params()
					return
				}
				for i, p := range m.Params() {
					for j, v := range p.Value {
						if math.Float64bits(v) != math.Float64bits(first[i].Value[j]) {
							t.Fatalf("%s[%d] = %v, portable kernels give %v", p.Name, j, v, first[i].Value[j])
						}
					}
				}
			})
		})
	}
}
