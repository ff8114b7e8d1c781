package study

import (
	"context"
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
