package stepcost

import (
	"testing"
	"time"
)

var sink [][]byte

func TestMemorySeesTheAllocation(t *testing.T) {
	const n = 8 << 20
	r := Memory(func() {
		sink = append(sink[:0], make([]byte, n))
		sink = sink[:0]
	}, 3)
	if r.Peak < n || r.Peak > 2*n {
		t.Errorf("peak %d bytes, want about %d", r.Peak, n)
	}
	if r.Allocated < n {
		t.Errorf("allocated %d bytes, want >= %d", r.Allocated, n)
	}
}

func TestTimeQuartiles(t *testing.T) {
	r := Time(func() { time.Sleep(time.Millisecond) }, 1, 9)
	if r.Reps != 9 || r.Median < time.Millisecond || r.Q1 > r.Median || r.Q3 < r.Median {
		t.Errorf("result %+v: want median >= 1ms and Q1 <= median <= Q3", r)
	}
	ts := []time.Duration{1, 2, 3, 4, 5}
	if q := quantile(ts, 0.25); q != 2 {
		t.Errorf("Q1 of 1..5 = %v, want 2", q)
	}
}
