package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/fedaux/fedaux/gnn"
	"gonum.org/v1/gonum/mat"
)

// signatures computes the signature vectors of want after training (the
// model's last forward being the evaluation one); those the model cannot
// give (the APV's without kernel; apv-delta when the client has not run
// a round since it was restored from a checkpoint) are left out.
func (c *Client) signatures(want []Source) map[Source][]float64 {
	sig := map[Source][]float64{}
	apv := c.model.Param("apv")
	for _, s := range want {
		switch {
		case s == SourceAPV && apv != nil:
			sig[s] = append([]float64(nil), apv.Value...)
		case s == SourceAPVDelta && apv != nil && len(c.apvStart) == len(apv.Value): // not after a resume (Complete)
			sig[s] = difference(apv.Value, c.apvStart)
		case s == SourcePC1:
			sig[s] = leadingEigenvector(c.model.Embeddings())
		case s == SourceReadout:
			if w := c.model.Param("cls.weight"); w != nil {
				sig[s] = append([]float64(nil), w.Value...)
			}
		}
	}
	// Last, since it overwrites the layers' buffers.
	if slices.Contains(want, SourceFunctional) && c.proxy != nil {
		sig[SourceFunctional] = FunctionalSignature(c.model, *c.proxy)
	}
	return sig
}

// leadingEigenvector returns the unit leading eigenvector of the
// covariance of the rows of h, by power iteration from a fixed start, with
// its sign fixed so that its largest-magnitude entry is positive.
func leadingEigenvector(h *mat.Dense) []float64 {
	n, d := h.Dims()
	mean := MeanRows(h)
	centred := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		row, src := centred.RawRowView(i), h.RawRowView(i)
		for j := range row {
			row[j] = src[j] - mean[j]
		}
	}
	v := make([]float64, d)
	for j := range v {
		v[j] = 1 + 0.01*float64(j%7)
	}
	normalize(v)
	tmp := make([]float64, n)
	next := make([]float64, d)
	vv, tv, nv := mat.NewVecDense(d, v), mat.NewVecDense(n, tmp), mat.NewVecDense(d, next)
	for it := 0; it < 500; it++ {
		tv.MulVec(centred, vv)     // X v
		nv.MulVec(centred.T(), tv) // X^T X v
		if normalize(next) == 0 {
			break
		}
		var change float64
		for j := range v {
			change = math.Max(change, math.Abs(next[j]-v[j]))
		}
		copy(v, next)
		if change < 1e-12 {
			break
		}
	}
	big := 0
	for j := range v {
		if math.Abs(v[j]) > math.Abs(v[big]) {
			big = j
		}
	}
	if v[big] < 0 {
		for j := range v {
			v[j] = -v[j]
		}
	}
	return v
}

func normalize(v []float64) float64 {
	n := math.Sqrt(dot(v, v))
	if n > 0 {
		for i := range v {
			v[i] /= n
		}
	}
	return n
}

// views returns the client similarity matrix of every signature the
// updates carry: cosine, or absolute cosine for pc1 (an eigenvector's sign
// is arbitrary).
func views(ups []*Update) map[Source][][]float64 {
	out := map[Source][][]float64{}
	var names []Source
	for name := range ups[0].Signatures {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		vs := make([][]float64, len(ups))
		for i, u := range ups {
			vs[i] = u.Signatures[name]
		}
		m := cosineMatrix(vs)
		if name == SourcePC1 {
			for i := range m {
				for j := range m[i] {
					m[i][j] = math.Abs(m[i][j])
				}
			}
		}
		out[name] = m
	}
	return out
}

// proxyGraph builds FED-PUB's proxy graph: blocks disconnected
// Erdos-Renyi graphs of size nodes each with edge probability p, and
// N(0, 1) features of dimension f.
func proxyGraph(rng *rand.Rand, blocks, size int, p float64, f int) (*gnn.Input, error) {
	n := blocks * size
	adj := make([][]int, n)
	for b := 0; b < blocks; b++ {
		for i := 0; i < size; i++ {
			for j := i + 1; j < size; j++ {
				if rng.Float64() < p {
					u, v := b*size+i, b*size+j
					adj[u] = append(adj[u], v)
					adj[v] = append(adj[v], u)
				}
			}
		}
	}
	csr := &gnn.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	for i, nb := range adj {
		sort.Ints(nb)
		csr.Indices = append(csr.Indices, nb...)
		csr.Indptr[i+1] = len(csr.Indices)
	}
	csr.Values = make([]float64, len(csr.Indices))
	for i := range csr.Values {
		csr.Values[i] = 1
	}
	prop, err := gnn.NewPropagator(csr)
	if err != nil {
		return nil, fmt.Errorf("proxy graph: %w", err)
	}
	x := mat.NewDense(n, f, nil)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	return &gnn.Input{Prop: prop, X: gnn.Features{Dense: x}}, nil
}

// HeadSignatures sets up.Signatures, after a round's evaluation forward
// pass, to the signatures msg asks for that a model with an APV head can
// give, as the shared Client computes them: SourceAPV (apv),
// SourceAPVDelta (apv - start, when start is the APV the round started
// from) and SourcePC1 (the leading eigenvector of h, the embeddings the
// kernel read); with msg.Alignment, it sets up's alignment of apv and of
// init, the run's initial APV, with that eigenvector. FedSage+APV's
// clients use it.
func HeadSignatures(msg *Message, up *Update, apv, start, init []float64, h *mat.Dense) {
	up.Signatures = map[Source][]float64{}
	var pc1 []float64
	eigen := func() []float64 {
		if pc1 == nil {
			pc1 = leadingEigenvector(h)
		}
		return pc1
	}
	for _, s := range msg.Signatures {
		switch {
		case s == SourceAPV:
			up.Signatures[s] = append([]float64(nil), apv...)
		case s == SourceAPVDelta && len(start) == len(apv):
			up.Signatures[s] = difference(apv, start)
		case s == SourcePC1:
			up.Signatures[s] = append([]float64(nil), eigen()...)
		}
	}
	if msg.Alignment {
		setAlignment(up, apv, init, eigen())
	}
}
