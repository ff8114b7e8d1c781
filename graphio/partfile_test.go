package graphio

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/internal/datadir"
)

// clientCounts are the per-client numbers of the reference partition
// cora_fedaux10.npz, as it was published with the FedAux reference code.
type clientCounts struct {
	nodes, dirEdges, train, val, test int
	labels                            map[int]int
}

var coraFedAux10 = []clientCounts{
	{244, 890, 48, 101, 95, map[int]int{3: 39, 4: 204, 5: 1}},
	{247, 864, 41, 109, 97, map[int]int{0: 139, 1: 6, 3: 29, 4: 73}},
	{241, 784, 51, 100, 90, map[int]int{0: 16, 1: 3, 2: 1, 3: 24, 4: 1, 5: 188, 6: 8}},
	{244, 854, 55, 95, 94, map[int]int{0: 52, 1: 1, 2: 2, 3: 69, 4: 34, 5: 54, 6: 32}},
	{254, 904, 48, 109, 97, map[int]int{0: 80, 1: 5, 2: 2, 3: 38, 4: 9, 5: 30, 6: 90}},
	{253, 820, 46, 100, 107, map[int]int{0: 16, 1: 12, 2: 9, 3: 194, 4: 22}},
	{253, 916, 61, 82, 110, map[int]int{0: 10, 1: 1, 2: 2, 3: 220, 4: 20}},
	{253, 1114, 44, 96, 113, map[int]int{0: 26, 1: 166, 2: 20, 3: 19, 4: 15, 5: 6, 6: 1}},
	{248, 874, 48, 106, 94, map[int]int{0: 5, 1: 10, 2: 178, 3: 48, 4: 1, 5: 6}},
	{248, 888, 55, 96, 97, map[int]int{1: 10, 2: 192, 3: 46}},
}

// partRefClients loads a partition file for the dataset graph g and builds
// its clients on g's largest connected component.
func partRefClients(t *testing.T, g *Graph, file string) (*Graph, []int, []*Client) {
	t.Helper()
	path := datadir.File(t, file)
	nodes, client, roles, err := LoadPartition(path, g)
	if err != nil {
		t.Fatal(err)
	}
	lcc, kept := LargestComponent(g)
	if !slices.Equal(nodes, kept) {
		t.Fatalf("%s: nodes differ from the largest connected component", file)
	}
	k := slices.Max(client) + 1
	clients, err := Partition(lcc, client, roles, k)
	if err != nil {
		t.Fatal(err)
	}
	return lcc, client, clients
}

func TestCoraFedAux10(t *testing.T) {
	g := loadTestDataset(t, "cora")
	lcc, _, clients := partRefClients(t, g, "cora_fedaux10.npz")
	if len(clients) != len(coraFedAux10) {
		t.Fatalf("%d clients, want %d", len(clients), len(coraFedAux10))
	}
	var sum clientCounts
	for k, c := range clients {
		checkGraphInvariants(t, c.Graph)
		tr, va, te := CountRoles(c.Roles)
		got := clientCounts{c.Graph.N(), c.Graph.Adj.NNZ(), tr, va, te, map[int]int{}}
		for _, y := range c.Graph.Labels {
			got.labels[y]++
		}
		want := coraFedAux10[k]
		if got.nodes != want.nodes || got.dirEdges != want.dirEdges || got.train != want.train ||
			got.val != want.val || got.test != want.test || !maps.Equal(got.labels, want.labels) {
			t.Errorf("client %d: got %v, want %v", k, got, want)
		}
		if c.ID != k || len(c.Nodes) != c.Graph.N() || !slices.IsSorted(c.Nodes) {
			t.Errorf("client %d: ID %d, %d node ids, sorted %v", k, c.ID, len(c.Nodes), slices.IsSorted(c.Nodes))
		}
		_, sizes := Components(c.Graph)
		wantComps := 1
		if k == 3 || k == 7 {
			wantComps = 2
		}
		if len(sizes) != wantComps || slices.Min(sizes) < 2 {
			t.Errorf("client %d: component sizes %v, want %d components and no isolated node", k, sizes, wantComps)
		}
		sum.nodes += got.nodes
		sum.dirEdges += got.dirEdges
		sum.train += tr
		sum.val += va
		sum.test += te
	}
	if got := []int{sum.nodes, sum.dirEdges, sum.train, sum.val, sum.test}; !slices.Equal(got, []int{2485, 8908, 497, 994, 994}) {
		t.Errorf("sums %v, want [2485 8908 497 994 994]", got)
	}
	if cut := lcc.Adj.NNZ() - sum.dirEdges; cut != 1230 {
		t.Errorf("%d directed edges cut, want 1230", cut)
	}
}

func TestReferencePartitions(t *testing.T) {
	cases := []struct {
		dataset, prefix  string
		cuts             [3]int // K = 5, 10, 20
		minSize, maxSize int    // K = 10
	}{
		{"cora", "cora", [3]int{403, 615, 853}, 241, 254},
		{"citeseer", "citeseer", [3]int{155, 304, 424}, 207, 217},
		{"amazon_electronics_computers", "computers", [3]int{34578, 65099, 89456}, 1299, 1378},
		{"amazon_electronics_photo", "photo", [3]int{11197, 22434, 33572}, 726, 771},
	}
	for _, c := range cases {
		for i, k := range []int{5, 10, 20} {
			file := filepath.Join("partitions", fmt.Sprintf("%s_%d.npz", c.prefix, k))
			t.Run(file, func(t *testing.T) {
				g := loadTestDataset(t, c.dataset)
				lcc, client, clients := partRefClients(t, g, file)
				if len(clients) != k {
					t.Fatalf("%d clients, want %d", len(clients), k)
				}
				kept, sizes := 0, []int{}
				var train, val, test int
				for _, cl := range clients {
					kept += cl.Graph.NumEdges()
					sizes = append(sizes, cl.Graph.N())
					tr, va, te := CountRoles(cl.Roles)
					train, val, test = train+tr, val+va, test+te
				}
				if cut := lcc.NumEdges() - kept; cut != c.cuts[i] {
					t.Errorf("edge cut %d, want %d", cut, c.cuts[i])
				}
				if cut := EdgeCut(lcc, client); cut != c.cuts[i] {
					t.Errorf("EdgeCut = %d, want %d", cut, c.cuts[i])
				}
				if k == 10 && (slices.Min(sizes) != c.minSize || slices.Max(sizes) != c.maxSize) {
					t.Errorf("client sizes %d..%d, want %d..%d", slices.Min(sizes), slices.Max(sizes), c.minSize, c.maxSize)
				}
				n := lcc.N()
				wantTrain, wantTest := SplitSizes(n, DefaultTrainFrac, DefaultTestFrac)
				if train != wantTrain || test != wantTest || val != n-wantTrain-wantTest {
					t.Errorf("split %d/%d/%d, want %d/%d/%d", train, val, test, wantTrain, n-wantTrain-wantTest, wantTest)
				}
			})
		}
	}
}

func TestCora10MatchesFixture(t *testing.T) {
	g := loadTestDataset(t, "cora")
	n1, c1, r1, err := LoadPartition(datadir.File(t, "cora_fedaux10.npz"), g)
	if err != nil {
		t.Fatal(err)
	}
	n2, c2, r2, err := LoadPartition(datadir.File(t, filepath.Join("partitions", "cora_10.npz")), g)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n1, n2) || !slices.Equal(c1, c2) || !slices.Equal(r1, r2) {
		t.Error("partitions/cora_10.npz differs from cora_fedaux10.npz")
	}
}

func TestLoadPartitionBadInput(t *testing.T) {
	base := &Graph{Name: "five", Adj: &CSR{Rows: 5, Cols: 5, Indptr: make([]int, 6)}}
	good := []npzMember{
		{name: "nodes.npy", val: []int64{0, 1, 3, 4}},
		{name: "client.npy", val: []int64{0, 1, 1, 0}},
		{name: "split.npy", val: []int8{0, 1, 2, 2}},
	}
	t.Run("good", func(t *testing.T) {
		path := writeNPZ(t, "part.npz", false, good)
		nodes, client, roles, err := LoadPartition(path, base)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(nodes, []int{0, 1, 3, 4}) || !slices.Equal(client, []int{0, 1, 1, 0}) ||
			!slices.Equal(roles, []Role{Train, Val, Test, Test}) {
			t.Errorf("got %v %v %v", nodes, client, roles)
		}
	})
	cases := []struct {
		name    string
		members []npzMember
		want    string
	}{
		{"missing split", replaceMember(good, "split.npy", nil), `missing key "split"`},
		{"not ascending", replaceMember(good, "nodes.npy", &npzMember{name: "nodes.npy", val: []int64{0, 3, 1, 4}}),
			"not strictly ascending at index 2"},
		{"repeated node", replaceMember(good, "nodes.npy", &npzMember{name: "nodes.npy", val: []int64{0, 1, 1, 4}}),
			"not strictly ascending"},
		{"node out of range", replaceMember(good, "nodes.npy", &npzMember{name: "nodes.npy", val: []int64{0, 1, 3, 5}}),
			`nodes[3] = 5 out of range [0,5) of graph "five"`},
		{"negative node", replaceMember(good, "nodes.npy", &npzMember{name: "nodes.npy", val: []int64{-1, 1, 3, 4}}),
			"out of range"},
		{"lengths", replaceMember(good, "client.npy", &npzMember{name: "client.npy", val: []int64{0, 1, 1}}),
			"lengths differ: nodes 4, client 3, split 4"},
		{"empty client", replaceMember(good, "client.npy", &npzMember{name: "client.npy", val: []int64{0, 2, 2, 0}}),
			"client 1 of 3 has no node"},
		{"negative client", replaceMember(good, "client.npy", &npzMember{name: "client.npy", val: []int64{0, -1, 1, 0}}),
			"client[1] = -1"},
		{"bad split", replaceMember(good, "split.npy", &npzMember{name: "split.npy", val: []int8{0, 1, 3, 2}}),
			"split[2] = 3"},
		{"negative split", replaceMember(good, "split.npy", &npzMember{name: "split.npy", val: []int8{0, -1, 2, 2}}),
			"split[1] = -1"},
		{"float split", replaceMember(good, "split.npy", &npzMember{name: "split.npy", val: []float32{0, 1, 2, 2}}),
			"want an integer dtype"},
		{"empty", []npzMember{{name: "nodes.npy", val: []int64{}}, {name: "client.npy", val: []int64{}},
			{name: "split.npy", val: []int8{}}}, "no nodes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeNPZ(t, "part.npz", false, c.members)
			wantErr(t, path, c.want, func() error { _, _, _, err := LoadPartition(path, base); return err })
		})
	}
}
