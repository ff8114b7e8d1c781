package cputime

import "testing"

func BenchmarkSpin(b *testing.B) {
	stop := Start(b)
	var s float64
	for b.Loop() {
		for i := range 100000 {
			s += float64(i)
		}
	}
	stop()
	b.Logf("N=%d", b.N)
	_ = s
}

func TestStartWithoutBenchmark(t *testing.T) {
	res := testing.Benchmark(func(b *testing.B) {
		stop := Start(b)
		for b.Loop() {
		}
		stop()
	})
	if res.N == 0 {
		t.Fatal("no iterations")
	}
}
