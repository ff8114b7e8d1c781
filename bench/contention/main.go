// Command contention measures how much the machine's two cores slow each
// other down when each streams an array of its own that fits the
// third-level cache: the time two goroutines take to read their arrays at
// once, over the time one takes alone.
//
// It prints one line:
//
//	contention 1.04 (one core 0.071 s, two 0.074 s; 16 MiB each, read 4 GiB)
//
// On the 2-core host of bench/compare.sh the figure is about 1.0 in some
// phases and 1.4-1.8 in others, each holding for seconds to minutes, as
// if the two cores shared one third-level cache and memory link in the
// second and not in the first; a float64 fedaux run, whose clients'
// weights, masks and Adam moments stream through that cache, takes more
// CPU for the same work in the second (docs/performance.md, "Where it
// stands"). bench/compare.sh runs it before each fedaux run so that its
// ratios say which phase they were measured in.
//
// Usage:
//
//	go run ./bench/contention [-mib 16] [-gib 4] [-trials 3]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"
)

func main() { os.Exit(cmd(os.Args[1:], os.Stdout, os.Stderr)) }

// cmd runs the command with the arguments after the program's name and
// returns its exit status: 0 after -h, 2 for bad flags.
func cmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("contention", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mib := fs.Int("mib", 16, "size of each goroutine's array, in MiB")
	gib := fs.Int("gib", 4, "bytes each goroutine reads in a trial, in GiB")
	trials := fs.Int("trials", 3, "trials of each kind; the medians are compared")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	switch {
	case *mib < 1 || *gib < 1 || *trials < 1:
		fmt.Fprintln(stderr, "contention: -mib, -gib and -trials want whole numbers of at least 1")
		return 2
	case *mib > *gib<<10:
		fmt.Fprintf(stderr, "contention: -mib %d is more than -gib %d reads once; want at most %d\n", *mib, *gib, *gib<<10)
		return 2
	}
	r := measure(*mib<<20/8, *gib<<30/(*mib<<20), *trials)
	fmt.Fprintf(stdout, "contention %.2f (one core %.3f s, two %.3f s; %d MiB each, read %d GiB)\n",
		r.ratio(), r.one.Seconds(), r.two.Seconds(), *mib, *gib)
	return 0
}

// result holds the median times of the trials with one goroutine and
// with two.
type result struct{ one, two time.Duration }

// ratio returns two's time over one's.
func (r result) ratio() float64 { return r.two.Seconds() / r.one.Seconds() }

// measure returns the median time that one goroutine and that two at once
// take, each summing an array of n float64 reps times, trials times each
// in turn.
func measure(n, reps, trials int) result {
	one := make([]time.Duration, trials)
	two := make([]time.Duration, trials)
	arrays := [2][]float64{ones(n), ones(n)}
	for t := range trials {
		one[t] = run(arrays[:1], reps)
		two[t] = run(arrays[:], reps)
	}
	return result{median(one), median(two)}
}

// ones returns an array of n ones, written so that its pages are mapped.
func ones(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 1
	}
	return x
}

// run sums each array reps times on a goroutine of its own, all at once,
// and returns the time until the last has finished. It panics if a sum is
// wrong, which would mean the reads were not all made.
func run(arrays [][]float64, reps int) time.Duration {
	var wg sync.WaitGroup
	sums := make([]float64, len(arrays))
	start := time.Now()
	for i, x := range arrays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[i] = sweep(x, reps)
		}()
	}
	wg.Wait()
	d := time.Since(start)
	for i, s := range sums {
		if want := float64(len(arrays[i]) * reps); s != want {
			panic(fmt.Sprintf("contention: sum %v, want %v", s, want))
		}
	}
	return d
}

// sweep returns the sum of x taken reps times, in four running sums so
// that the loads, not the additions' latency, set the pace.
//
//go:noinline
func sweep(x []float64, reps int) float64 {
	var s0, s1, s2, s3 float64
	for range reps {
		i := 0
		for ; i+4 <= len(x); i += 4 {
			s0 += x[i]
			s1 += x[i+1]
			s2 += x[i+2]
			s3 += x[i+3]
		}
		for ; i < len(x); i++ {
			s0 += x[i]
		}
	}
	return s0 + s1 + s2 + s3
}

// median returns the middle of d (the mean of the two middle ones for an
// even length); it sorts d.
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	n := len(d)
	if n%2 == 1 {
		return d[n/2]
	}
	return (d[n/2-1] + d[n/2]) / 2
}
