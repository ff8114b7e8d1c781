package graphio

import "fmt"

// LoadPartition reads a reference partition file (cora_fedaux10.npz or
// partitions/<dataset>_<K>.npz): the member nodes (indices into base, the
// graph of the dataset file, strictly ascending: the largest connected
// component), client (the client of nodes[i], 0..K-1) and split (the role
// of nodes[i]: 0 train, 1 val, 2 test). Any integer dtype is accepted; the
// files use <i8, <i8 and |i1.
//
// client and roles are indexed like nodes, which is also the local order of
// Subgraph(base, nodes), so Partition(Subgraph(base, nodes), client, roles,
// K) builds the clients. K is the largest client id plus one; every client
// 0..K-1 must have a node. Errors name the file and the problem.
func LoadPartition(path string, base *Graph) (nodes []int, client []int, roles []Role, err error) {
	nodes, client, roles, err = loadPartition(path, base)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("graphio: %s: %w", path, err)
	}
	return nodes, client, roles, nil
}

// LoadPartitionBytes is LoadPartition on the content of a partition file
// (one embedded in the program); name names it in errors.
func LoadPartitionBytes(name string, data []byte, base *Graph) (nodes []int, client []int, roles []Role, err error) {
	a, err := openNPZBytes(data)
	if err == nil {
		nodes, client, roles, err = readPartition(a, base)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("graphio: %s: %w", name, err)
	}
	return nodes, client, roles, nil
}

func loadPartition(path string, base *Graph) ([]int, []int, []Role, error) {
	a, err := openNPZ(path)
	if err != nil {
		return nil, nil, nil, err
	}
	return readPartition(a, base)
}

func readPartition(a *npzArchive, base *Graph) ([]int, []int, []Role, error) {
	defer a.Close()
	nodes, err := a.ints("nodes")
	if err != nil {
		return nil, nil, nil, err
	}
	client, err := a.ints("client")
	if err != nil {
		return nil, nil, nil, err
	}
	split, err := a.ints("split")
	if err != nil {
		return nil, nil, nil, err
	}
	if len(client) != len(nodes) || len(split) != len(nodes) {
		return nil, nil, nil, fmt.Errorf("lengths differ: nodes %d, client %d, split %d", len(nodes), len(client), len(split))
	}
	if len(nodes) == 0 {
		return nil, nil, nil, fmt.Errorf("no nodes")
	}
	n := base.N()
	for i, u := range nodes {
		if u < 0 || u >= n {
			return nil, nil, nil, fmt.Errorf("nodes[%d] = %d out of range [0,%d) of graph %q", i, u, n, base.Name)
		}
		if i > 0 && u <= nodes[i-1] {
			return nil, nil, nil, fmt.Errorf("nodes not strictly ascending at index %d (%d after %d)", i, u, nodes[i-1])
		}
	}
	k := 0
	for i, c := range client {
		if c < 0 || c >= len(nodes) {
			return nil, nil, nil, fmt.Errorf("client[%d] = %d, want a client index from 0 to %d (the clients are numbered from 0, and there are at most as many as the %d nodes)", i, c, len(nodes)-1, len(nodes))
		}
		k = max(k, c+1)
	}
	size := make([]int, k)
	for _, c := range client {
		size[c]++
	}
	for c, s := range size {
		if s == 0 {
			return nil, nil, nil, fmt.Errorf("client %d of %d has no node", c, k)
		}
	}
	roles := make([]Role, len(split))
	for i, s := range split {
		if s != int(Train) && s != int(Val) && s != int(Test) {
			return nil, nil, nil, fmt.Errorf("split[%d] = %d, want 0 (train), 1 (val) or 2 (test)", i, s)
		}
		roles[i] = Role(s)
	}
	return nodes, client, roles, nil
}
