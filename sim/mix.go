package sim

import (
	"iter"
	"sync"

	"github.com/fedaux/fedaux/internal/share"
	"github.com/fedaux/fedaux/internal/vec"
)

// mixChunk is the number of parameter entries a worker hands
// vec.MixInPlace at a time: the unit the workers share out, and below
// AVX-512 (where MixInPlace sums each row over the whole chunk) small
// enough that one chunk of every client stays in cache.
const mixChunk = 4096

// mix returns each client's message for the next round: theta_k =
// sum_l w_kl theta_l over the shared parameters (Eq. 6), summed in client
// order so the result does not depend on the number of workers. A nil w
// means no communication. It mixes in place, a chunk of entries at a
// time: each update's Shared vector is overwritten by its client's mixed
// parameters and becomes that client's message, so the server holds no
// copy of the parameters beyond the updates.
func mix(ups []*Update, w [][]float64, workers int) []*Message {
	if w == nil {
		return nil
	}
	k := len(ups)
	n := len(ups[0].Shared)
	share.Out((n+mixChunk-1)/mixChunk, workers, func(chunks iter.Seq[int]) {
		buf := getAcc(k * mixChunk)
		defer accPool.Put(buf)
		acc := *buf // MixInPlace's scratch: a chunk for each client
		src := make([][]float64, k)
		for c := range chunks {
			lo := c * mixChunk
			hi := min(lo+mixChunk, n)
			for l := range src {
				src[l] = ups[l].Shared[lo:hi]
			}
			// theta_i = ((0 + w_i0 theta_0) + w_i1 theta_1) + ...,
			// over the chunk, in place.
			vec.MixInPlace(src, w, acc[:k*(hi-lo)])
		}
	})
	out := make([]*Message, k)
	for i, u := range ups {
		out[i] = &Message{Shared: u.Shared}
	}
	return out
}

// accPool keeps mix's chunk accumulators from one round to the next.
var accPool sync.Pool

// getAcc returns an accumulator of n entries from accPool or new.
func getAcc(n int) *[]float64 {
	if a, ok := accPool.Get().(*[]float64); ok && len(*a) == n {
		return a
	}
	a := make([]float64, n)
	return &a
}
