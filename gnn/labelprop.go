package gnn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// LabelPropagation is FedGTA's non-parametric label propagation (Li et
// al., "FedGTA: Topology-aware Averaging for Federated Graph Learning",
// VLDB 2024; authors' code gnn_model/label_propagation.py), as spec
// section 8b states it. From the soft predictions Yhat (N x C, rows of
// probabilities) and the true labels of the labelled nodes L,
//
//	Y0      = Yhat with the rows of L replaced by one-hot labels
//	F       = Y0
//	repeat Steps times:
//	    F   = Alpha A_hat F + (1 - Alpha) Y0,   then F[L] += Y0[L]
//	P       = rowsoftmax(F),   Ptilde = rowsoftmax(F / Tau),
//
// and the rows of L of both P and Ptilde are set to the one-hot labels
// again. A_hat is the GCN propagation D^-1/2 (A + I) D^-1/2 (r = 0.5).
type LabelPropagation struct {
	Steps int     // K_lp, propagation steps
	Alpha float64 // alpha_lp, weight of the propagated term
	Tau   float64 // temperature of the smoothed output Ptilde, > 0
}

// Run propagates probs on the graph of prop with the labels of the nodes
// in labelled, and returns P and Ptilde (new N x C matrices). labels
// holds one class per node (only those of labelled are read).
func (lp LabelPropagation) Run(prop *Propagator, probs *mat.Dense, labels, labelled []int) (p, pTau *mat.Dense, err error) {
	n, c := probs.Dims()
	switch {
	case n != prop.N():
		return nil, nil, fmt.Errorf("gnn: label propagation of %d rows on a graph of %d nodes", n, prop.N())
	case lp.Steps < 0:
		return nil, nil, fmt.Errorf("gnn: label propagation with %d steps", lp.Steps)
	case !(lp.Tau > 0):
		return nil, nil, fmt.Errorf("gnn: label propagation temperature %v, want > 0", lp.Tau)
	}
	for _, i := range labelled {
		if i < 0 || i >= n || i >= len(labels) {
			return nil, nil, fmt.Errorf("gnn: label propagation: labelled node %d out of range [0,%d)", i, min(n, len(labels)))
		}
		if labels[i] < 0 || labels[i] >= c {
			return nil, nil, fmt.Errorf("gnn: label propagation: node %d has class %d, want [0,%d)", i, labels[i], c)
		}
	}
	y0 := mat.DenseCopyOf(probs)
	oneHot := func(m *mat.Dense) {
		for _, i := range labelled {
			row := m.RawRowView(i)
			clear(row)
			row[labels[i]] = 1
		}
	}
	oneHot(y0)
	f := mat.DenseCopyOf(y0)
	next := mat.NewDense(n, c, nil)
	var rest mat.Dense
	rest.Scale(1-lp.Alpha, y0)
	for range lp.Steps {
		prop.Apply(next, f)
		next.Scale(lp.Alpha, next)
		next.Add(next, &rest)
		for _, i := range labelled {
			axpy(next.RawRowView(i), 1, y0.RawRowView(i))
		}
		f, next = next, f
	}
	p, pTau = mat.NewDense(n, c, nil), mat.NewDense(n, c, nil)
	for i := range n {
		softmaxRow(p.RawRowView(i), f.RawRowView(i), 1)
		softmaxRow(pTau.RawRowView(i), f.RawRowView(i), 1/lp.Tau)
	}
	oneHot(p)
	oneHot(pTau)
	return p, pTau, nil
}

// softmaxRow sets dst to the softmax of scale * src.
func softmaxRow(dst, src []float64, scale float64) {
	hi := math.Inf(-1)
	for _, v := range src {
		hi = math.Max(hi, scale*v)
	}
	var sum float64
	for j, v := range src {
		dst[j] = math.Exp(scale*v - hi)
		sum += dst[j]
	}
	for j := range dst {
		dst[j] /= sum
	}
}

// Softmax returns the row-wise softmax of logits as a new matrix.
func Softmax(logits *mat.Dense) *mat.Dense {
	n, c := logits.Dims()
	out := mat.NewDense(n, c, nil)
	for i := range n {
		softmaxRow(out.RawRowView(i), logits.RawRowView(i), 1)
	}
	return out
}
