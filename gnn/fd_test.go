package gnn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/fdcheck"
	"gonum.org/v1/gonum/mat"
)

// Gradient checks compare an analytic gradient g with central differences
// f' (step fdStep, see numGrad) tensor by tensor, using the relative error of the
// whole tensor
//
//	err = ||g - f'||_2 / (||g||_2 + ||f'||_2)      (0 when both vanish),
//
// which must not exceed fdTol. A per-tensor norm (each weight, mask, bias,
// input or score vector on its own) is scale-free yet does not let one
// large tensor hide an error in a small one, and, unlike a per-coordinate
// ratio, it is not dominated by coordinates whose true gradient is ~0,
// where central differences only resolve ~1e-10 absolutely.
const (
	fdStep = 1e-4
	fdTol  = 1e-6
)

// numGrad returns the gradient of f with respect to x by the
// fourth-order central difference
//
//	f'(x) ~ (f(x-2h) - 8 f(x-h) + 8 f(x+h) - f(x+2h)) / (12 h),
//
// perturbing x in place (and restoring it). Its truncation error is
// O(h^4), so a step of 1e-4 keeps both truncation and rounding near
// 1e-12 and the check resolves gradients down to ~1e-6.
func numGrad(f func() float64, x []float64) []float64 { return fdcheck.Grad(f, x, fdStep) }

// relErr is the relative error defined above.
func relErr(a, b []float64) float64 { return fdcheck.RelErr(a, b) }

// checkGrad fails t when the analytic gradient of the tensor named name
// differs from the numerical one.
func checkGrad(t *testing.T, name string, analytic, numeric []float64) {
	t.Helper()
	if len(analytic) != len(numeric) {
		t.Fatalf("%s: %d analytic vs %d numeric entries", name, len(analytic), len(numeric))
	}
	e := relErr(analytic, numeric)
	t.Logf("%s: relative error %.2g", name, e)
	if e > fdTol || math.IsNaN(e) {
		t.Errorf("%s: relative error %.3g > %g\nanalytic %.6g\nnumeric  %.6g", name, e, fdTol, analytic, numeric)
	}
	var norm float64
	for _, v := range numeric {
		norm += v * v
	}
	if norm == 0 {
		t.Errorf("%s: gradient is identically zero; the check proves nothing", name)
	}
}

// rawData returns the row-major data of m (which must be contiguous).
func rawData(m *mat.Dense) []float64 {
	raw := m.RawMatrix()
	if raw.Stride != raw.Cols {
		panic("rawData: not contiguous")
	}
	return raw.Data[:raw.Rows*raw.Cols]
}

// randDense returns an r x c matrix with entries N(0,1), each kept with
// probability density (the others zero).
func randDense(rng *rand.Rand, r, c int, density float64) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.Float64() < density {
				m.Set(i, j, rng.NormFloat64())
			}
		}
	}
	return m
}

// randGraph returns a symmetric 0/1 adjacency without self loops, edge
// probability p, plus a ring so that no node is isolated.
func randGraph(rng *rand.Rand, n int, p float64) *CSR {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		a.Set(i, (i+1)%n, 1)
		a.Set((i+1)%n, i, 1)
		for j := 0; j < i; j++ {
			if rng.Float64() < p {
				a.Set(i, j, 1)
				a.Set(j, i, 1)
			}
		}
	}
	if n > 0 {
		a.Set(0, 0, 0)
	}
	return CSRFromDense(a)
}

// randSparse returns an r x c sparse feature matrix with about nnz
// positive entries per row.
func randSparse(rng *rand.Rand, r, c, nnz int) *CSR {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for k := 0; k < nnz; k++ {
			m.Set(i, rng.IntN(c), rng.Float64()+0.1)
		}
	}
	return CSRFromDense(m)
}

// weightedSum returns sum(r . m), a scalar test loss with dL/dm = r.
func weightedSum(r, m *mat.Dense) float64 {
	var s float64
	rr, c := r.Dims()
	for i := 0; i < rr; i++ {
		for j := 0; j < c; j++ {
			s += r.At(i, j) * m.At(i, j)
		}
	}
	return s
}

// copyData returns a copy of m's entries, row-major.
func copyData(m *mat.Dense) []float64 {
	r, c := m.Dims()
	out := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		out = append(out, m.RawRowView(i)...)
	}
	return out
}

// maxAbsDiff returns the largest entry-wise difference of a and b.
func maxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	var d float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d = max(d, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return d
}
