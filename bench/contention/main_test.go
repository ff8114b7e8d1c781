package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestCmd runs the command on a small array, and checks that bad flags
// get an error naming what is allowed and status 2, with no output.
func TestCmd(t *testing.T) {
	var out, errs bytes.Buffer
	if got := cmd([]string{"-mib", "1", "-gib", "1", "-trials", "1"}, &out, &errs); got != 0 {
		t.Fatalf("status %d, stderr %q", got, errs.String())
	}
	if !strings.HasPrefix(out.String(), "contention ") || !strings.Contains(out.String(), "1 MiB each, read 1 GiB") {
		t.Errorf("output %q", out.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-mib", "0"}, "at least 1"},
		{[]string{"-trials", "-1"}, "at least 1"},
		{[]string{"-mib", "8192", "-gib", "4"}, "want at most 4096"},
		{[]string{"-mib", "x"}, "invalid value"},
	} {
		out.Reset()
		errs.Reset()
		if got := cmd(c.args, &out, &errs); got != 2 || out.Len() != 0 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: status %d, stdout %q, stderr %q; want 2, nothing, %q", c.args, got, out.String(), errs.String(), c.want)
		}
	}
}

// TestSweep checks that sweep reads every entry reps times, the tail
// beyond a multiple of four included.
func TestSweep(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 7, 1000} {
		x := make([]float64, n)
		want := 0.0
		for i := range x {
			x[i] = float64(i + 1)
			want += x[i]
		}
		if got := sweep(x, 3); got != 3*want {
			t.Errorf("sweep(%d entries, 3) = %v, want %v", n, got, 3*want)
		}
	}
}

// TestMeasure runs a small measurement: both medians are positive and the
// ratio is their quotient.
func TestMeasure(t *testing.T) {
	r := measure(1<<12, 8, 3)
	if r.one <= 0 || r.two <= 0 {
		t.Fatalf("measure: one %v, two %v, want both positive", r.one, r.two)
	}
	if got, want := r.ratio(), r.two.Seconds()/r.one.Seconds(); got != want {
		t.Errorf("ratio %v, want %v", got, want)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{[]time.Duration{3}, 3},
		{[]time.Duration{5, 1, 3}, 3},
		{[]time.Duration{4, 1, 3, 2}, 2}, // (2+3)/2 in whole nanoseconds
	} {
		if got := median(c.in); got != c.want {
			t.Errorf("median = %v, want %v", got, c.want)
		}
	}
}
