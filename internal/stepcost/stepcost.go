package stepcost

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"time"
)

// Result is the cost of a step.
type Result struct {
	Reps int // timed repetitions
	// Median, Q1 and Q3 are the median and quartiles of the repetitions'
	// wall times (Go's monotonic clock); IQR is Q3 - Q1.
	Median, Q1, Q3 time.Duration
	// Peak is the largest heap growth over a run of the step with the
	// collector off: max(HeapAlloc) - HeapAlloc after a collection just
	// before it, sampled every 100 µs and once at the end.
	Peak int64
	// Allocated is the bytes the step allocated in one run (TotalAlloc delta).
	Allocated int64
}

// IQR returns the interquartile range of the times.
func (r Result) IQR() time.Duration { return r.Q3 - r.Q1 }

// Time runs step warm times, then reps times under the clock, and returns
// the median and quartiles (Peak and Allocated are left zero).
func Time(step func(), warm, reps int) Result {
	for range warm {
		step()
	}
	ts := make([]time.Duration, reps)
	for i := range ts {
		start := time.Now()
		step()
		ts[i] = time.Since(start)
	}
	slices.Sort(ts)
	return Result{Reps: reps, Median: quantile(ts, 0.5), Q1: quantile(ts, 0.25), Q3: quantile(ts, 0.75)}
}

// quantile interpolates linearly between the order statistics of sorted ts.
func quantile(ts []time.Duration, q float64) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	x := q * float64(len(ts)-1)
	i := int(x)
	if i+1 >= len(ts) {
		return ts[len(ts)-1]
	}
	f := x - float64(i)
	return ts[i] + time.Duration(f*float64(ts[i+1]-ts[i]))
}

// heapObjects is runtime/metrics' name for HeapAlloc.
const heapObjects = "/memory/classes/heap/objects:bytes"

// Memory runs step reps times, each after a collection and with the
// collector off, and returns the largest Peak and Allocated seen (Times
// are left zero).
func Memory(step func(), reps int) Result {
	var out Result
	for range reps {
		peak, alloc := memoryOnce(step)
		out.Peak, out.Allocated = max(out.Peak, peak), max(out.Allocated, alloc)
	}
	return out
}

func memoryOnce(step func()) (peak, allocated int64) {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, total := int64(ms.HeapAlloc), ms.TotalAlloc
	stop, done := make(chan struct{}), make(chan int64)
	go func() {
		s := []metrics.Sample{{Name: heapObjects}}
		var hi int64
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			hi = max(hi, int64(s[0].Value.Uint64()))
			select {
			case <-stop:
				done <- hi
				return
			case <-tick.C:
			}
		}
	}()
	step()
	runtime.ReadMemStats(&ms) // the end of the step: with no collection, the heap's largest
	close(stop)
	hi := max(<-done, int64(ms.HeapAlloc))
	return max(0, hi-base), int64(ms.TotalAlloc - total)
}
