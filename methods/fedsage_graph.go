package methods

import (
	"fmt"
	"math"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/internal/vec"
	"github.com/fedaux/fedaux/sim"
	"gonum.org/v1/gonum/mat"
)

// mendWith returns the graph g (adjacency csr) mended with generated
// neighbours: row i of xg, the generator's output for node at[i] of g
// (node i when at is nil), gives its first counts[i] slots as new nodes,
// each joined to its node by an undirected edge, unlabelled (label 0, in
// no mask). The new nodes follow g's, grouped by source row in order; src
// gives the row of xg each came from.
func (c *sageClient) mendWith(g sageGraph, csr *gnn.CSR, xg *mat.Dense, counts []int, at []int) (sageGraph, []int, error) {
	n := csr.Rows
	var src []int
	for i, k := range counts {
		for range k {
			src = append(src, i)
		}
	}
	parent := func(r int) int {
		if at == nil {
			return src[r]
		}
		return at[src[r]]
	}
	children := make([][]int, n)
	for r := range src {
		p := parent(r)
		children[p] = append(children[p], n+r)
	}
	m := n + len(src)
	a := &gnn.CSR{Rows: m, Cols: m, Indptr: make([]int, m+1)}
	a.Indices = make([]int, 0, csr.NNZ()+2*len(src))
	for i := 0; i < n; i++ {
		a.Indices = append(a.Indices, csr.Indices[csr.Indptr[i]:csr.Indptr[i+1]]...)
		a.Indices = append(a.Indices, children[i]...)
		a.Indptr[i+1] = len(a.Indices)
	}
	for r := range src {
		a.Indices = append(a.Indices, parent(r))
		a.Indptr[n+r+1] = len(a.Indices)
	}
	a.Values = make([]float64, len(a.Indices))
	for i := range a.Values {
		a.Values[i] = 1
	}
	mean, err := gnn.NewMeanAdj(a)
	if err != nil {
		return sageGraph{}, nil, fmt.Errorf("mended graph: %w", err)
	}
	out := sageGraph{adj: mean, x: g.x, labels: g.labels}
	if len(src) > 0 {
		d := c.feat
		out.extra = mat.NewDense(len(src), d, nil)
		for r, i := range src {
			slot := r - firstChild(src, r)
			copy(out.extra.RawRowView(r), xg.RawRowView(i)[slot*d:(slot+1)*d])
		}
		out.labels = append(append(make([]int, 0, m), g.labels...), make([]int, len(src))...)
	}
	return out, src, nil
}

// mendedGraph rebuilds the mended full graph from its generated rows and
// their parents (a checkpoint's record).
func (c *sageClient) mendedGraph(extra *mat.Dense, parents []int) (sageGraph, error) {
	if len(parents) == 0 {
		return c.full, nil
	}
	// One generated row per slot of a pseudo generator output whose row r
	// holds generated row r in slot 0.
	counts := make([]int, len(parents))
	for r := range counts {
		counts[r] = 1
	}
	xg := mat.NewDense(len(parents), gnn.MaxPred*c.feat, nil)
	for r := range parents {
		copy(xg.RawRowView(r)[:c.feat], extra.RawRowView(r))
	}
	g, _, err := c.mendWith(c.full, sim.ToGNN(c.data.Graph.Adj), xg, counts, parents)
	return g, err
}

// selectRows returns rows of x, in order, as a feature matrix of d columns.
func selectRows(x gnn.Features, rows []int, d int) gnn.Features {
	if x.Dense != nil {
		out := mat.NewDense(max(len(rows), 1), d, nil)
		for r, i := range rows {
			copy(out.RawRowView(r), x.Dense.RawRowView(i))
		}
		return gnn.Features{Dense: out}
	}
	s := x.Sparse
	out := &gnn.CSR{Rows: len(rows), Cols: s.Cols, Indptr: make([]int, len(rows)+1)}
	for r, i := range rows {
		out.Indices = append(out.Indices, s.Indices[s.Indptr[i]:s.Indptr[i+1]]...)
		out.Values = append(out.Values, s.Values[s.Indptr[i]:s.Indptr[i+1]]...)
		out.Indptr[r+1] = len(out.Indices)
	}
	return gnn.Features{Sparse: out}
}

// featureRow sets dst to row i of x.
func featureRow(x gnn.Features, i int, dst []float64) {
	if x.Dense != nil {
		copy(dst, x.Dense.RawRowView(i))
		return
	}
	clear(dst)
	s := x.Sparse
	for k := s.Indptr[i]; k < s.Indptr[i+1]; k++ {
		dst[s.Indices[k]] = s.Values[k]
	}
}

// sageRowsOf returns the first n rows of m.
func sageRowsOf(m *mat.Dense, n int) *mat.Dense {
	r, c := m.Dims()
	if r == n {
		return m
	}
	return m.Slice(0, n, 0, c).(*mat.Dense)
}

// sageAnswerRows returns the rows of answer a of a batch of answers of r
// rows each, rows a*r .. (a+1)*r-1 of m.
func sageAnswerRows(m *mat.Dense, a, r int) *mat.Dense {
	_, c := m.Dims()
	return m.Slice(a*r, (a+1)*r, 0, c).(*mat.Dense)
}

func zeroGrads(ps []*gnn.Param) {
	for _, p := range ps {
		p.ZeroGrad()
	}
}

// finite reports a NaN or an infinity in the loss or a gradient of ps.
func (c *sageClient) finite(round, step int, loss float64, ps []*gnn.Param) error {
	bad := func(what string, v float64) error {
		return &sim.NonFiniteError{Client: c.ID, Round: round, Epoch: step + 1, What: what, Value: v}
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return bad("training loss", loss)
	}
	for _, p := range ps {
		if i := vec.FirstNonFinite(p.Grad); i >= 0 {
			return bad(fmt.Sprintf("gradient of %s entry %d", p.Name, i), p.Grad[i])
		}
	}
	return nil
}
