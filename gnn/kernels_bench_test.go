package gnn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/cputime"
	"gonum.org/v1/gonum/mat"
)

// kernelShapes are the shapes of the dense products of a round: the
// second GCN layer of a Cora-10 client (N = 250, d = 256) and of a
// Computer-10 client (N = 1375), on inputs about half zero as after ReLU
// and dropout.
var kernelShapes = []struct{ n, k, m int }{{250, 256, 256}, {1375, 256, 256}, {250, 512, 7}}

func BenchmarkMulSkip(b *testing.B) {
	for _, s := range kernelShapes {
		b.Run(fmt.Sprintf("n=%d,k=%d,m=%d", s.n, s.k, s.m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x, w := randDense(rng, s.n, s.k, 0.5), randDense(rng, s.k, s.m, 1)
			dst := mat.NewDense(s.n, s.m, nil)
			stop := cputime.Start(b)
			for b.Loop() {
				mulSkip(dst, x, w)
			}
			stop()
		})
	}
}

func BenchmarkMulTransAddSkip(b *testing.B) {
	// and the weight gradient of a ten-class kernel head (2C = 20 columns)
	for _, s := range append(kernelShapes[:len(kernelShapes):len(kernelShapes)], struct{ n, k, m int }{1375, 256, 20}) {
		b.Run(fmt.Sprintf("n=%d,k=%d,m=%d", s.n, s.k, s.m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x, p := randDense(rng, s.n, s.k, 0.5), randDense(rng, s.n, s.m, 1)
			dst := mat.NewDense(s.k, s.m, nil)
			stop := cputime.Start(b)
			for b.Loop() {
				mulTransAddSkip(dst, x, p)
			}
			stop()
		})
	}
}

// BenchmarkMulTransB times the input gradient of a dense layer, dX =
// dY W^T kept where X is non-zero, for patterns of half and a fifth
// non-zero entries (every entry is computed either way), and the head's:
// N x 20 gradients of a ten-class kernel head by its d x 20 weight.
func BenchmarkMulTransB(b *testing.B) {
	shapes := append(kernelShapes[:len(kernelShapes):len(kernelShapes)], struct{ n, k, m int }{1375, 256, 20})
	for _, s := range shapes {
		for _, density := range []float64{0.5, 0.2} {
			b.Run(fmt.Sprintf("n=%d,k=%d,m=%d,kept=%v", s.n, s.k, s.m, density), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				p, w := randDense(rng, s.n, s.m, 1), randDense(rng, s.k, s.m, 1)
				pattern := randDense(rng, s.n, s.k, density)
				dst := mat.NewDense(s.n, s.k, nil)
				stop := cputime.Start(b)
				for b.Loop() {
					mulTransB(dst, p, w, pattern)
				}
				stop()
			})
		}
	}
}

// BenchmarkAdam times one Adam step over n parameters; 734,000 is a
// masked two-layer Cora-10 model (weights and masks of 1433 x 256 and
// 256 x 256, the classifier and the APV).
func BenchmarkAdam(b *testing.B) {
	for _, n := range []int{1000, 65536, 734000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			p := newParam("p", 1, n, false)
			p.uniform(rng, 1)
			for i := range p.Grad {
				p.Grad[i] = rng.NormFloat64()
			}
			opt := NewAdam([]*Param{p}, 0.01, 1e-6)
			stop := cputime.Start(b)
			for b.Loop() {
				opt.Step()
			}
			stop()
		})
	}
}

// BenchmarkReLUBackward is the backward pass of a ReLU over a Computer-10
// client's hidden layer, half its outputs positive.
func BenchmarkReLUBackward(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(1375, 256, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	var r ReLU
	r.Forward(x)
	d := mat.DenseCopyOf(x)
	stop := cputime.Start(b)
	for b.Loop() {
		r.Backward(d)
	}
	stop()
}
