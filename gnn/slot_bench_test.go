package gnn

import (
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/cputime"
)

// BenchmarkSlotLinear times a forward and a backward pass of FedSage+'s
// generator output layer on a Computer-10 client: 1375 nodes, 2048
// inputs a quarter non-zero (after ReLU and dropout), 5 slots of 767
// features, 0 to 2 slots asked for per node.
func BenchmarkSlotLinear(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, in, width := 1375, 2048, 767
	l := NewSlotLinear("out", in, MaxPred, width, rng)
	l.GradOnlyNonzero = true
	l.AttachGrad(make([]float64, in*MaxPred*width))
	h := randDense(rng, n, in, 0.25)
	counts := make([]int, n)
	for i := range counts {
		counts[i] = rng.IntN(3)
	}
	dOut := randDense(rng, n, MaxPred*width, 1)
	stop := cputime.Start(b)
	for b.Loop() {
		l.Forward(h, counts)
		l.Backward(dOut, true)
	}
	stop()
}
