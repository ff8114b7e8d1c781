package vec

import (
	"fmt"
	"math"
)

// The mixed kernels: float64 storage, float32 arithmetic. The float32
// layers of gnn keep their parameters and gradients in float64 and use
// these to read and update them in one pass. Each is specified by the Go
// expressions it documents; every level gives the same bits. On amd64
// whole blocks of 8 elements (AVX-512) or of 4 (AVX2) run in assembly
// and the rest in Go.

// To32 sets dst[i] = float32(x[i]). It panics if the lengths differ.
func To32(dst []float32, x []float64) {
	if len(x) != len(dst) {
		panic(fmt.Sprintf("vec: To32: lengths %d and %d", len(dst), len(x)))
	}
	n := mixedBlocks(len(dst))
	if n > 0 {
		to32Asm(dst[:n], x)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = float32(x[i])
	}
}

// MulTo32 sets dst[i] = float32(x[i]*y[i]): the float64 product rounded
// to float32. It panics if the lengths differ.
func MulTo32(dst []float32, x, y []float64) {
	if len(x) != len(dst) || len(y) != len(dst) {
		panic(fmt.Sprintf("vec: MulTo32: lengths %d, %d, %d", len(dst), len(x), len(y)))
	}
	n := mixedBlocks(len(dst))
	if n > 0 {
		mulTo32Asm(dst[:n], x, y)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = float32(x[i] * y[i])
	}
}

// MulPrunedTo32 sets dst[i] = float32(x[i]*m[i]), with m[i] read as +0
// where math.Abs(m[i]) < thr (a NaN in m is kept), as MulPruned does in
// float64. It panics if the lengths differ.
func MulPrunedTo32(dst []float32, x, m []float64, thr float64) {
	if len(x) != len(dst) || len(m) != len(dst) {
		panic(fmt.Sprintf("vec: MulPrunedTo32: lengths %d, %d, %d", len(dst), len(x), len(m)))
	}
	n := mixedBlocks(len(dst))
	if n > 0 {
		mulPrunedTo32Asm(dst[:n], x, m, thr)
	}
	for i := n; i < len(dst); i++ {
		mi := m[i]
		if math.Abs(mi) < thr {
			mi = 0
		}
		dst[i] = float32(x[i] * mi)
	}
}

// MaskGradFrom32 adds the gradients of a masked weight w . m whose
// gradient d is float32: for every i, with each product and sum rounded
// in float64,
//
//	gw[i] += float64(d[i]) * m[i]
//	gm[i] += float64(d[i]) * w[i]
//
// It panics unless the five slices have the same length.
func MaskGradFrom32(gw, gm []float64, d []float32, w, m []float64) {
	k := len(d)
	if len(gw) != k || len(gm) != k || len(w) != k || len(m) != k {
		panic(fmt.Sprintf("vec: MaskGradFrom32: lengths %d, %d, %d, %d, %d", len(gw), len(gm), k, len(w), len(m)))
	}
	n := mixedBlocks(k)
	if n > 0 {
		maskGradFrom32Asm(gw[:n], gm, d, w, m)
	}
	for i := n; i < k; i++ {
		di := float64(d[i])
		gw[i] += float64(di * m[i])
		gm[i] += float64(di * w[i])
	}
}

// AddFrom32 adds x to dst: dst[i] += float64(x[i]). It panics if the
// lengths differ.
func AddFrom32(dst []float64, x []float32) {
	if len(x) != len(dst) {
		panic(fmt.Sprintf("vec: AddFrom32: lengths %d and %d", len(dst), len(x)))
	}
	n := mixedBlocks(len(dst))
	if n > 0 {
		addFrom32Asm(dst[:n], x)
	}
	for i := n; i < len(dst); i++ {
		dst[i] += float64(x[i])
	}
}

// From32 sets dst[i] = float64(x[i]), which is exact. It panics if the
// lengths differ.
func From32(dst []float64, x []float32) {
	if len(x) != len(dst) {
		panic(fmt.Sprintf("vec: From32: lengths %d and %d", len(dst), len(x)))
	}
	n := mixedBlocks(len(dst))
	if n > 0 {
		from32Asm(dst[:n], x)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = float64(x[i])
	}
}

// AdamF32 is Adam32 on parameters and gradients stored in float64: for
// every i, with every operation in float32 as Adam32 documents,
//
//	x := float32(theta[i])
//	g := float32(grad[i]) + s.WeightDecay*x
//	m[i], v[i] updated from g as Adam32 does
//	theta[i] = float64(x - s.StepSize*m[i]/(sqrt(v[i])*s.InvBC2+s.Eps))
//
// so theta holds float32 values after a step. It panics unless the four
// slices have the same length.
func AdamF32(theta, grad []float64, m, v []float32, s AdamStep32) {
	k := len(theta)
	if len(grad) != k || len(m) != k || len(v) != k {
		panic(fmt.Sprintf("vec: AdamF32: lengths %d, %d, %d, %d", k, len(grad), len(m), len(v)))
	}
	p := adamParams32{s.Beta1, 1 - s.Beta1, s.Beta2, 1 - s.Beta2, s.WeightDecay, s.StepSize, s.InvBC2, s.Eps}
	n := mixedBlocks(k)
	if n > 0 {
		adamF32Asm(theta[:n], grad, m, v, &p)
	}
	adamF32Go(theta[n:], grad[n:], m[n:], v[n:], &p)
}

func adamF32Go(theta, grad []float64, m, v []float32, p *adamParams32) {
	b1, c1, b2, c2, wd, step, invBC2, eps := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]
	grad, m, v = grad[:len(theta)], m[:len(theta)], v[:len(theta)]
	for i, t := range theta {
		x := float32(t)
		g := float32(grad[i]) + float32(wd*x)
		mi := float32(b1*m[i]) + float32(c1*g)
		vi := float32(b2*v[i]) + float32(float32(c2*g)*g)
		m[i], v[i] = mi, vi
		sq := float32(math.Sqrt(float64(vi)))
		theta[i] = float64(x - float32(step*mi)/(float32(sq*invBC2)+eps))
	}
}
