package partition_test

import (
	"fmt"

	"github.com/fedaux/fedaux/partition"
)

func ExampleMultilevel() {
	// Two triangles, 0-1-2 and 3-4-5, joined by the edge 2-3.
	g := partition.Graph{
		Indptr:  []int{0, 2, 4, 7, 10, 12, 14},
		Indices: []int{1, 2, 0, 2, 0, 1, 3, 2, 4, 5, 3, 5, 3, 4},
	}
	part, err := partition.Multilevel(g, 2, partition.MultilevelOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(part[0] == part[1] && part[1] == part[2], part[3] == part[4] && part[4] == part[5], part[2] != part[3])
	// Output: true true true
}

func ExampleLouvain() {
	// Two triangles, 0-1-2 and 3-4-5, joined by the edge 2-3.
	g := partition.Graph{
		Indptr:  []int{0, 2, 4, 7, 10, 12, 14},
		Indices: []int{1, 2, 0, 2, 0, 1, 3, 2, 4, 5, 3, 5, 3, 4},
	}
	// OpenFGL's default slack (Delta 20) would cut these tiny communities
	// into single nodes; a negative Delta keeps communities of up to n/k
	// nodes whole.
	part, err := partition.Louvain(g, 2, partition.LouvainOptions{Seed: 1, Delta: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(part)
	fmt.Println("edge cut:", partition.EdgeCut(g, part), "imbalance:", partition.Imbalance(part, 2))
	// Output:
	// [0 0 0 1 1 1]
	// edge cut: 1 imbalance: 0
}

func ExampleRandom() {
	part, err := partition.Random(10, 3, 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	sizes := make([]int, 3)
	for _, p := range part {
		sizes[p]++
	}
	fmt.Println(sizes)
	// Output: [4 3 3]
}
