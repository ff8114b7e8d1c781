package privacy

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/sim"
)

// Checkpoints is the number of rounds at which the attacker reads the
// uploads: t_r = ceil(r T / Checkpoints), r = 1..Checkpoints (spec
// section 12: t_r = r T / 10).
const Checkpoints = 10

// NumFeatures is the length of an attack feature vector (docs/method.md#membership-inference):
//
//	0..9    the descriptor projection at t_1..t_10          (a)
//	10..19  the cross-entropy of the node's label at t_1..t_10  (b)
//	20..23  the three largest softmax probabilities and the entropy at T  (c)
//	24..25  ||h_v|| and cos(h_v, a_k) at T                  (d)
const NumFeatures = 2*Checkpoints + 6

// CheckpointRounds returns the rounds t_1..t_10 of a run of rounds
// rounds: ceil(r rounds / 10), so t_10 = rounds; a run shorter than 10
// rounds repeats some.
func CheckpointRounds(rounds int) []int {
	out := make([]int, Checkpoints)
	for r := range out {
		out[r] = ((r+1)*rounds + Checkpoints - 1) / Checkpoints
	}
	return out
}

// stream returns the random stream of one purpose (and client) of a
// seed, independent of every other's.
func stream(seed uint64, purpose string, k int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte("privacy/" + purpose + "/" + strconv.Itoa(k)))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// candidates are the nodes one client's attacks score: n members and n
// non-members of each kind.
type candidates struct {
	members []int         // local ids of training nodes of the client
	test    []int         // local ids of its test nodes
	other   []sim.NodeRef // nodes of other clients
}

// drawCandidates draws every client's candidates for a seed: n =
// min(|Tr_k|, |Te_k|, nodes of the other clients) members (all of Tr_k
// when it is the smallest, as on every real preset, else a uniform
// sample), a uniform sample of n test nodes, and a uniform sample of n
// nodes of the other clients, each client from its own stream.
func drawCandidates(d *sim.Data, seed uint64) ([]candidates, error) {
	out := make([]candidates, len(d.Clients))
	for k, c := range d.Clients {
		train, _, test := graphio.SplitRoles(c.Roles)
		var others []sim.NodeRef
		for j, o := range d.Clients {
			if j != k {
				for v := range o.Graph.N() {
					others = append(others, sim.NodeRef{Client: j, Node: v})
				}
			}
		}
		n := min(len(train), len(test), len(others))
		if n < 2 {
			return nil, fmt.Errorf("privacy: client %d has %d training and %d test nodes: an attack needs 2 of each", c.ID, len(train), len(test))
		}
		rng := stream(seed, "candidates", k)
		out[k] = candidates{members: sample(rng, train, n), test: sample(rng, test, n), other: sample(rng, others, n)}
	}
	return out, nil
}

// sample returns n elements of xs drawn uniformly without replacement
// (xs itself, in order, when n is its length).
func sample[T any](rng *rand.Rand, xs []T, n int) []T {
	if n == len(xs) {
		return xs
	}
	out := make([]T, n)
	for i, j := range rng.Perm(len(xs))[:n] {
		out[i] = xs[j]
	}
	return out
}

// targets returns client k's probe targets: its members, its test
// non-members, then the other clients' nodes.
func (c candidates) targets(k int) []sim.NodeRef {
	out := make([]sim.NodeRef, 0, 3*len(c.members))
	for _, v := range c.members {
		out = append(out, sim.NodeRef{Client: k, Node: v})
	}
	for _, v := range c.test {
		out = append(out, sim.NodeRef{Client: k, Node: v})
	}
	return append(out, c.other...)
}

// rows returns the positions, in targets, of the members and of the
// non-members of kind nm.
func (c candidates) rows(nm NonMembers) (members, non []int) {
	n := len(c.members)
	for i := range n {
		members = append(members, i)
		if nm == FromOthers {
			non = append(non, 2*n+i)
		} else {
			non = append(non, n+i)
		}
	}
	return members, non
}

// features returns the attack features (see NumFeatures) of every
// target of one client from its probes at the checkpoints, in order (the
// last at T).
func features(probes []*sim.Probe) ([][]float64, error) {
	if len(probes) != Checkpoints {
		return nil, fmt.Errorf("privacy: %d probes, want one per checkpoint (%d)", len(probes), Checkpoints)
	}
	n := len(probes[0].Rows)
	for _, p := range probes {
		if len(p.Rows) != n {
			return nil, fmt.Errorf("privacy: probes of %d and %d rows", n, len(p.Rows))
		}
	}
	x := make([][]float64, n)
	for i := range x {
		f := make([]float64, NumFeatures)
		for r, p := range probes {
			f[r] = p.Rows[i].Projection
			f[Checkpoints+r] = p.Rows[i].Loss
		}
		last := probes[Checkpoints-1].Rows[i]
		copy(f[2*Checkpoints:], last.Top[:])
		f[2*Checkpoints+3] = last.Entropy
		f[2*Checkpoints+4] = last.Norm
		f[2*Checkpoints+5] = last.APVCos
		for j, v := range f {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("privacy: feature %d of target %d is %v", j, i, v)
			}
		}
		x[i] = f
	}
	return x, nil
}

// standardize z-scores the columns of train and test in place with the
// mean and population standard deviation of train's; a column constant
// on train (a descriptor projection of zeros) becomes 0 in both.
func standardize(train, test [][]float64) {
	m := len(train[0])
	for j := range m {
		var mean float64
		for _, r := range train {
			mean += r[j]
		}
		mean /= float64(len(train))
		var ss float64
		for _, r := range train {
			ss += (r[j] - mean) * (r[j] - mean)
		}
		sd := math.Sqrt(ss / float64(len(train)))
		for _, set := range [][][]float64{train, test} {
			for _, r := range set {
				if sd > 1e-12*math.Max(1, math.Abs(mean)) {
					r[j] = (r[j] - mean) / sd
				} else {
					r[j] = 0
				}
			}
		}
	}
}
