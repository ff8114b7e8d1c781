package vec

import (
	"fmt"
	"math"
)

// The float32 kernels: the same operations as the float64 ones, on
// float32 slices, for the client model's float32 path. Each documents
// its rounding as Go expressions on float32 values (every product and
// sum rounded to float32, never fused); every level gives the same bits.

// A Term32 is one scaled source row of RowSums32: the row that starts
// at src[Off], times A. Its offset has 32 bits (at most MaxOff32), so
// that a term is 8 bytes, half a Term: the float32 layers keep their
// sparse inputs' terms for a whole run and the kernels read them again
// for every strip of columns.
type Term32 struct {
	Off int32
	A   float32
}

// MaxOff32 is the largest offset a Term32 holds.
const MaxOff32 = math.MaxInt32

// CheckOff32 panics unless offsets up to last fit a Term32's Off: the
// check a maker of terms does once for its largest offset.
func CheckOff32(last int) {
	if last > MaxOff32 {
		panic(fmt.Sprintf("vec: Term32 offset %d beyond %d", last, MaxOff32))
	}
}

// RowSums32 is RowSums on float32: for every row and column c of dst,
//
//	row[c] = +0 if zero is set, row[c] if not
//	for each term t of the row, in order:
//	    row[c] = row[c] + t.A*src[t.Off+c]
//
// with each product and each sum rounded to float32. It panics as
// RowSums does.
func RowSums32(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool) {
	rows := len(n)
	if rows == 0 || cols <= 0 {
		if cols < 0 {
			panic(fmt.Sprintf("vec: RowSums32: %d columns", cols))
		}
		return
	}
	if rows > 1 && stride < cols {
		panic(fmt.Sprintf("vec: RowSums32: stride %d below %d columns", stride, cols))
	}
	if need := (rows-1)*stride + cols; len(dst) < need {
		panic(fmt.Sprintf("vec: RowSums32: dst has %d elements, %d rows need %d", len(dst), rows, need))
	}
	total := 0
	for r, k := range n {
		if k < 0 {
			panic(fmt.Sprintf("vec: RowSums32: row %d has %d terms", r, k))
		}
		total += k
	}
	if total > len(terms) {
		panic(fmt.Sprintf("vec: RowSums32: rows have %d terms, %d given", total, len(terms)))
	}
	last := len(src) - cols
	if total > 0 && (last < 0 || !terms32InRange(terms[:total], last)) {
		for i, t := range terms[:total] {
			if t.Off < 0 || int(t.Off) > last {
				panic(fmt.Sprintf("vec: RowSums32: term %d reads src[%d:%d] of %d", i, t.Off, int(t.Off)+cols, len(src)))
			}
		}
	}
	rowSums32(dst, stride, cols, src, terms[:total], n, zero)
}

// AddScaled32 adds a*x to dst: dst[i] += a*x[i], the product rounded,
// then the sum. It panics if the lengths differ.
func AddScaled32(dst []float32, a float32, x []float32) {
	if len(x) != len(dst) {
		panic(fmt.Sprintf("vec: AddScaled32: lengths %d and %d", len(dst), len(x)))
	}
	terms := [1]Term32{{A: a}}
	n := [1]int{1}
	if len(dst) > 0 {
		rowSums32(dst, len(dst), len(dst), x, terms[:], n[:], false)
	}
}

// Dot32 returns the inner product of x and y summed in 16 partial sums,
// the order of one AVX-512 register: element i goes to partial sum
// i mod 16 (every element, the last ones too), and the partial sums are
// then added in halves, s[k] += s[k+8] for k < 8, then s[k] += s[k+4]
// for k < 4, then s[k] += s[k+2], and the result is s[0] + s[1]. It
// panics if the lengths differ.
func Dot32(x, y []float32) float32 {
	if len(x) != len(y) {
		panic(fmt.Sprintf("vec: Dot32: lengths %d and %d", len(x), len(y)))
	}
	return dot32(x, y)
}

// DotN32 sets dst[t] = Dot32(x, ys[t]) for every t. It panics unless
// len(dst) == len(ys) and every ys[t] has the length of x.
func DotN32(dst, x []float32, ys [][]float32) {
	if len(dst) != len(ys) {
		panic(fmt.Sprintf("vec: DotN32: %d results for %d vectors", len(dst), len(ys)))
	}
	for t, y := range ys {
		if len(y) != len(x) {
			panic(fmt.Sprintf("vec: DotN32: vector %d has length %d, want %d", t, len(y), len(x)))
		}
	}
	dotN32(dst, x, ys)
}

// AdamStep32 holds the scalars of one float32 Adam step (see Adam32).
type AdamStep32 struct {
	Beta1, Beta2 float32
	WeightDecay  float32
	StepSize     float32 // LR / (1 - Beta1^t)
	InvBC2       float32 // 1 / sqrt(1 - Beta2^t)
	Eps          float32
}

// Adam32 is Adam on float32: for every i, with every operation rounded
// to float32 (the square root correctly rounded):
//
//	g     := grad[i] + s.WeightDecay*theta[i]
//	m[i]   = s.Beta1*m[i] + (1-s.Beta1)*g
//	v[i]   = s.Beta2*v[i] + (1-s.Beta2)*g*g
//	theta[i] = theta[i] - s.StepSize*m[i]/(sqrt(v[i])*s.InvBC2+s.Eps)
//
// It panics unless the four slices have the same length.
func Adam32(theta, grad, m, v []float32, s AdamStep32) {
	n := len(theta)
	if len(grad) != n || len(m) != n || len(v) != n {
		panic(fmt.Sprintf("vec: Adam32: lengths %d, %d, %d, %d", n, len(grad), len(m), len(v)))
	}
	p := adamParams32{s.Beta1, 1 - s.Beta1, s.Beta2, 1 - s.Beta2, s.WeightDecay, s.StepSize, s.InvBC2, s.Eps}
	adam32(theta, grad, m, v, &p)
}

// adamParams32 holds Adam32's scalars in the order the kernels read
// them: b1, 1-b1, b2, 1-b2, wd, step, invBC2, eps.
type adamParams32 [8]float32

// Mul32 sets dst[i] = x[i]*y[i]. It panics if the lengths differ.
func Mul32(dst, x, y []float32) {
	check32("Mul32", dst, x, y)
	mul32(dst, x, y, false)
}

// AddMul32 adds x[i]*y[i] to dst[i], rounding the product and then the
// sum (no fused multiply-add). It panics if the lengths differ.
func AddMul32(dst, x, y []float32) {
	check32("AddMul32", dst, x, y)
	mul32(dst, x, y, true)
}

// MulPruned32 sets dst[i] = x[i]*m[i], with m[i] read as +0 where
// |m[i]| < thr (a NaN in m is kept). It panics if the lengths differ.
func MulPruned32(dst, x, m []float32, thr float32) {
	check32("MulPruned32", dst, x, m)
	mulPruned32(dst, x, m, thr)
}

func check32(name string, dst, x, y []float32) {
	if len(x) != len(dst) || len(y) != len(dst) {
		panic(fmt.Sprintf("vec: %s: lengths %d, %d, %d", name, len(dst), len(x), len(y)))
	}
}

// BiasReLU32 sets x[i] = max(x[i]+b[i], 0) with Go's max: a NaN stays
// NaN and -0 becomes +0. It panics if the lengths differ.
func BiasReLU32(x, b []float32) {
	if len(b) != len(x) {
		panic(fmt.Sprintf("vec: BiasReLU32: lengths %d and %d", len(x), len(b)))
	}
	biasReLU32(x, b)
}

// ReLUBack32 sets dst[i] = g[i]*s[i] where y[i] > 0 and +0 elsewhere (a
// NaN y counts as not positive), or g[i] for g[i]*s[i] when s is nil: the
// gradient through dropout (scales s) and a ReLU whose output was y. It
// panics if the lengths differ.
func ReLUBack32(dst, g, y, s []float32) {
	if len(g) != len(dst) || len(y) != len(dst) || (s != nil && len(s) != len(dst)) {
		panic(fmt.Sprintf("vec: ReLUBack32: lengths %d, %d, %d, %d", len(dst), len(g), len(y), len(s)))
	}
	reluBack32(dst, g, y, s)
}

// NonzeroTerms32 is NonzeroTerms for float32 entries and Term32s. It
// panics, as CheckOff32, if the last entry's offset does not fit.
func NonzeroTerms32(dst []Term32, x []float32, stride int) int {
	if len(dst) < len(x) {
		panic(fmt.Sprintf("vec: NonzeroTerms32: %d terms of room for %d entries", len(dst), len(x)))
	}
	if len(x) > 0 {
		CheckOff32((len(x) - 1) * stride)
	}
	return nonzeroTerms32(dst, x, stride)
}

// nonzeroTerms32Go is NonzeroTerms32 without a branch on the data, x
// being entries first, first+1, ... of the whole.
func nonzeroTerms32Go(dst []Term32, x []float32, stride, first int) int {
	dst = dst[:len(x)]
	k := 0
	for j, v := range x {
		dst[k] = Term32{Off: int32((first + j) * stride), A: v}
		k += nonzero01(float64(v))
	}
	return k
}
