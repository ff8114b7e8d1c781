package vec

import (
	"fmt"
	"math"
)

// Level names a version of the kernels.
type Level int

// The versions of the kernels, slowest first.
const (
	Portable Level = iota // pure Go, every architecture
	AVX2                  // amd64 assembly on 256-bit registers
	AVX512                // amd64 assembly on 512-bit registers (AVX-512 F)
)

// String returns the level's name: portable, avx2 or avx512.
func (l Level) String() string {
	switch l {
	case Portable:
		return "portable"
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

var (
	best  = detect()
	level = best
)

// Best returns the fastest level this CPU and build support.
func Best() Level { return best }

// Current returns the level the kernels use.
func Current() Level { return level }

// Use makes the kernels run at level l, or at Best if l is above it, and
// returns the previous level. It is meant for tests and benchmarks, and
// must not be called while a kernel runs.
func Use(l Level) Level {
	prev := level
	level = max(Portable, min(l, best))
	return prev
}

// AddScaled adds a*x to dst: dst[i] += a*x[i]. It panics if the lengths
// differ.
func AddScaled(dst []float64, a float64, x []float64) {
	if len(x) != len(dst) {
		panic(fmt.Sprintf("vec: AddScaled: lengths %d and %d", len(dst), len(x)))
	}
	as := [1]float64{a}
	xs := [1][]float64{x}
	addScaledN(dst, as[:], xs[:], false)
}

// AddScaledN adds a[t]*xs[t] to dst for t = 0, 1, ... in this order, as
// AddScaled called for each t in turn, with the same rounding:
//
//	dst[i] = ((dst[i] + a[0]*xs[0][i]) + a[1]*xs[1][i]) + ...
//
// but dst is read and written once. It panics unless len(a) == len(xs)
// and every xs[t] has the length of dst.
func AddScaledN(dst, a []float64, xs [][]float64) {
	checkN("AddScaledN", dst, a, xs)
	if len(xs) > 0 {
		addScaledN(dst, a, xs, false)
	}
}

// ScaledSum sets dst to the sum of a[t]*xs[t] summed as AddScaledN does
// from +0, which is clear(dst) followed by AddScaledN(dst, a, xs) without
// the pass that clears. It panics as AddScaledN does.
func ScaledSum(dst, a []float64, xs [][]float64) {
	checkN("ScaledSum", dst, a, xs)
	if len(xs) == 0 {
		clear(dst)
		return
	}
	addScaledN(dst, a, xs, true)
}

func checkN(name string, dst, a []float64, xs [][]float64) {
	if len(a) != len(xs) {
		panic(fmt.Sprintf("vec: %s: %d coefficients for %d vectors", name, len(a), len(xs)))
	}
	for t, x := range xs {
		if len(x) != len(dst) {
			panic(fmt.Sprintf("vec: %s: vector %d has length %d, want %d", name, t, len(x), len(dst)))
		}
	}
}

// Dot returns the inner product of x and y summed in the order of gonum's
// amd64 DotUnitary (and so of floats.Dot on amd64): element i goes to the
// partial sum i mod 4 while four elements remain, the last one to three go
// to partial sum 0, and the result is (s0 + s2) + (s1 + s3). It panics if
// the lengths differ.
func Dot(x, y []float64) float64 {
	if len(x) != len(y) {
		panic(fmt.Sprintf("vec: Dot: lengths %d and %d", len(x), len(y)))
	}
	return dot(x, y)
}

// DotN sets dst[t] = Dot(x, ys[t]) for every t, computing several at a
// time. It panics unless len(dst) == len(ys) and every ys[t] has the
// length of x.
func DotN(dst, x []float64, ys [][]float64) {
	if len(dst) != len(ys) {
		panic(fmt.Sprintf("vec: DotN: %d results for %d vectors", len(dst), len(ys)))
	}
	for t, y := range ys {
		if len(y) != len(x) {
			panic(fmt.Sprintf("vec: DotN: vector %d has length %d, want %d", t, len(y), len(x)))
		}
	}
	dotN(dst, x, ys)
}

// DotMN sets dst[a*len(ys)+t] = Dot(xs[a], ys[t]) for every a and t: the
// product of the matrices whose rows are xs and ys, the second one
// transposed. It reads every ys[t] once for several xs, which makes it
// faster than DotN called for each xs[a] when ys do not fit in cache. It
// panics unless len(dst) == len(xs)*len(ys) and all vectors have the same
// length.
func DotMN(dst []float64, xs, ys [][]float64) {
	if len(dst) != len(xs)*len(ys) {
		panic(fmt.Sprintf("vec: DotMN: %d results for %d x %d vectors", len(dst), len(xs), len(ys)))
	}
	if len(xs) == 0 || len(ys) == 0 {
		return
	}
	n := len(xs[0])
	for a, x := range xs {
		if len(x) != n {
			panic(fmt.Sprintf("vec: DotMN: x %d has length %d, want %d", a, len(x), n))
		}
	}
	for t, y := range ys {
		if len(y) != n {
			panic(fmt.Sprintf("vec: DotMN: y %d has length %d, want %d", t, len(y), n))
		}
	}
	dotMN(dst, xs, ys)
}

// AdamStep holds the scalars of one Adam step (see Adam).
type AdamStep struct {
	Beta1, Beta2 float64
	WeightDecay  float64
	StepSize     float64 // LR / (1 - Beta1^t)
	InvBC2       float64 // 1 / sqrt(1 - Beta2^t)
	Eps          float64
}

// Adam applies one step of Adam with coupled weight decay to theta, given
// the gradient grad and the moments m and v, which it updates. For every
// i, with the rounding of these Go expressions:
//
//	g     := grad[i] + s.WeightDecay*theta[i]
//	m[i]   = s.Beta1*m[i] + (1-s.Beta1)*g
//	v[i]   = s.Beta2*v[i] + (1-s.Beta2)*g*g
//	theta[i] = theta[i] - s.StepSize*m[i]/(math.Sqrt(v[i])*s.InvBC2+s.Eps)
//
// It panics unless the four slices have the same length.
func Adam(theta, grad, m, v []float64, s AdamStep) {
	n := len(theta)
	if len(grad) != n || len(m) != n || len(v) != n {
		panic(fmt.Sprintf("vec: Adam: lengths %d, %d, %d, %d", n, len(grad), len(m), len(v)))
	}
	adam(theta, grad, m, v, s.Beta1, 1-s.Beta1, s.Beta2, 1-s.Beta2, s.WeightDecay, s.StepSize, s.InvBC2, s.Eps)
}

// Mul sets dst[i] = x[i]*y[i]. It panics if the lengths differ.
func Mul(dst, x, y []float64) {
	check3("Mul", dst, x, y)
	mul(dst, x, y, false)
}

// ReLU sets dst[i] = max(x[i], 0) with Go's max: a NaN stays NaN and -0
// becomes +0. It panics if the lengths differ.
func ReLU(dst, x []float64) {
	if len(x) != len(dst) {
		panic(fmt.Sprintf("vec: ReLU: lengths %d and %d", len(dst), len(x)))
	}
	relu(dst, x)
}

// ReLUBack sets dst[i] to g[i] where y[i] > 0 and to +0 elsewhere (where
// y[i] is a NaN too): ReLU's backward, y its output. It panics if the
// lengths differ.
func ReLUBack(dst, g, y []float64) {
	check3("ReLUBack", dst, g, y)
	reluBack(dst, g, y)
}

// AddMul adds x[i]*y[i] to dst[i], rounding the product and then the sum
// (no fused multiply-add). It panics if the lengths differ.
func AddMul(dst, x, y []float64) {
	check3("AddMul", dst, x, y)
	mul(dst, x, y, true)
}

// MulPruned sets dst[i] = x[i]*m[i], with m[i] read as +0 where
// math.Abs(m[i]) < thr (a NaN in m is kept). It panics if the lengths
// differ.
func MulPruned(dst, x, m []float64, thr float64) {
	check3("MulPruned", dst, x, m)
	mulPruned(dst, x, m, thr)
}

// AllFinite reports whether no element of x is NaN or infinite.
func AllFinite(x []float64) bool { return finite(x) }

// FirstNonFinite returns the index of the first NaN or infinity of x,
// or -1 if every element is finite (AllFinite, then the scan that finds
// the element).
func FirstNonFinite(x []float64) int {
	if finite(x) {
		return -1
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return i
		}
	}
	return -1
}

// HasZero reports whether an element of x is +0 or -0 (NaN is not zero).
func HasZero(x []float64) bool { return hasZero(x) }

func hasZeroGo(x []float64) bool {
	for _, v := range x {
		if v == 0 {
			return true
		}
	}
	return false
}

func check3(name string, dst, x, y []float64) {
	if len(x) != len(dst) || len(y) != len(dst) {
		panic(fmt.Sprintf("vec: %s: lengths %d, %d, %d", name, len(dst), len(x), len(y)))
	}
}
