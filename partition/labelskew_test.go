package partition

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// testLabels returns n labels of c classes with unequal class sizes
// (class y has weight y+1), in a seeded random order.
func testLabels(n, c int, seed uint64) []int {
	labels := make([]int, n)
	total := c * (c + 1) / 2
	i := 0
	for y := 0; y < c; y++ {
		m := n * (y + 1) / total
		if y == c-1 {
			m = n - i
		}
		for j := 0; j < m; j++ {
			labels[i] = y
			i++
		}
	}
	r := rand.New(rand.NewPCG(seed, 1))
	r.Shuffle(n, func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
	return labels
}

// labelJS returns the mean, over the clients, of the Jensen-Shannon
// divergence (natural log, at most ln 2) between a client's label
// histogram and the global one.
func labelJS(labels, parts []int, k, c int) float64 {
	global := make([]float64, c)
	local := make([][]float64, k)
	for i := range local {
		local[i] = make([]float64, c)
	}
	for i, y := range labels {
		global[y]++
		local[parts[i]][y]++
	}
	normalise := func(h []float64) {
		s := 0.0
		for _, x := range h {
			s += x
		}
		for i := range h {
			h[i] /= s
		}
	}
	normalise(global)
	kl := func(p, q []float64) float64 {
		d := 0.0
		for i := range p {
			if p[i] > 0 {
				d += p[i] * math.Log(p[i]/q[i])
			}
		}
		return d
	}
	mean := 0.0
	for _, h := range local {
		normalise(h)
		m := make([]float64, c)
		for i := range m {
			m[i] = (h[i] + global[i]) / 2
		}
		mean += (kl(h, m) + kl(global, m)) / 2
	}
	return mean / float64(k)
}

func TestLabelSkew(t *testing.T) {
	const n, c = 3000, 6
	labels := testLabels(n, c, 1)
	for _, tc := range []struct {
		k       int
		beta    float64
		minSize int
		// the mean JS divergence lies in [lo, hi]
		lo, hi float64
	}{
		{5, 100, 0, 0, 0.01},
		{10, 100, 0, 0, 0.01},
		{5, 0.1, 0, 0.15, math.Ln2},
		{10, 0.1, 0, 0.15, math.Ln2},
		{10, 0.1, 50, 0.15, math.Ln2},
		{20, 0.5, 0, 0.03, 0.4},
		{1, 0.1, 0, 0, 0},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			parts, err := LabelSkew(labels, tc.k, LabelSkewOptions{Seed: seed, Beta: tc.beta, MinSize: tc.minSize})
			if err != nil {
				t.Fatalf("k=%d beta=%v seed %d: %v", tc.k, tc.beta, seed, err)
			}
			checkParts(t, parts, n, tc.k)
			sizes := make([]int, tc.k)
			for _, p := range parts {
				sizes[p]++
			}
			if want := cmp0(tc.minSize, DefaultMinSize); slices.Min(sizes) < want {
				t.Fatalf("k=%d beta=%v seed %d: sizes %v, want >= %d", tc.k, tc.beta, seed, sizes, want)
			}
			js := labelJS(labels, parts, tc.k, c)
			t.Logf("k=%2d beta=%5v seed %d: mean JS %.4f, sizes %v", tc.k, tc.beta, seed, js, sizes)
			if js < tc.lo || js > tc.hi {
				t.Errorf("k=%d beta=%v seed %d: mean JS %.4f outside [%v, %v]", tc.k, tc.beta, seed, js, tc.lo, tc.hi)
			}
		}
	}
}

// cmp0 returns x, or def if x is zero.
func cmp0(x, def int) int {
	if x == 0 {
		return def
	}
	return x
}

func TestLabelSkewDeterministic(t *testing.T) {
	labels := testLabels(1000, 4, 2)
	opts := LabelSkewOptions{Seed: 7, Beta: 0.5}
	a, err := LabelSkew(labels, 5, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LabelSkew(labels, 5, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Fatal("equal seeds gave different partitions")
	}
	opts.Seed = 8
	c, err := LabelSkew(labels, 5, opts)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a, c) {
		t.Fatal("seeds 7 and 8 gave the same partition")
	}
}

// TestLabelSkewTinyBeta checks that a beta whose Gamma draws underflow
// still gives a valid split (each class goes to one open client).
func TestLabelSkewTinyBeta(t *testing.T) {
	labels := testLabels(200, 10, 3)
	for _, beta := range []float64{1e-3, 1e-300, 5e-324} {
		parts, err := LabelSkew(labels, 2, LabelSkewOptions{Seed: 1, Beta: beta, MinSize: 1})
		if err != nil {
			t.Fatalf("beta=%v: %v", beta, err)
		}
		checkParts(t, parts, len(labels), 2)
	}
}

func TestLabelSkewErrors(t *testing.T) {
	labels := testLabels(100, 3, 1)
	for _, tc := range []struct {
		name   string
		labels []int
		k      int
		opts   LabelSkewOptions
		want   string
	}{
		{"no labels", nil, 1, LabelSkewOptions{Beta: 1}, "partition: label skew: no labels"},
		{"k=0", labels, 0, LabelSkewOptions{Beta: 1}, "partition: label skew: k = 0, want 1 <= k <= 100 nodes"},
		{"k>n", labels, 101, LabelSkewOptions{Beta: 1}, "k = 101, want 1 <= k <= 100 nodes"},
		{"beta=0", labels, 2, LabelSkewOptions{}, "beta = 0, want a positive finite number"},
		{"beta<0", labels, 2, LabelSkewOptions{Beta: -1}, "beta = -1, want a positive finite number"},
		{"beta NaN", labels, 2, LabelSkewOptions{Beta: math.NaN()}, "beta = NaN"},
		{"beta Inf", labels, 2, LabelSkewOptions{Beta: math.Inf(1)}, "beta = +Inf"},
		{"min size<0", labels, 2, LabelSkewOptions{Beta: 1, MinSize: -1}, "min size = -1, want >= 0"},
		{"min size too big", labels, 11, LabelSkewOptions{Beta: 1}, "k = 11 clients of min size 10 need 110 nodes, have 100"},
		{"attempts<0", labels, 2, LabelSkewOptions{Beta: 1, MaxAttempts: -3}, "max attempts = -3, want >= 0"},
		{"negative label", []int{0, 1, -1, 2}, 2, LabelSkewOptions{Beta: 1, MinSize: 1}, "labels[2] = -1, want >= 0"},
		{"no success", labels, 10, LabelSkewOptions{Beta: 0.01, MaxAttempts: 3}, "after 3 attempts a client still has"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts, err := LabelSkew(tc.labels, tc.k, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want error containing %q", parts, err, tc.want)
			}
		})
	}
}

// TestLogGamma checks the mean and variance (both a) of the Gamma(a, 1)
// variates.
func TestLogGamma(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const m = 20000
	for _, a := range []float64{0.1, 0.5, 1, 2.5, 10} {
		var s, s2 float64
		for i := 0; i < m; i++ {
			x := math.Exp(logGamma(rng, a))
			s += x
			s2 += x * x
		}
		mean := s / m
		vr := s2/m - mean*mean
		// Standard error of the mean is sqrt(a/m); allow 5 of them.
		if math.Abs(mean-a) > 5*math.Sqrt(a/m) || math.Abs(vr-a) > 0.25*a {
			t.Errorf("a=%v: mean %.4f variance %.4f, want %v", a, mean, vr, a)
		}
	}
}
