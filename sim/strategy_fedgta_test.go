package sim

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"gonum.org/v1/gonum/mat"
)

func TestMixedMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	const n, c, q = 7, 3, 4
	p := gnn.Softmax(mat.NewDense(n, c, func() []float64 {
		v := make([]float64, n*c)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}()))
	mean := make([]float64, c)
	for i := range n {
		for j := range c {
			mean[j] += p.At(i, j) / n
		}
	}
	raw := func(k, j int) (s float64) {
		for i := range n {
			s += math.Pow(p.At(i, j), float64(k)) / n
		}
		return s
	}
	central := func(k, j int) (s float64) {
		for i := range n {
			s += math.Pow(p.At(i, j)-mean[j], float64(k)) / n
		}
		return s
	}
	origin := mixedMoments(p, q, MomentsOrigin)
	hybrid := mixedMoments(p, q, MomentsHybrid)
	if len(origin) != q*c || len(hybrid) != 2*q*c {
		t.Fatalf("lengths %d, %d; want %d, %d", len(origin), len(hybrid), q*c, 2*q*c)
	}
	for k := 1; k <= q; k++ {
		for j := range c {
			i := (k-1)*c + j
			if math.Abs(origin[i]-raw(k, j)) > 1e-15 || hybrid[i] != origin[i] {
				t.Errorf("mu_%d[%d] = %v, %v; want %v", k, j, origin[i], hybrid[i], raw(k, j))
			}
			if got := hybrid[q*c+i]; math.Abs(got-central(k, j)) > 1e-15 {
				t.Errorf("kappa_%d[%d] = %v, want %v", k, j, got, central(k, j))
			}
		}
	}
}

func TestSmoothingConfidence(t *testing.T) {
	p := mat.NewDense(3, 4, []float64{
		0.25, 0.25, 0.25, 0.25,
		0, 1, 0, 0,
		0.5, 0.5, 0, 0,
	})
	deg := []float64{2, 3, 1}
	h := func(ps ...float64) (s float64) {
		for _, v := range ps {
			s += v * math.Log(v+1e-8)
		}
		return s
	}
	want := 2*(4/math.E+h(0.25, 0.25, 0.25, 0.25)) + 3*(4/math.E+h(1)) + 1*(4/math.E+h(0.5, 0.5))
	if got := smoothingConfidence(p, deg); math.Abs(got-want) > 1e-12 {
		t.Errorf("confidence %v, want %v", got, want)
	}
	if d := localDegrees([]int{0, 2, 3, 5}, []int{0, 1, 0, 1, 2}); !reflect.DeepEqual(d, []float64{1, 1, 1}) {
		t.Errorf("degrees without self loops %v, want [1 1 1]", d)
	}
}
