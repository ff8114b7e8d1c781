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
				for j := range w[i] {
					w[i][j] = rng.Float64() / float64(s.k)
				}
			}
			var out []*Message
			stop := cputime.Start(b)
			for b.Loop() {
				out = mix(ups, w, 2, out)
			}
			stop()
		})
	}
}
