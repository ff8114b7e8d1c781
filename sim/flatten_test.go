package sim

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/internal/vec"
)

// TestFlattenChecks: Client.flatten copies the shared parameters in
// layout order and reports the first non-finite entry as a second pass
// over the copy would, wherever it lies: within or across the chunks it
// checks, in any parameter, with another after it.
func TestFlattenChecks(t *testing.T) {
	sizes := []int{3, 2*flattenChunk + 5, 1, flattenChunk}
	total := 0
	for _, n := range sizes {
		total += n
	}
	for _, bad := range [][]int{nil, {0}, {4}, {3 + flattenChunk - 1}, {3 + flattenChunk}, {3 + 2*flattenChunk + 4, 9}, {total - 1}, {total - flattenChunk - 1, total - 1}} {
		c := &Client{}
		off := 0
		for i, n := range sizes {
			p := &gnn.Param{Name: string(rune('a' + i)), Rows: 1, Cols: n, Value: make([]float64, n)}
			for j := range p.Value {
				p.Value[j] = float64(off + j)
			}
			c.shared = append(c.shared, p)
			off += n
		}
		for k, i := range bad {
			v := math.NaN()
			if k > 0 {
				v = math.Inf(-1)
			}
			for _, p := range c.shared {
				if i < len(p.Value) {
					p.Value[i] = v
					break
				}
				i -= len(p.Value)
			}
		}
		want := flattenInto(nil, c.shared)
		for round := range 2 { // the second reuses the buffer
			got, i := c.flatten()
			if len(got) != len(want) {
				t.Fatalf("bad %v, round %d: %d entries, want %d", bad, round, len(got), len(want))
			}
			for j := range want {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("bad %v, round %d: entry %d is %v, want %v", bad, round, j, got[j], want[j])
				}
			}
			if w := vec.FirstNonFinite(want); i != w {
				t.Errorf("bad %v, round %d: first non-finite %d, want %d", bad, round, i, w)
			}
		}
	}
}

// TestClientTakesMixedUpload: a client whose message is its own last
// update, mixed in place by the server, takes that vector as its shared
// parameters' storage, with the values a copy would give, and keeps its
// old storage for the next update; any other vector is copied.
func TestClientTakesMixedUpload(t *testing.T) {
	e, err := New(smallConfig("fedavg"), smallData(t, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := e.runners[0].(*Client)
	msg := e.pending[0].Shared
	if &msg[0] != &c.upBuf[0] {
		t.Fatal("the message is not the client's mixed update")
	}
	want := slices.Clone(msg)
	old := &c.params[0]
	c.take(msg)
	if got := flattenInto(nil, c.shared); !slices.Equal(got, want) {
		t.Fatal("the shared parameters are not the message's values")
	}
	if &c.shared[0].Value[0] != &msg[0] || &c.params[0] != &msg[0] {
		t.Error("the client copied its mixed update instead of taking it")
	}
	if &c.upBuf[:1][0] != old {
		t.Error("the client's old storage is not kept for its next update")
	}
	other := slices.Clone(want)
	other[0]++
	c.take(other)
	if &c.shared[0].Value[0] != &msg[0] || c.shared[0].Value[0] != other[0] {
		t.Error("a vector that is not the client's update was not copied")
	}
	if _, err := e.Step(context.Background()); err != nil { // the swapped client trains on
		t.Fatal(err)
	}
}
