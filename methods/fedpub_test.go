package methods

import (
	"math"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

func TestFedPubWeights(t *testing.T) {
	f := [][]float64{{1, 0, 0}, {0.9, 0.1, 0}, {0, 1, 0.2}, {-1, 0.5, 0}}
	for _, tau := range []float64{0, 1, 3, 10} {
		m := sim.MixSignatures(fedPub{tau: tau}.Mix, sim.SourceFunctional, f, sim.Knobs{}, 1)
		cos := m.Similarity
		for k := range f {
			var z float64
			for l := range f {
				z += math.Exp(tau * cos[k][l])
			}
			for l := range f {
				if want := math.Exp(tau*cos[k][l]) / z; math.Abs(m.W[k][l]-want) > 1e-15 {
					t.Errorf("tau %v: w[%d][%d] = %v, want exp(tau cos)/sum = %v", tau, k, l, m.W[k][l], want)
				}
			}
		}
	}
}
