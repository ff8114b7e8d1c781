package partition

import (
	"fmt"
	"math/rand/v2"
)

// randomStream is the random stream of Random for a seed.
const randomStream = 0x52616e64 // "Rand"

// Random assigns n nodes to k clients uniformly at random with balanced
// sizes: the nodes are put in a random order (a Fisher-Yates shuffle from
// a PCG stream of seed, math/rand/v2) and the i-th node of that order goes
// to client i mod k. Client sizes are floor(n/k) or ceil(n/k), so every
// client is non-empty, and the result is a deterministic function of n, k
// and seed. It is the random baseline of subgraph-FL partitions: it
// ignores the graph, cuts about (1-1/k) of the edges, and keeps every
// client's label mix close to the global one. Errors are returned for
// n < 1, k < 1 and k > n.
func Random(n, k int, seed uint64) ([]int, error) {
	if n < 1 {
		return nil, fmt.Errorf("partition: random: n = %d, want n >= 1", n)
	}
	if k < 1 || k > n {
		return nil, fmt.Errorf("partition: random: k = %d, want 1 <= k <= %d nodes", k, n)
	}
	rng := rand.New(rand.NewPCG(seed, randomStream))
	parts := make([]int, n)
	for i, v := range rng.Perm(n) {
		parts[v] = i % k
	}
	return parts, nil
}
