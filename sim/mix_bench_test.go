package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/cputime"
)

// BenchmarkMix times the server's mixing of K clients' shared parameters
// with dense weights; 400,000 is about a Cora-10 model's shared part.
func BenchmarkMix(b *testing.B) {
	for _, s := range []struct{ k, n int }{{10, 65536}, {10, 400000}, {20, 400000}} {
		b.Run(fmt.Sprintf("k=%d,n=%d", s.k, s.n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			ups := make([]*Update, s.k)
			w := make([][]float64, s.k)
			for i := range ups {
				ups[i] = &Update{Shared: make([]float64, s.n)}
				for j := range ups[i].Shared {
					ups[i].Shared[j] = rng.NormFloat64()
				}
				w[i] = make([]float64, s.k)
				sum := 0.0
				for j := range w[i] {
					w[i][j] = rng.Float64()
					sum += w[i][j]
				}
				for j := range w[i] { // row-stochastic, as the server's: mixing in place keeps the values normal
					w[i][j] /= sum
				}
			}
			stop := cputime.Start(b)
			for b.Loop() {
				mix(ups, w, 2) // in place: the next loop mixes the mixed values
			}
			stop()
		})
	}
}
