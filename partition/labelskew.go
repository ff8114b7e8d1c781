package partition

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// LabelSkewOptions configures LabelSkew. Beta has no default; the zero
// values of the other fields select theirs.
type LabelSkewOptions struct {
	// Seed seeds the shuffles and the Dirichlet draws. Equal seeds give
	// equal partitions.
	Seed uint64
	// Beta is the concentration of the symmetric Dirichlet distribution
	// (OpenFGL's dirichlet_alpha): small values (0.1) give each client few
	// classes, large ones (100) nearly the global label mix. It must be
	// positive and finite.
	Beta float64
	// MinSize is the least number of nodes of every client; splits that
	// leave a client smaller are drawn again. Zero selects 10 (NIID-Bench's
	// min_require_size; OpenFGL's least_samples is 5); it must not be
	// negative, and k*MinSize must not exceed the number of nodes.
	MinSize int
	// MaxAttempts is the number of splits drawn before LabelSkew gives up.
	// Zero selects 100 (OpenFGL's dirichlet_try_cnt); it must not be
	// negative.
	MaxAttempts int
}

// Default values of the LabelSkewOptions fields.
const (
	DefaultMinSize     = 10
	DefaultMaxAttempts = 100
)

// labelSkewStream is the random stream of LabelSkew for a seed.
const labelSkewStream = 0x4c61626c // "Labl"

// LabelSkew splits nodes among k clients by their labels with Dirichlet
// label skew, the "label_skew" subgraph-FL simulation of OpenFGL
// (xkLi-Allen/OpenFGL, openfgl/data/simulation.py,
// subgraph_fl_label_skew), which is the Dirichlet split of T.-M. H. Hsu,
// H. Qi and M. Brown, "Measuring the Effects of Non-Identical Data
// Distribution for Federated Visual Classification", arXiv:1909.06335
// (2019), as implemented in NIID-Bench (Q. Li, Y. Diao, Q. Chen and
// B. He, "Federated Learning on Non-IID Data Silos: An Experimental
// Study", ICDE 2022). The graph plays no part: labels[i] is the class of
// node i, and n = len(labels).
//
// One attempt: the clients start empty; for each class c in ascending
// order, with its n_c nodes in a random order, proportions
// p ~ Dir(beta, ..., beta) over the k clients are drawn, the proportion of
// every client that already holds n/k or more nodes is set to zero and p
// is renormalised (the balance rule of NIID-Bench and OpenFGL), and
// client j receives the nodes at positions floor(n_c*(p_1+...+p_{j-1}))
// up to floor(n_c*(p_1+...+p_j)) of the order (the last client up to
// n_c). Attempts are repeated until every client holds at least
// opts.MinSize nodes; after opts.MaxAttempts failed attempts an error is
// returned (OpenFGL exits the program). Since MinSize >= 1, every client is
// non-empty. The Gamma variates of the Dirichlet are drawn by the method of
// G. Marsaglia and W. W. Tsang ("A Simple Method for Generating Gamma
// Variables", ACM TOMS 26(3), 2000) in log space, with the boost
// Gamma(a) = Gamma(a+1) U^(1/a) for a < 1, so that small beta does not
// underflow to all-zero proportions; the renormalisation runs over the
// clients still open.
//
// Labels must be non-negative; the classes are the distinct values (they
// need not be contiguous). The random source is a PCG stream of opts.Seed
// (math/rand/v2). Errors are returned for no labels, a negative label,
// k < 1, k > n, an invalid Beta, MinSize or MaxAttempts, k*MinSize > n,
// and when no attempt succeeds.
func LabelSkew(labels []int, k int, opts LabelSkewOptions) ([]int, error) {
	n := len(labels)
	if n == 0 {
		return nil, fmt.Errorf("partition: label skew: no labels, want one per node")
	}
	if k < 1 || k > n {
		return nil, fmt.Errorf("partition: label skew: k = %d, want 1 <= k <= %d nodes", k, n)
	}
	beta := opts.Beta
	if !(beta > 0) || math.IsInf(beta, 0) {
		return nil, fmt.Errorf("partition: label skew: beta = %v, want a positive finite number", beta)
	}
	minSize := opts.MinSize
	switch {
	case minSize == 0:
		minSize = DefaultMinSize
	case minSize < 0:
		return nil, fmt.Errorf("partition: label skew: min size = %d, want >= 0 (0 selects %d)", minSize, DefaultMinSize)
	}
	if k*minSize > n {
		return nil, fmt.Errorf("partition: label skew: k = %d clients of min size %d need %d nodes, have %d", k, minSize, k*minSize, n)
	}
	attempts := opts.MaxAttempts
	switch {
	case attempts == 0:
		attempts = DefaultMaxAttempts
	case attempts < 0:
		return nil, fmt.Errorf("partition: label skew: max attempts = %d, want >= 0 (0 selects %d)", attempts, DefaultMaxAttempts)
	}
	byClass := map[int][]int{}
	for i, y := range labels {
		if y < 0 {
			return nil, fmt.Errorf("partition: label skew: labels[%d] = %d, want >= 0", i, y)
		}
		byClass[y] = append(byClass[y], i)
	}
	classes := make([]int, 0, len(byClass))
	for y := range byClass {
		classes = append(classes, y)
	}
	slices.Sort(classes)

	rng := rand.New(rand.NewPCG(opts.Seed, labelSkewStream))
	parts := make([]int, n)
	size := make([]int, k)
	logp := make([]float64, k)
	p := make([]float64, k)
	fair := float64(n) / float64(k)
	smallest := 0
	for a := 0; a < attempts; a++ {
		clear(size)
		for _, y := range classes {
			idx := slices.Clone(byClass[y])
			rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			for j := range logp {
				// Clamped so that a beta so small that every draw
				// underflows to -Inf still gives finite differences.
				logp[j] = max(logGamma(rng, beta), -math.MaxFloat64)
			}
			// p_j proportional to exp(logp_j) over the open clients.
			top := math.Inf(-1)
			for j := range logp {
				if float64(size[j]) < fair {
					top = max(top, logp[j])
				}
			}
			sum := 0.0
			for j := range p {
				p[j] = 0
				if float64(size[j]) < fair {
					p[j] = math.Exp(logp[j] - top)
					sum += p[j]
				}
			}
			cum, start := 0.0, 0
			for j := 0; j < k; j++ {
				end := len(idx)
				if j < k-1 {
					cum += p[j] / sum
					end = min(int(cum*float64(len(idx))), len(idx))
				}
				for _, v := range idx[start:end] {
					parts[v] = j
				}
				size[j] += max(end-start, 0)
				start = max(start, end)
			}
		}
		smallest = slices.Min(size)
		if smallest >= minSize {
			return parts, nil
		}
	}
	return nil, fmt.Errorf("partition: label skew: after %d attempts a client still has %d < min size %d nodes (beta = %v, k = %d, n = %d); raise beta or max attempts, or lower min size",
		attempts, smallest, minSize, beta, k, n)
}

// logGamma returns the logarithm of a Gamma(a, 1) variate, a > 0, drawn by
// Marsaglia and Tsang's method; for a < 1 it uses
// Gamma(a) = Gamma(a+1) U^(1/a) in log space.
func logGamma(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		u := 1 - rng.Float64() // (0, 1]
		return logGamma(rng, a+1) + math.Log(u)/a
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - rng.Float64() // (0, 1]
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return math.Log(d * v)
		}
	}
}
