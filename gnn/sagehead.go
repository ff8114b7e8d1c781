package gnn

import (
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// SAGEAPVNet is FedSage+APV's classifier (docs/method.md#the-apv-variants, "Transferability
// of APV"): FedSage+'s two-layer GraphSAGE (SAGENet) with FedAux's APV head
// on its hidden layer, the second layer reading [h || z] instead of h:
//
//	h   = dropout(relu(sage1([X; E])))     embeddings, N x Hidden (Eq. 1)
//	s   = score(h, a)                      Eq. 2
//	z   = kernel aggregate of h by s       Eq. 5, over every row of [X; E]
//	out = sage2([h || z])                  2 Hidden -> Out, mean aggregation
//
// so that out_i = [h||z]_i W_r + mean_{j in N(i)} [h||z]_j W_n + b. Like
// the GCN's kernelHead it aggregates projections, not embeddings: with
// W_r and W_n split into their top (h) and bottom (z) Hidden rows, z W =
// agg(h W_z) because the aggregation is linear in the rows, so the Gauss
// transforms act on 2 Out columns instead of Hidden. The function and its
// gradient are those of the concatenation
// (TestSAGEAPVNetIsConcatenation). Generated rows E (a mended graph's) are
// nodes like the others: they have embeddings and scores and enter every
// kernel sum.
//
// The matrices Forward and Backward return belong to the network and are
// overwritten by its next call.
type SAGEAPVNet struct {
	L1 *SAGE
	// Root, Neigh and Bias are the second layer's W_r, W_n (2 Hidden x
	// Out, the h rows first) and b (1 x Out).
	Root, Neigh, Bias *Param
	Score             *Score

	agg    Kernel
	relu   ReLU
	drop   Dropout
	params []*Param

	adj    *MeanAdj
	h      *mat.Dense
	wcat   buffer // Hidden x 4 Out: row r is [W_r row r, W_n row r, W_r row H+r, W_n row H+r]
	p      buffer // h wcat = [h W_rh, h W_nh, h W_rz, h W_nz]
	nb     buffer // [h||z] W_n, before the neighbour mean
	out    buffer
	gn     buffer // M^T dL/dout
	dq     buffer // [dL/dout, M^T dL/dout]: the gradient of the aggregated projections
	dp     buffer
	dwcat  buffer
	dh     buffer
	hidden int
}

// NewSAGEAPVNet returns net with the APV head. Its first layer is net's
// (shared, not copied); its second layer's weights take net's
// second-layer weights as their top Hidden rows (the h part), and their
// bottom Hidden rows (the z part) are drawn from rng, uniform in
// +-1/sqrt(Hidden) as the top rows were (W_r's, then W_n's), followed by
// the APV (NewScore). Built from a SAGENet drawn as FedSage+ draws its
// classifier, the network starts from FedSage+'s first layer and h part.
// sigma is the kernel bandwidth and gauss the transform (nil: Dense{}).
func NewSAGEAPVNet(net *SAGENet, kind ScoreKind, sigma float64, gauss Gauss, rng *rand.Rand) *SAGEAPVNet {
	l2 := net.L2
	hid, out := l2.In, l2.Out
	prefix := strings.TrimSuffix(l2.Root.Name, ".root")
	widen := func(p *Param) *Param {
		w := newParam(p.Name, 2*hid, out, false)
		copy(w.Value, p.Value)
		bound := 1 / math.Sqrt(float64(hid))
		for i := hid * out; i < len(w.Value); i++ {
			w.Value[i] = (2*rng.Float64() - 1) * bound
		}
		return w
	}
	m := &SAGEAPVNet{L1: net.L1, hidden: hid}
	m.Root = widen(l2.Root)
	m.Neigh = widen(l2.Neigh)
	m.Bias = newParam(prefix+".bias", 1, out, false)
	copy(m.Bias.Value, l2.Bias.Value)
	m.Score = NewScore(kind, hid, rng)
	m.agg = Kernel{Gauss: gauss, Sigma: sigma}
	m.drop.P = net.drop.P
	m.params = append(append([]*Param(nil), net.L1.Params()...), m.Root, m.Neigh, m.Bias, m.Score.APV)
	return m
}

// Params returns the first layer's root, neigh and bias, then the second
// layer's, then the APV.
func (m *SAGEAPVNet) Params() []*Param { return m.params }

// SetSigma sets the kernel bandwidth used from the next Forward on.
func (m *SAGEAPVNet) SetSigma(sigma float64) { m.agg.Sigma = sigma }

// Hidden returns h of the last Forward (N x Hidden), owned by the network.
func (m *SAGEAPVNet) Hidden() *mat.Dense { return m.h }

// Forward returns the N x Out output for the nodes [x; extra] of the graph
// of adj. In training mode dropout draws from rng. It fails when the
// Gauss transform cannot be planned (see Kernel.Forward).
func (m *SAGEAPVNet) Forward(adj *MeanAdj, x Features, extra *mat.Dense, train bool, rng *rand.Rand) (*mat.Dense, error) {
	h := m.drop.Forward(m.relu.Forward(m.L1.Forward(adj, x, extra)), train, rng)
	m.adj, m.h = adj, h
	n, d := h.Dims()
	c := m.Bias.Cols
	wcat := m.wcat.get(d, 4*c)
	wr := wcat.RawMatrix().Data
	for r := 0; r < d; r++ {
		row := wr[r*4*c : (r+1)*4*c]
		copy(row[0:c], m.Root.Value[r*c:(r+1)*c])
		copy(row[c:2*c], m.Neigh.Value[r*c:(r+1)*c])
		copy(row[2*c:3*c], m.Root.Value[(d+r)*c:(d+r+1)*c])
		copy(row[3*c:4*c], m.Neigh.Value[(d+r)*c:(d+r+1)*c])
	}
	s := m.Score.Forward(h) // Eq. 2
	p := m.p.get(n, 4*c)
	mulSkip(p, h, wcat)
	q, err := m.agg.Forward(p.Slice(0, n, 2*c, 4*c).(*mat.Dense), s) // [z W_rz, z W_nz], Eq. 5
	if err != nil {
		return nil, err
	}
	nb := m.nb.get(n, c)
	nb.Add(p.Slice(0, n, c, 2*c), q.Slice(0, n, c, 2*c))
	out := m.out.get(n, c)
	adj.Apply(out, nb)
	out.Add(out, p.Slice(0, n, 0, c))
	out.Add(out, q.Slice(0, n, 0, c))
	addRowVector(out, m.Bias.Value)
	return out, nil
}

// Backward takes dL/dout of the last Forward, adds the parameter
// gradients and returns dL/dextra (nil unless needExtra and there were
// extra rows).
func (m *SAGEAPVNet) Backward(dOut *mat.Dense, needExtra bool) *mat.Dense {
	n, d := m.h.Dims()
	c := m.Bias.Cols
	addColumnSums(m.Bias.Grad, dOut)
	gn := m.gn.get(n, c)
	m.adj.ApplyT(gn, dOut)
	dq := m.dq.get(n, 2*c)
	dq.Slice(0, n, 0, c).(*mat.Dense).Copy(dOut)
	dq.Slice(0, n, c, 2*c).(*mat.Dense).Copy(gn)
	dpz, ds := m.agg.Backward(dq)
	dp := m.dp.get(n, 4*c)
	dp.Slice(0, n, 0, 2*c).(*mat.Dense).Copy(dq)
	dp.Slice(0, n, 2*c, 4*c).(*mat.Dense).Copy(dpz)

	dwcat := m.dwcat.zeros(d, 4*c)
	mulTransAddSkip(dwcat, m.h, dp)
	dw := dwcat.RawMatrix().Data
	for r := 0; r < d; r++ {
		row := dw[r*4*c : (r+1)*4*c]
		axpy(m.Root.Grad[r*c:(r+1)*c], 1, row[0:c])
		axpy(m.Neigh.Grad[r*c:(r+1)*c], 1, row[c:2*c])
		axpy(m.Root.Grad[(d+r)*c:(d+r+1)*c], 1, row[2*c:3*c])
		axpy(m.Neigh.Grad[(d+r)*c:(d+r+1)*c], 1, row[3*c:4*c])
	}
	// Exact where h is non-zero; ReLU and dropout zero the rest below.
	dh := m.dh.get(n, d)
	mulTransB(dh, dp, m.wcat.m, m.h)
	dh.Add(dh, m.Score.Backward(ds))
	_, de := m.L1.Backward(m.relu.Backward(m.drop.Backward(dh)), false, needExtra)
	return de
}
