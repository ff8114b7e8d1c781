package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
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

// gcflInput builds a round's input from per-client updates.
func gcflInput(dw [][]float64) *RoundInput {
	in := &RoundInput{Views: map[Source][][]float64{SourceUpdate: cosineMatrix(dw)}}
	for i, d := range dw {
		in.Updates = append(in.Updates, &Update{ClientMetrics: ClientMetrics{ID: i}, Signatures: map[Source][]float64{SourceUpdate: d}})
	}
	return in
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
		var m Mixing
		for r := 0; r < tt.rounds; r++ {
			m = g.Mix(gcflInput(tt.dw))
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
		g.Mix(gcflInput(dw))
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
	h.Mix(gcflInput(dw))
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

func TestFedPubWeights(t *testing.T) {
	f := [][]float64{{1, 0, 0}, {0.9, 0.1, 0}, {0, 1, 0.2}, {-1, 0.5, 0}}
	cos := cosineMatrix(f)
	for _, tau := range []float64{0, 1, 3, 10} {
		m := fedPub{tau: tau}.Mix(&RoundInput{Views: map[Source][][]float64{SourceFunctional: cos}})
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
	// In an engine, FED-PUB's weights come from the functional view.
	c := smallConfig("fedpub")
	e, err := New(c, smallData(t, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fv := rep.Views[SourceFunctional]
	if fv == nil || !reflect.DeepEqual(rep.Similarity, fv) || !reflect.DeepEqual(rep.Weights, softmaxRows(fv, defaultTau)) {
		t.Error("fedpub's weights are not softmax(tau * functional similarity)")
	}
}

func TestBaselineConfigValidate(t *testing.T) {
	for _, mod := range []struct {
		flag string
		f    func(*Config)
	}{
		{"tau", func(c *Config) { setOpts(t, c, "tau", fmtFloat(math.NaN())) }},
		{"eps1", func(c *Config) { setOpts(t, c, "eps1", fmtFloat(math.Inf(1))) }},
		{"eps2", func(c *Config) { setOpts(t, c, "eps2", "-0.1") }},
	} {
		c := DefaultConfig()
		mod.f(&c)
		if err := c.Validate(); settingKey(err) != mod.flag {
			t.Errorf("Validate = %v, want a SettingError naming %s", err, mod.flag)
		}
	}
	d := DefaultConfig()
	o := d.Options
	if o.Float("tau") != 3 || o.Float("eps1") != 0.05 || o.Float("eps2") != 0.1 {
		t.Errorf("defaults tau %v eps %v %v", o.Float("tau"), o.Float("eps1"), o.Float("eps2"))
	}
}

// TestGCFLEngineSplits runs GCFL past its warm-up with thresholds that
// always split: clusters form, the weights follow them, and the run does
// not depend on the number of workers.
func TestGCFLEngineSplits(t *testing.T) {
	var runs [][]RoundReport
	for _, workers := range []int{1, 3} {
		c := smallConfig("gcfl")
		c.Rounds, c.Workers = gcflWarmup+2, workers
		setOpts(t, &c, "eps1", "1e9", "eps2", "0")
		e := runEngine(t, c, smallData(t, 7))
		g := e.Strategy().(*gcfl)
		if len(g.Clusters()) < 3 { // rounds 21 and 22 each split every cluster of 3 or more
			t.Fatalf("clusters %v: want two rounds of splits", g.Clusters())
		}
		last := e.Reports()[len(e.Reports())-1]
		if !reflect.DeepEqual(last.Weights, clusterWeights(8, g.Clusters())) {
			t.Error("weights do not follow the clusters")
		}
		// The report names the clusters by client id and carries one split
		// statistic per cluster the round started with.
		if !reflect.DeepEqual(last.Clusters, g.Clusters()) {
			t.Errorf("reported clusters %v, want %v", last.Clusters, g.Clusters())
		}
		before := e.Reports()[len(e.Reports())-2]
		if len(last.ClusterNorms) != len(before.Clusters) {
			t.Errorf("%d cluster norms for %d clusters", len(last.ClusterNorms), len(before.Clusters))
		}
		for _, n := range last.ClusterNorms {
			if !(n.Mean >= 0 && n.Max >= n.Mean) {
				t.Errorf("cluster norms %+v: want 0 <= mean <= max", n)
			}
		}
		runs = append(runs, stripTimes(e.Reports()))
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Error("gcfl differs between worker counts")
	}
}
