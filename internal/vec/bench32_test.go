package vec

import (
	"fmt"
	"testing"

	"github.com/fedaux/fedaux/internal/cputime"
)

// The float32 kernels against the float64 ones on the shapes of a
// Cora-10 round, as sub-benchmarks prec=f64 and prec=f32 of one name so
// that benchstat -col /prec compares them:
//
//	go test ./internal/vec -run '^$' -bench Precision -count 10 > p.txt
//	benchstat -col /prec p.txt

func toF32(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

func BenchmarkPrecisionRowSums(b *testing.B) {
	for _, s := range []struct {
		rows, srcRows, cols int
		density             float64
	}{{250, 256, 256, 0.25}, {250, 256, 256, 0.5}, {1375, 256, 256, 0.25}, {250, 512, 7, 0.25}} {
		dst, src, terms, n := rowSumsBench(s.rows, s.srcRows, s.cols, s.density)
		dst32, src32 := toF32(dst), toF32(src)
		terms32 := make([]Term32, len(terms))
		for i, t := range terms {
			terms32[i] = Term32{Off: int32(t.Off), A: float32(t.A)}
		}
		name := fmt.Sprintf("rows=%d,src=%d,cols=%d,density=%v", s.rows, s.srcRows, s.cols, s.density)
		b.Run(name+"/prec=f64", func(b *testing.B) {
			stop := cputime.Start(b)
			for b.Loop() {
				RowSums(dst, s.cols, s.cols, src, terms, n, true)
			}
			stop()
		})
		b.Run(name+"/prec=f32", func(b *testing.B) {
			stop := cputime.Start(b)
			for b.Loop() {
				RowSums32(dst32, s.cols, s.cols, src32, terms32, n, true)
			}
			stop()
		})
	}
}

// BenchmarkPrecisionElementwise times Adam, AddMul and Dot on the first
// layer's weight of Cora (1433 x 256) and on a row of 256.
func BenchmarkPrecisionElementwise(b *testing.B) {
	for _, n := range []int{256, 1433 * 256} {
		_, _, xs := benchVecs(4, n)
		for i := range xs[3] {
			xs[3][i] *= xs[3][i]
		}
		x32 := [4][]float32{toF32(xs[0]), toF32(xs[1]), toF32(xs[2]), toF32(xs[3])}
		s := AdamStep{Beta1: 0.9, Beta2: 0.999, WeightDecay: 1e-6, StepSize: 0.01, InvBC2: 30, Eps: 1e-8}
		s32 := AdamStep32{Beta1: 0.9, Beta2: 0.999, WeightDecay: 1e-6, StepSize: 0.01, InvBC2: 30, Eps: 1e-8}
		for _, k := range []struct {
			name     string
			f64, f32 func()
		}{
			{"Adam", func() { Adam(xs[0], xs[1], xs[2], xs[3], s) }, func() { Adam32(x32[0], x32[1], x32[2], x32[3], s32) }},
			{"AddMul", func() { AddMul(xs[0], xs[1], xs[2]) }, func() { AddMul32(x32[0], x32[1], x32[2]) }},
			{"Dot", func() { _ = Dot(xs[1], xs[2]) }, func() { _ = Dot32(x32[1], x32[2]) }},
		} {
			b.Run(fmt.Sprintf("%s/n=%d/prec=f64", k.name, n), func(b *testing.B) {
				stop := cputime.Start(b)
				for b.Loop() {
					k.f64()
				}
				stop()
			})
			b.Run(fmt.Sprintf("%s/n=%d/prec=f32", k.name, n), func(b *testing.B) {
				stop := cputime.Start(b)
				for b.Loop() {
					k.f32()
				}
				stop()
			})
		}
	}
}
