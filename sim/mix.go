package sim

import (
	"sync"

	"github.com/fedaux/fedaux/internal/vec"
)

// mixChunk is the number of parameter entries mixed at a time: small
// enough that one chunk of every client stays in cache.
const mixChunk = 4096

// mix returns each client's message for the next round: theta_k =
// sum_l w_kl theta_l over the shared parameters (Eq. 6), summed in client
// order so the result does not depend on the number of workers. A nil w
// means no communication. The messages of reuse, when it has one per
// client of the right size, are overwritten instead of allocating anew.
func mix(ups []*Update, w [][]float64, workers int, reuse []*Message) []*Message {
	if w == nil {
		return nil
	}
	k := len(ups)
	n := len(ups[0].Shared)
	out := reuse
	if len(out) != k || len(out[0].Shared) != n {
		out = make([]*Message, k)
		for i := range out {
			out[i] = &Message{Shared: make([]float64, n)}
		}
	}
	chunks := make(chan int)
	var wg sync.WaitGroup
	for g := 0; g < max(1, workers); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := make([][]float64, k)
			for lo := range chunks {
				hi := min(lo+mixChunk, n)
				for l := range src {
					src[l] = ups[l].Shared[lo:hi]
				}
				for i := 0; i < k; i++ {
					// out_i = ((0 + w_i0 theta_0) + w_i1 theta_1) + ..., in
					// one pass, which overwrites what reuse held.
					vec.ScaledSum(out[i].Shared[lo:hi], w[i], src)
				}
			}
		}()
	}
	for lo := 0; lo < n; lo += mixChunk {
		chunks <- lo
	}
	close(chunks)
	wg.Wait()
	return out
}
