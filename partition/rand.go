package partition

import "math/bits"

// splitMix is a small deterministic generator (SplitMix64), so partitions do
// not depend on the standard library's generator implementation.
type splitMix struct{ s uint64 }

// newSplitMix returns the generator of one stream of a seed.
func newSplitMix(seed, stream uint64) *splitMix {
	r := &splitMix{s: seed}
	r.s = r.next() ^ (stream*0xd1342543de82ef95 + 0x632be59bd9b4e019)
	r.next()
	return r
}

func (r *splitMix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n) for n > 0.
func (r *splitMix) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// perm fills p with a random permutation of 0..len(p)-1.
func (r *splitMix) perm(p []int32) {
	for i := range p {
		p[i] = int32(i)
	}
	r.shuffle(p)
}

func (r *splitMix) shuffle(p []int32) {
	for i := len(p) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
}
