package study

import (
	"context"
	"strings"
	"testing"
)

// TestShardsShareNoRun: cells that share a key (a sweep's FedAvg at
// every alpha) are one run, computed by one shard: the shards took cells
// by position, so that each shard holding one of them computed it.
func TestShardsShareNoRun(t *testing.T) {
	cs := cells(4)
	same := func(c *Cell) *Cell {
		d := *c
		d.Labels = map[string]string{"i": "again"}
		return &d
	}
	cs = []*Cell{cs[0], same(cs[0]), cs[1], cs[2], same(cs[2]), cs[3]} // 6 cells, 4 runs
	ran, mine := map[string]int{}, 0
	for i := range 3 {
		s := Shard{Index: i, Count: 3}
		done := &finished{}
		st, err := (&Runner{Shard: s, Recorder: done}).Run(context.Background(), cs)
		if err != nil {
			t.Fatal(err)
		}
		mine += st.Mine
		for _, k := range done.keys {
			ran[k]++
		}
	}
	if len(ran) != 4 || mine != 6 {
		t.Errorf("%d runs computed, %d cells owned; want 4 and 6", len(ran), mine)
	}
	for k, n := range ran {
		if n != 1 {
			t.Errorf("run %s computed by %d shards", k, n)
		}
	}
}

// finished records the keys of the cells stored.
type finished struct {
	Nop
	keys []string
}

func (f *finished) Finish(_, _ int, _ *Cell, r *Record) { f.keys = append(f.keys, r.Key) }

// TestPlanSharedRuns: a fresh study whose cells share runs says so; it
// said they were already in the store.
func TestPlanSharedRuns(t *testing.T) {
	cs := cells(2)
	again := *cs[0]
	cs = append(cs, &again)
	var b strings.Builder
	st, err := (&Runner{Recorder: &Lines{W: &b, Prefix: "sweep: "}}).Run(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reused != 0 || st.Shared != 1 || st.Ran != 2 {
		t.Errorf("%+v: want 0 reused, 1 shared, 2 run", st)
	}
	if want := "sweep: 3 cells, 0 already, 1 shares a run with another cell, 2 to run\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("plan %q, want %q", b.String(), want)
	}
}
