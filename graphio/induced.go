package graphio

import (
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// Subgraph returns the subgraph of g induced by nodes: local node i is
// g's node nodes[i]; edges with an end outside nodes are dropped; feature
// rows (sparse or dense) and labels are copied; Name and NumClasses are
// kept. The result shares no memory with g. nodes may be in any order
// (ascending keeps the original relative order, as PyG's subgraph does);
// columns of the result are sorted. It panics if a node is out of range or
// repeated.
func Subgraph(g *Graph, nodes []int) *Graph {
	n := g.N()
	pos := make([]int, n)
	for i := range pos {
		pos[i] = -1
	}
	for i, u := range nodes {
		if u < 0 || u >= n {
			panic(fmt.Sprintf("graphio: Subgraph: node %d out of range [0,%d)", u, n))
		}
		if pos[u] >= 0 {
			panic(fmt.Sprintf("graphio: Subgraph: node %d repeated", u))
		}
		pos[u] = i
	}
	ascending := slices.IsSorted(nodes)
	m := len(nodes)
	adj := &CSR{Rows: m, Cols: m, Indptr: make([]int, m+1)}
	for i, u := range nodes {
		cols, _ := g.Adj.Row(u)
		start := len(adj.Indices)
		for _, v := range cols {
			if p := pos[v]; p >= 0 {
				adj.Indices = append(adj.Indices, p)
			}
		}
		if !ascending {
			slices.Sort(adj.Indices[start:])
		}
		adj.Indptr[i+1] = len(adj.Indices)
	}
	if adj.Indices == nil {
		adj.Indices = []int{}
	}
	adj.Values = make([]float64, len(adj.Indices))
	for k := range adj.Values {
		adj.Values[k] = 1
	}
	sub := &Graph{Name: g.Name, Adj: adj, NumClasses: g.NumClasses}
	if g.Labels != nil {
		sub.Labels = make([]int, m)
		for i, u := range nodes {
			sub.Labels[i] = g.Labels[u]
		}
	}
	switch {
	case g.Dense != nil:
		_, f := g.Dense.Dims()
		if m > 0 && f > 0 {
			d := mat.NewDense(m, f, nil)
			for i, u := range nodes {
				d.SetRow(i, g.Dense.RawRowView(u))
			}
			sub.Dense = d
		} else {
			// mat.NewDense rejects empty matrices; keep an empty sparse one.
			sub.Features = &CSR{Rows: m, Cols: f, Indptr: make([]int, m+1), Indices: []int{}, Values: []float64{}}
		}
	case g.Features != nil:
		sub.Features = rowsCSR(g.Features, nodes)
	}
	return sub
}

// rowsCSR returns the rows of c listed in rows, in that order.
func rowsCSR(c *CSR, rows []int) *CSR {
	nnz := 0
	for _, u := range rows {
		nnz += c.Indptr[u+1] - c.Indptr[u]
	}
	out := &CSR{Rows: len(rows), Cols: c.Cols, Indptr: make([]int, len(rows)+1),
		Indices: make([]int, 0, nnz), Values: make([]float64, 0, nnz)}
	for i, u := range rows {
		cols, vals := c.Row(u)
		out.Indices = append(out.Indices, cols...)
		out.Values = append(out.Values, vals...)
		out.Indptr[i+1] = len(out.Indices)
	}
	return out
}

// Induced returns client id's induced subgraph of g on nodes (see
// Subgraph; pass them ascending to keep the global order, as the reference
// code does): edges to other clients are dropped, features and labels are
// restricted, local ids are 0..len(nodes)-1 and Client.Nodes is a copy of
// nodes. roles holds a role per node of g (not per local node); the
// client's Roles are roles[nodes[i]]. roles may be nil, and then
// Client.Roles is nil. The graph is named "NAME/client ID". It panics on
// nodes out of range or repeated, or roles of the wrong length.
func Induced(g *Graph, nodes []int, roles []Role, id int) *Client {
	if roles != nil && len(roles) != g.N() {
		panic(fmt.Sprintf("graphio: Induced: %d roles for %d nodes", len(roles), g.N()))
	}
	sub := Subgraph(g, nodes)
	sub.Name = g.Name + "/client " + strconv.Itoa(id)
	c := &Client{ID: id, Graph: sub, Nodes: slices.Clone(nodes)}
	if roles != nil {
		c.Roles = make([]Role, len(nodes))
		for i, u := range nodes {
			c.Roles[i] = roles[u]
		}
	}
	return c
}

// Partition splits g into k clients: client c gets the nodes u with
// assign[u] == c, in ascending order, and its induced subgraph (see
// Induced). roles is one role per node of g, or nil. It returns an error if
// assign or roles do not have one entry per node, an assignment is outside
// [0,k), k is not in [1, N] or a client is empty.
func Partition(g *Graph, assign []int, roles []Role, k int) ([]*Client, error) {
	n := g.N()
	if k < 1 {
		return nil, fmt.Errorf("graphio: Partition: %d clients, want at least 1", k)
	}
	if k > n {
		return nil, fmt.Errorf("graphio: Partition: %d clients for %d nodes", k, n)
	}
	if len(assign) != n {
		return nil, fmt.Errorf("graphio: Partition: %d assignments for %d nodes", len(assign), n)
	}
	if roles != nil && len(roles) != n {
		return nil, fmt.Errorf("graphio: Partition: %d roles for %d nodes", len(roles), n)
	}
	members := make([][]int, k)
	for u, c := range assign {
		if c < 0 || c >= k {
			return nil, fmt.Errorf("graphio: Partition: node %d assigned to client %d, want [0,%d)", u, c, k)
		}
		members[c] = append(members[c], u)
	}
	for c, m := range members {
		if len(m) == 0 {
			return nil, fmt.Errorf("graphio: Partition: client %d of %d is empty", c, k)
		}
	}
	for _, r := range roles {
		if r != Train && r != Val && r != Test {
			return nil, fmt.Errorf("graphio: Partition: invalid role %d", r)
		}
	}
	clients := make([]*Client, k)
	for c, m := range members {
		clients[c] = Induced(g, m, roles, c)
		clients[c].Cut = cutEdges(g, assign, m, c)
	}
	return clients, nil
}

// cutEdges returns the edges of g from the nodes of client c (members,
// ascending) to nodes assigned to another client, by local id then by
// remote id (g's columns are sorted).
func cutEdges(g *Graph, assign, members []int, c int) []CutEdge {
	var cut []CutEdge
	for i, u := range members {
		cols, _ := g.Adj.Row(u)
		for _, v := range cols {
			if assign[v] != c {
				cut = append(cut, CutEdge{Local: i, Remote: v})
			}
		}
	}
	return cut
}

// EdgeCut returns the number of undirected edges of g whose ends are
// assigned to different clients (assign has one entry per node).
func EdgeCut(g *Graph, assign []int) int {
	cut := 0
	for u := range g.N() {
		cols, _ := g.Adj.Row(u)
		for _, v := range cols {
			if u < v && assign[u] != assign[v] {
				cut++
			}
		}
	}
	return cut
}
