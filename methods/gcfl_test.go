package methods

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

// mixUpdates runs g's server on the updates dw, as the engine does.
func mixUpdates(g *gcfl, dw [][]float64) sim.Mixing {
	return sim.MixSignatures(g.Mix, sim.SourceUpdate, dw, sim.Knobs{}, 1)
}

// twoGroups returns updates of k clients: those in the first group point
// along +v, the others along -v, each scaled by scale and slightly
// perturbed, so that the mean update is small and the groups are clear.
func twoGroups(first []int, k int, scale float64) [][]float64 {
	rng := rand.New(rand.NewPCG(3, 4))
	v := []float64{1, -2, 0.5, 3}
	dw := make([][]float64, k)
	for i := range dw {
		sign := -1.0
		if slices.Contains(first, i) {
			sign = 1
		}
		dw[i] = make([]float64, len(v))
		for j := range v {
			dw[i][j] = scale * (sign*v[j] + 0.05*rng.NormFloat64())
		}
	}
	return dw
}

func TestGCFLSplit(t *testing.T) {
	tests := []struct {
		name   string
		dw     [][]float64
		rounds int // Mix calls
		eps1   float64
		eps2   float64
		want   [][]int
	}{
		{"splits by direction", twoGroups([]int{0, 2, 5}, 6, 0.1), 21, 0.05, 0.1, [][]int{{0, 2, 5}, {1, 3, 4}}},
		{"unequal groups", [][]float64{{0.1, 0}, {0.1, 0.01}, {0.1, -0.01}, {0.1, 0}, {-0.4, 0}, {0.1, 0}}, 21, 0.05, 0.1, [][]int{{0, 1, 2, 3, 5}, {4}}},
		{"not before round 21", twoGroups([]int{0, 2, 5}, 6, 0.1), 20, 0.05, 0.1, [][]int{{0, 1, 2, 3, 4, 5}}},
		{"mean update too large", twoGroups([]int{0, 1, 2, 3, 4}, 6, 0.1), 21, 0.05, 0.1, [][]int{{0, 1, 2, 3, 4, 5}}},
		{"updates too small", twoGroups([]int{0, 2, 5}, 6, 0.01), 21, 0.05, 0.1, [][]int{{0, 1, 2, 3, 4, 5}}},
		{"two clients never split", twoGroups([]int{0}, 2, 0.1), 21, 0.05, 0.1, [][]int{{0, 1}}},
	}
	for _, tt := range tests {
		g := &gcfl{eps1: tt.eps1, eps2: tt.eps2}
		var m sim.Mixing
		for r := 0; r < tt.rounds; r++ {
			m = mixUpdates(g, tt.dw)
		}
		if !reflect.DeepEqual(g.Clusters(), tt.want) {
			mean, mx := updateNorms(tt.dw, tt.want[0])
			t.Errorf("%s: clusters %v, want %v (mean norm %.3g, max %.3g)", tt.name, g.Clusters(), tt.want, mean, mx)
			continue
		}
		if !reflect.DeepEqual(m.W, clusterWeights(len(tt.dw), tt.want)) {
			t.Errorf("%s: weights %v are not block-uniform over %v", tt.name, m.W, tt.want)
		}
	}
	// A later split of one cluster leaves the others alone, and the state
	// survives a round trip.
	g := &gcfl{eps1: 0.05, eps2: 0.1}
	dw := twoGroups([]int{0, 1, 2}, 6, 0.1)
	for r := 0; r < 21; r++ {
		mixUpdates(g, dw)
	}
	b, err := g.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	h := &gcfl{eps1: 0.05, eps2: 0.1}
	if err := h.UnmarshalState(b); err != nil || h.round != 21 || !reflect.DeepEqual(h.Clusters(), g.Clusters()) {
		t.Errorf("state round trip: %v, round %d, clusters %v", err, h.round, h.Clusters())
	}
	// Inside {0,1,2}: 0 against 1, 2 (mean small, max large); {3,4,5} alike.
	dw = [][]float64{{2, 0}, {-1, 0.1}, {-1, -0.1}, {0, 0.01}, {0, 0.02}, {0.001, 0.01}}
	mixUpdates(h, dw)
	if want := [][]int{{0}, {1, 2}, {3, 4, 5}}; !reflect.DeepEqual(h.Clusters(), want) {
		t.Errorf("second split: clusters %v, want %v", h.Clusters(), want)
	}
}

// TestMinCut compares Stoer-Wagner with brute force on random graphs.
func TestMinCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cutOf := func(w [][]float64, side []bool) float64 {
		var c float64
		for i := range w {
			for j := range w {
				if side[i] && !side[j] {
					c += w[i][j]
				}
			}
		}
		return c
	}
	for trial := 0; trial < 50; trial++ {
		n := 2 + rng.IntN(7)
		w := make([][]float64, n)
		for i := range w {
			w[i] = make([]float64, n)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				v := 2 * rng.Float64()
				w[i][j], w[j][i] = v, v
			}
		}
		best := math.Inf(1)
		for mask := 1; mask < 1<<(n-1); mask++ { // node n-1 always on the false side
			side := make([]bool, n)
			for i := 0; i < n-1; i++ {
				side[i] = mask&(1<<i) != 0
			}
			best = math.Min(best, cutOf(w, side))
		}
		part := minCut(w)
		side := make([]bool, n)
		for _, i := range part {
			side[i] = true
		}
		if len(part) == 0 || len(part) == n {
			t.Fatalf("trial %d: trivial cut %v", trial, part)
		}
		if got := cutOf(w, side); math.Abs(got-best) > 1e-12 {
			t.Errorf("trial %d (n=%d): cut %v weighs %v, minimum %v", trial, n, part, got, best)
		}
	}
}

// Before its warm-up ends the engine's GCFL does not split, whatever the
// norms; the forced step always cuts.
func TestGCFLStepForcesTheCut(t *testing.T) {
	dw := twoGroups([]int{0, 2, 4}, 6, 1)
	m := GCFLStep(dw).Run()
	want := [][]int{{0, 2, 4}, {1, 3, 5}}
	if !reflect.DeepEqual(m.Clusters, want) {
		t.Errorf("clusters %v, want %v", m.Clusters, want)
	}
}
