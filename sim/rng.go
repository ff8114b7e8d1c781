package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns the random stream for one purpose ("init", "dropout",
// ...) and index (a client id, or 0) of a run of seed seed. Streams of
// different purposes or indices are independent, so a change in one
// never shifts another, and a client's draws do not depend on how many
// workers run. A method's own streams take purposes of their own
// ("fedsage", ...).
func Stream(seed uint64, purpose string, index int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, StreamKey(purpose, index)))
}

// StreamKey derives the second PCG word of a stream from its purpose and
// index: rand.NewPCG(seed, StreamKey(purpose, index)) is the source of
// Stream(seed, purpose, index), for a stream whose state a checkpoint
// saves (rand.PCG.MarshalBinary).
func StreamKey(purpose string, index int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return splitmix(h.Sum64() ^ splitmix(uint64(index)+0x9e3779b97f4a7c15))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
