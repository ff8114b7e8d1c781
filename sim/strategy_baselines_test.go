package sim

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
)

// TestStrategyModelsAndShares checks, for every algorithm, the client
// architecture it asks for and which parameters travel.
func TestStrategyModelsAndShares(t *testing.T) {
	tests := []struct {
		algo   Algorithm
		shared string // names of the shared parameters, in layout order
	}{
		{"fedavg", "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias"},
		{"gcfl", "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias"},
		{"fedpub", "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias"},
		{"fedaux", "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias apv"},
		{"local", ""},
		{"fedgta", "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias"},
		{"fedgnn", "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias"},
		{"fedgta_apv", "conv1.weight conv1.bias conv2.weight conv2.bias cls.weight cls.bias apv"},
	}
	for _, tt := range tests {
		c := smallConfig(tt.algo)
		e, err := New(c, smallData(t, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		cl := e.runners[0].(*Client)
		var names []string
		for _, p := range cl.shared {
			names = append(names, p.Name)
		}
		if got := strings.Join(names, " "); got != tt.shared {
			t.Errorf("%s shares %q, want %q", tt.algo, got, tt.shared)
		}
		if e.Strategy().Name() != tt.algo {
			t.Errorf("%s: strategy named %q", tt.algo, e.Strategy().Name())
		}
		if tt.algo.Describe() == "" {
			t.Errorf("%s has no description", tt.algo)
		}
	}
}

// TestProximalGradient checks the FedProx term's value and gradient
// against central differences.
func TestProximalGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	params := []*gnn.Param{
		{Name: "a", Rows: 2, Cols: 3, Value: make([]float64, 6), Grad: make([]float64, 6)},
		{Name: "b", Rows: 1, Cols: 4, Value: make([]float64, 4), Grad: make([]float64, 4)},
	}
	var ref []float64
	for _, p := range params {
		for i := range p.Value {
			p.Value[i] = rng.NormFloat64()
			ref = append(ref, rng.NormFloat64())
		}
	}
	for _, mu := range []float64{0.01, 0.5, 3} {
		f := func() float64 {
			var s float64
			off := 0
			for _, p := range params {
				for i, v := range p.Value {
					d := v - ref[off+i]
					s += d * d
				}
				off += len(p.Value)
			}
			return mu / 2 * s
		}
		for _, p := range params {
			p.ZeroGrad()
		}
		if v := proximal(params, ref, mu); math.Abs(v-f()) > 1e-14 {
			t.Errorf("mu %v: value %v, want %v", mu, v, f())
		}
		for _, p := range params {
			const h = 1e-5
			for i := range p.Value {
				old := p.Value[i]
				p.Value[i] = old + h
				up := f()
				p.Value[i] = old - h
				down := f()
				p.Value[i] = old
				if num := (up - down) / (2 * h); math.Abs(num-p.Grad[i]) > 1e-8*max(1, math.Abs(num)) {
					t.Errorf("mu %v %s[%d]: gradient %v, numeric %v", mu, p.Name, i, p.Grad[i], num)
				}
			}
		}
	}
}
