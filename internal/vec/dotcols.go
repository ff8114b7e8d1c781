package vec

import "fmt"

// DotMNStride sets dst[a*stride+j] = Dot(xs[a], ys[j]) for every a and
// j: DotMN with a row stride, and to the bit the same entries. If pattern
// is not nil, an entry whose pattern[a*patStride+j] is zero (either sign)
// is set to +0 instead, as after a product whose only wanted entries are
// those (a NaN in pattern keeps its entry).
//
// At the AVX2 and AVX-512 levels it packs ys, transposed, in strips of 8
// or 16 columns and computes one dot product a lane, in Dot's order and
// with its operand order (NaN payloads included): the short dot products
// of few long ys and the many of a square product cost little more than
// their multiply-adds. It panics unless all vectors have the same length,
// stride >= len(ys) and dst (and pattern, at patStride >= len(ys)) hold
// len(xs) rows.
func DotMNStride(dst []float64, stride int, xs, ys [][]float64, pattern []float64, patStride int) {
	checkMNStride("DotMNStride", dst, stride, xs, ys, pattern, patStride)
	if len(xs) == 0 || len(ys) == 0 {
		return
	}
	if len(xs[0]) == 0 {
		for a := range xs {
			clear(dst[a*stride : a*stride+len(ys)])
		}
		return
	}
	dotMNStride(dst, stride, xs, ys, pattern, patStride, false)
}

// SeqDotMNStride is DotMNStride with every entry summed in sequence from
// +0, the order of a plain loop,
//
//	dst[a*stride+j] = (((+0 + xs[a][0]*ys[j][0]) + xs[a][1]*ys[j][1]) + ...)
//
// (each product, then each sum rounded), or +0 where the pattern is zero,
// packing ys in strips as DotMNStride does. It returns false, leaving dst
// as it was, at a level without its kernel (below AVX-512).
func SeqDotMNStride(dst []float64, stride int, xs, ys [][]float64, pattern []float64, patStride int) bool {
	checkMNStride("SeqDotMNStride", dst, stride, xs, ys, pattern, patStride)
	if level < AVX512 {
		return false
	}
	if len(xs) == 0 || len(ys) == 0 {
		return true
	}
	if len(xs[0]) == 0 {
		for a := range xs {
			clear(dst[a*stride : a*stride+len(ys)])
		}
		return true
	}
	dotMNStride(dst, stride, xs, ys, pattern, patStride, true)
	return true
}

// checkMNStride panics unless the arguments of DotMNStride (named name)
// have matching shapes.
func checkMNStride[T float32 | float64](name string, dst []T, stride int, xs, ys [][]T, pattern []T, patStride int) {
	k := len(ys)
	if len(xs) == 0 || k == 0 {
		return
	}
	m := len(xs[0])
	for a, x := range xs {
		if len(x) != m {
			panic(fmt.Sprintf("vec: %s: x %d has length %d, want %d", name, a, len(x), m))
		}
	}
	for j, y := range ys {
		if len(y) != m {
			panic(fmt.Sprintf("vec: %s: y %d has length %d, want %d", name, j, len(y), m))
		}
	}
	last := (len(xs)-1)*stride + k
	if stride < k || len(dst) < last {
		panic(fmt.Sprintf("vec: %s: dst of %d with stride %d for %d x %d results", name, len(dst), stride, len(xs), k))
	}
	if pattern != nil && (patStride < k || len(pattern) < (len(xs)-1)*patStride+k) {
		panic(fmt.Sprintf("vec: %s: pattern of %d with stride %d for %d x %d results", name, len(pattern), patStride, len(xs), k))
	}
}

// dotMNStrideGo is DotMNStride (DotMNStride32) for the columns j0 <= j
// < j1, each entry dot's (dot32's).
func dotMNStrideGo[T float32 | float64](dst []T, stride int, xs, ys [][]T, pattern []T, patStride, j0, j1 int, dot func(x, y []T) T) {
	for a, x := range xs {
		row := dst[a*stride : a*stride+j1]
		for j := j0; j < j1; j++ {
			if pattern != nil && pattern[a*patStride+j] == 0 {
				row[j] = 0
				continue
			}
			row[j] = dot(x, ys[j])
		}
	}
}

// DotMNStride32 is DotMNStride in float32: dst[a*stride+j] =
// Dot32(xs[a], ys[j]) to the bit, or +0 where pattern[a*patStride+j] is
// zero. At the AVX-512 level it computes sixteen columns at a time, one
// to a lane, each with Dot32's sixteen partial sums and their order; at
// AVX2 it computes the entries the pattern keeps, four at a time
// (DotN32).
func DotMNStride32(dst []float32, stride int, xs, ys [][]float32, pattern []float32, patStride int) {
	checkMNStride("DotMNStride32", dst, stride, xs, ys, pattern, patStride)
	if len(xs) == 0 || len(ys) == 0 {
		return
	}
	dotMNStride32(dst, stride, xs, ys, pattern, patStride)
}
