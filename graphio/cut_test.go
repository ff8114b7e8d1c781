package graphio

import (
	"slices"
	"testing"
)

// TestPartitionCutEdges checks that Partition keeps every client's cut
// edges, by local node then remote id, each cut edge once per side.
func TestPartitionCutEdges(t *testing.T) {
	g := smallTestGraph(6, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}, {0, 3}}, false)
	assign := []int{1, 1, 0, 0, 1, 0}
	clients, err := Partition(g, assign, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Client 0 holds 2, 3, 5 (local 0, 1, 2); client 1 holds 0, 1, 4.
	want := [][]CutEdge{
		{{0, 1}, {1, 0}, {1, 4}, {2, 0}, {2, 4}},
		{{0, 3}, {0, 5}, {1, 2}, {2, 3}, {2, 5}},
	}
	for c, cl := range clients {
		if !slices.Equal(cl.Cut, want[c]) {
			t.Errorf("client %d: cut edges %v, want %v", c, cl.Cut, want[c])
		}
	}
	if n := len(clients[0].Cut) + len(clients[1].Cut); n != 2*EdgeCut(g, assign) {
		t.Errorf("%d cut edge ends, want twice the edge cut %d", n, EdgeCut(g, assign))
	}
	if c := Induced(g, []int{1, 2}, nil, 7); c.Cut != nil {
		t.Errorf("Induced alone keeps cut edges %v", c.Cut)
	}
}
