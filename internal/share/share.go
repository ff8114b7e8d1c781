// Package share hands numbered tasks out to goroutines that claim them
// themselves: the worker pools of the engine (the clients of a round,
// the server's mixing) and of the fast Gauss transform.
package share

import (
	"iter"
	"sync"
	"sync/atomic"
)

// Out runs work on at most workers goroutines, the caller's among them
// (none when n is 0), and returns when every one has returned. Each work
// ranges over tasks, which yields the numbers 0, 1, ..., n-1 that are
// left, in increasing order: a goroutine that ends a task takes the next
// itself, instead of waiting for another goroutine to hand it over,
// which costs a thread woken at every handoff (tens of microseconds on a
// virtual machine). A work keeps its own scratch memory in its closure:
// one a goroutine.
func Out(n, workers int, work func(tasks iter.Seq[int])) {
	var next atomic.Int64
	tasks := func(yield func(int) bool) {
		for {
			k := int(next.Add(1) - 1)
			if k >= n || !yield(k) {
				return
			}
		}
	}
	var wg sync.WaitGroup
	for range min(max(1, workers), n) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(tasks)
		}()
	}
	if n > 0 {
		work(tasks)
	}
	wg.Wait()
}
