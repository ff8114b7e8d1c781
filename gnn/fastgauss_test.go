package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fgtScores draws n scores from the named distribution.
func fgtScores(kind string, n int, rng *rand.Rand) []float64 {
	s := make([]float64, n)
	for i := range s {
		switch kind {
		case "uniform1":
			s[i] = 2*rng.Float64() - 1
		case "uniform30":
			s[i] = 60*rng.Float64() - 30
		case "clustered":
			centres := [...]float64{-0.7, 0.05, 0.3, 0.92}
			s[i] = centres[rng.IntN(len(centres))] + 1e-3*rng.NormFloat64()
		case "equal":
			s[i] = 0.4375
		case "repeated":
			s[i] = float64(rng.IntN(5))/4 - 0.5
		case "outlier":
			s[i] = 2*rng.Float64() - 1
			if i == n/2 {
				s[i] = 25
			}
		default:
			panic(kind)
		}
	}
	return s
}

var fgtKinds = []string{"uniform1", "uniform30", "clustered", "equal", "repeated", "outlier"}

// fgtRandom returns an n x m matrix with entries uniform in [-1, 1].
func fgtRandom(n, m int, rng *rand.Rand) *mat.Dense {
	w := mat.NewDense(n, m, nil)
	for i := range n {
		for c := range m {
			w.Set(i, c, 2*rng.Float64()-1)
		}
	}
	return w
}

func TestFastAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst, worstRel := 0.0, 0.0
	for _, kind := range fgtKinds {
		for _, n := range []int{1, 2, 7, 250, 2000} {
			s := fgtScores(kind, n, rng)
			ws := []*mat.Dense{fgtRandom(n, 1, rng), fgtRandom(n, 5, rng)}
			for _, sigma := range []float64{0.01, 0.1, 1, 10, 100} {
				// The plans do not depend on w: one of each for both.
				dp, err := Dense{}.Plan(s, sigma)
				if err != nil {
					t.Fatalf("%s/N=%d/sigma=%g: dense: %v", kind, n, sigma, err)
				}
				fp, err := Fast{}.Plan(s, sigma)
				if err != nil {
					t.Fatalf("%s/N=%d/sigma=%g: fast: %v", kind, n, sigma, err)
				}
				for _, w := range ws {
					_, m := w.Dims()
					name := fmt.Sprintf("%s/N=%d/m=%d/sigma=%g", kind, n, m, sigma)
					var want, got mat.Dense
					dp.Apply(&want, w)
					fp.Apply(&got, w)
					sumAbs := columnAbsSums(w)
					for i := range n {
						for c := range m {
							e := math.Abs(got.At(i, c) - want.At(i, c))
							worst = max(worst, e)
							worstRel = max(worstRel, e/sumAbs[c])
							if !(e <= 1e-9) {
								t.Fatalf("%s: entry (%d,%d) = %v, dense %v, error %g", name, i, c, got.At(i, c), want.At(i, c), e)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("max abs error %.3g, max error / sum|w| %.3g", worst, worstRel)
}

// columnAbsSums returns sum_j |w_jc| for each column c of w.
func columnAbsSums(w *mat.Dense) []float64 {
	n, m := w.Dims()
	sums := make([]float64, m)
	for c := range m {
		for j := range n {
			sums[c] += math.Abs(w.At(j, c))
		}
	}
	return sums
}

// TestFastBound checks the documented bound Tol * sum_j |w_j| (with a
// margin for rounding) against a compensated direct sum, at tolerances
// where truncation dominates rounding. The direct sum of each draw is
// computed once and checked at every tolerance.
func TestFastBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, kind := range fgtKinds {
		for _, sigma := range []float64{0.01, 0.1, 1} {
			n, m := 1500, 2
			s := fgtScores(kind, n, rng)
			w := fgtRandom(n, m, rng)
			direct := mat.NewDense(n, m, nil)
			for i := range n {
				for c := range m {
					var sum, comp float64
					for j := range n {
						d := s[i] - s[j]
						v := math.Exp(-d*d/(sigma*sigma)) * w.At(j, c)
						y := v - comp
						tt := sum + y
						comp = (tt - sum) - y
						sum = tt
					}
					direct.Set(i, c, sum)
				}
			}
			sumAbs := columnAbsSums(w)
			for _, tol := range []float64{1e-4, 1e-8, 1e-12} {
				fp, err := Fast{Tol: tol}.Plan(s, sigma)
				if err != nil {
					t.Fatal(err)
				}
				var got mat.Dense
				fp.Apply(&got, w)
				for i := range n {
					for c := range m {
						if e := math.Abs(got.At(i, c) - direct.At(i, c)); e > tol*sumAbs[c]+1e-13 {
							t.Fatalf("tol %g %s sigma %g: entry (%d,%d) error %g over bound %g", tol, kind, sigma, i, c, e, tol*sumAbs[c])
						}
					}
				}
			}
		}
	}
}

func TestFastWorkersIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	kinds := fgtKinds
	if testing.Short() { // the race pass: spread, clustered and an outlier
		kinds = []string{"uniform1", "clustered", "outlier"}
	}
	for _, kind := range kinds {
		for _, sigma := range []float64{0.01, 0.1, 1} {
			for _, m := range []int{3, 300} {
				n := 3000
				s := fgtScores(kind, n, rng)
				w := fgtRandom(n, m, rng)
				p1, err := Fast{Workers: 1}.Plan(s, sigma)
				if err != nil {
					t.Fatal(err)
				}
				p4, err := Fast{Workers: 4}.Plan(s, sigma)
				if err != nil {
					t.Fatal(err)
				}
				var a, b mat.Dense
				p1.Apply(&a, w)
				p4.Apply(&b, w)
				for i := range n {
					for c := range m {
						if x, y := a.At(i, c), b.At(i, c); math.Float64bits(x) != math.Float64bits(y) {
							t.Fatalf("%s sigma %g m %d: entry (%d,%d): %v with 1 worker, %v with 4", kind, sigma, m, i, c, x, y)
						}
					}
				}
			}
		}
	}
}

func TestFastAliasAndShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := fgtScores("uniform1", 500, rng)
	w := fgtRandom(500, 4, rng)
	fp, err := Fast{Workers: 2}.Plan(s, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	fp.Apply(&want, w)
	inPlace := mat.DenseCopyOf(w)
	fp.Apply(inPlace, inPlace)
	if !mat.Equal(inPlace, &want) {
		t.Error("in-place Apply differs")
	}
	sized := mat.NewDense(500, 4, nil)
	fp.Apply(sized, w)
	if !mat.Equal(sized, &want) {
		t.Error("Apply into a sized dst differs")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("no panic on a wrong-sized dst")
			}
		}()
		fp.Apply(mat.NewDense(499, 4, nil), w)
	}()
	if _, err := (Fast{}).Plan(nil, 1); err != nil {
		t.Errorf("empty scores: %v", err)
	}
	if (Fast{}).Name() != "fast" {
		t.Error("name")
	}
}

func TestFastPlanErrors(t *testing.T) {
	for _, c := range []struct {
		s     []float64
		sigma float64
		tol   float64
	}{
		{[]float64{0, 1}, 0, 0},
		{[]float64{0, 1}, -1, 0},
		{[]float64{0, 1}, math.NaN(), 0},
		{[]float64{0, 1}, math.Inf(1), 0},
		{[]float64{0, math.NaN()}, 1, 0},
		{[]float64{math.Inf(-1), 1}, 1, 0},
		{[]float64{0, 1}, 1, -1},
		{[]float64{0, 1}, 1, 1},
	} {
		if _, err := (Fast{Tol: c.tol}).Plan(c.s, c.sigma); err == nil {
			t.Errorf("Plan(%v, %v) with Tol %v: no error", c.s, c.sigma, c.tol)
		}
	}
}

// TestFastOrder checks the order Plan takes against the bound.
func TestFastOrder(t *testing.T) {
	for _, r := range []float64{1.0 / 128, 0.25, 0.5, 1, 1.25} {
		p := fgtOrder(r, DefaultFastTol)
		if p == 0 || fgtBound(p, r) > DefaultFastTol || (p > 1 && fgtBound(p-1, r) <= DefaultFastTol) {
			t.Errorf("r = %v: order %d, bound %g", r, p, fgtBound(p, r))
		}
		t.Logf("r = %v: p = %d", r, p)
	}
}

// TestFastExtreme checks extreme scores and bandwidths against a direct
// sum computed the same way.
func TestFastExtreme(t *testing.T) {
	s := []float64{0, 0, 1e-300, -1e-300, 1, 1 + 1e-15, 1e300, -1e300, math.MaxFloat64, 3, 3, 3.5}
	rng := rand.New(rand.NewPCG(9, 10))
	w := fgtRandom(len(s), 2, rng)
	for _, sigma := range []float64{5e-324, 1e-200, 1e-10, 0.5, 1, 1e10, 1e300, math.MaxFloat64} {
		if sigma == math.MaxFloat64 {
			// Differences of these scores overflow; only check that the
			// plan works and the output is finite.
			fp, err := Fast{}.Plan(s, sigma)
			if err != nil {
				t.Fatal(err)
			}
			var got mat.Dense
			fp.Apply(&got, w)
			for i := range s {
				if v := got.At(i, 0); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("sigma %g: entry %d = %v", sigma, i, v)
				}
			}
			continue
		}
		fp, err := Fast{}.Plan(s, sigma)
		if err != nil {
			t.Fatalf("sigma %g: %v", sigma, err)
		}
		var got mat.Dense
		fp.Apply(&got, w)
		for i := range s {
			for c := range 2 {
				want := 0.0
				for j := range s {
					z := (s[i] - s[j]) / sigma
					want += math.Exp(-z*z) * w.At(j, c)
				}
				if e := math.Abs(got.At(i, c) - want); !(e <= 1e-12) {
					t.Errorf("sigma %g: entry (%d,%d) = %v, want %v", sigma, i, c, got.At(i, c), want)
				}
			}
		}
	}
}

// TestFGTTables checks the kept grid tables: one grid's are made once and
// shared, another bandwidth gets its own, the cache stays bounded, and the
// translation matrices are exp(-(d w/h + node_a - node_b)^2).
func TestFGTTables(t *testing.T) {
	a := fgtTablesFor(0.75, 1.5, 6, 3)
	if b := fgtTablesFor(0.75, 1.5, 6, 3); b != a {
		t.Fatal("the same grid made its tables twice")
	}
	if c := fgtTablesFor(0.75, 1.25, 6, 3); c == a {
		t.Fatal("another sigma shares the tables")
	}
	m := a.translations()
	if len(m) != 7*6*6 {
		t.Fatalf("%d translation entries, want %d", len(m), 7*6*6)
	}
	for d := -3; d <= 3; d++ {
		for i := range 6 {
			for j := range 6 {
				z := float64(d)*0.75/1.5 + a.nodes[i] - a.nodes[j]
				if got, want := m[((d+3)*6+i)*6+j], math.Exp(-z*z); got != want {
					t.Fatalf("translation %d (%d, %d) = %v, want %v", d, i, j, got, want)
				}
			}
		}
	}
	for k := range 3 * fgtCacheMax {
		fgtTablesFor(0.5, 1+float64(k), 4, 2)
	}
	fgtCache.Lock()
	n := len(fgtCache.m)
	fgtCache.Unlock()
	if n > fgtCacheMax {
		t.Fatalf("the cache holds %d grids, want at most %d", n, fgtCacheMax)
	}
}

// TestFgtCandidates checks the cached candidate widths against
// fgtWidths and fgtOrder, for bandwidths on both sides of a power of two
// and two tolerances, each asked twice, and past the cache's size.
func TestFgtCandidates(t *testing.T) {
	for i := 0; i < 70; i++ {
		h := 0.3 + 0.05*float64(i)
		for _, tol := range []float64{DefaultFastTol, 1e-3} {
			var want []fgtCandidate
			for _, w := range fgtWidths(h) {
				if p := fgtOrder(w/h/2, tol); p > 0 {
					want = append(want, fgtCandidate{w, p})
				}
			}
			if len(want) == 0 {
				t.Fatalf("h %v tol %v: no candidate", h, tol)
			}
			for k := 0; k < 2; k++ {
				if got := fgtCandidates(h, tol); !slices.Equal(got, want) {
					t.Fatalf("h %v tol %v, call %d: %v, want %v", h, tol, k, got, want)
				}
			}
		}
	}
}
