package graphio

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Split fractions of the reference protocol (docs/method.md#data-and-splits). The
// reference computes the test fraction as (1 - train)/2 in float64; for
// 0.2 and 0.05 that is exactly the float64 0.4 and 0.475.
const (
	// DefaultTrainFrac is the train fraction of the Planetoid and Amazon
	// datasets.
	DefaultTrainFrac = 0.2
	// DefaultTestFrac is (1 - DefaultTrainFrac) / 2.
	DefaultTestFrac = 0.4
	// ArxivTrainFrac is the train fraction of ogbn-arxiv.
	ArxivTrainFrac = 0.05
	// ArxivTestFrac is (1 - ArxivTrainFrac) / 2.
	ArxivTestFrac = 0.475
)

// SplitSizes returns the numbers of train and test nodes of a split of n
// nodes: round(n*trainFrac) and round(n*testFrac), where the products are
// float64 and round is Python 3's round(), which rounds halves to even
// (FED-PUB's split_train, which FedAux copies, uses round(), so
// n*0.2 = 12.5 gives 12, not 13). The validation set gets the rest.
func SplitSizes(n int, trainFrac, testFrac float64) (train, test int) {
	return int(math.RoundToEven(float64(n) * trainFrac)), int(math.RoundToEven(float64(n) * testFrac))
}

// SplitRandom assigns roles from a permutation of 0..n-1: the first
// round(n*trainFrac) nodes of perm are Train, the next round(n*testFrac)
// Test and the rest Val (see SplitSizes for the rounding). roles[u] is the
// role of node u. It returns an error if perm is not a permutation of
// 0..n-1, a fraction is not in [0,1] or the two sizes add up to more than
// n.
func SplitRandom(n int, perm []int, trainFrac, testFrac float64) ([]Role, error) {
	if len(perm) != n {
		return nil, fmt.Errorf("graphio: SplitRandom: permutation of length %d for %d nodes", len(perm), n)
	}
	if !(trainFrac >= 0 && trainFrac <= 1 && testFrac >= 0 && testFrac <= 1) {
		return nil, fmt.Errorf("graphio: SplitRandom: fractions train=%v test=%v outside [0,1]", trainFrac, testFrac)
	}
	nTrain, nTest := SplitSizes(n, trainFrac, testFrac)
	if nTrain+nTest > n {
		return nil, fmt.Errorf("graphio: SplitRandom: %d train + %d test nodes exceed %d", nTrain, nTest, n)
	}
	roles := make([]Role, n)
	seen := make([]bool, n)
	for k, u := range perm {
		if u < 0 || u >= n || seen[u] {
			return nil, fmt.Errorf("graphio: SplitRandom: perm[%d] = %d: not a permutation of 0..%d", k, u, n-1)
		}
		seen[u] = true
		switch {
		case k < nTrain:
			roles[u] = Train
		case k < nTrain+nTest:
			roles[u] = Test
		default:
			roles[u] = Val
		}
	}
	return roles, nil
}

// SplitSeeded draws a permutation of 0..n-1 from seed (see Permutation) and
// returns SplitRandom's roles for it. It does not reproduce PyTorch's
// randperm; the reference splits themselves are in the partition files.
func SplitSeeded(n int, seed uint64, trainFrac, testFrac float64) ([]Role, error) {
	return SplitRandom(n, Permutation(n, seed), trainFrac, testFrac)
}

// Permutation returns a uniformly random permutation of 0..n-1, determined
// by seed: a Fisher-Yates shuffle driven by a math/rand/v2 PCG generator
// seeded by NewRand(seed).
func Permutation(n int, seed uint64) []int {
	r := NewRand(seed)
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// NewRand returns the package's deterministic generator for seed: a
// math/rand/v2 PCG whose two state words are seed and a fixed odd
// constant.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// SplitRoles returns the indices in roles of the Train, Val and Test
// roles, each in increasing order.
func SplitRoles(roles []Role) (train, val, test []int) {
	for i, r := range roles {
		switch r {
		case Train:
			train = append(train, i)
		case Val:
			val = append(val, i)
		case Test:
			test = append(test, i)
		}
	}
	return train, val, test
}

// CountRoles returns the numbers of Train, Val and Test roles in roles.
func CountRoles(roles []Role) (train, val, test int) {
	for _, r := range roles {
		switch r {
		case Train:
			train++
		case Val:
			val++
		case Test:
			test++
		}
	}
	return train, val, test
}
