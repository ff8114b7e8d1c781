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
