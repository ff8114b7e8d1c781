package gnn

import (
	"gonum.org/v1/gonum/mat"
)

// kernelHead is FedAux's classifier on the concatenation [H || Z] with
// Z the kernel aggregate of H (Eq. 2, 5):
//
//	logits = [H || Z] (W . M) + b = H W_h + Z W_z + b,
//
// where W_h and W_z are the top and bottom d rows of the 2d x C effective
// weight. The aggregation Z = diag(1/S) K H is linear in H and acts on
// rows, so Z W_z = diag(1/S) K (H W_z): the head aggregates the C columns
// of P = H W_z instead of the d columns of H. That is the same function
// (and gradient) at a d/C-th of the Gauss transform cost: for Cora
// (d = 256, C = 7) the transforms act on 8 + 24 columns per epoch instead
// of 257 + 771. TestModelHeadIsConcatenation checks the identity.
type kernelHead struct {
	cls   *Linear
	score *Score
	agg   Kernel

	h      *mat.Dense
	wcat   buffer // d x 2C: row k is [W_h row k, W_z row k]
	p      buffer // H wcat = [H W_h, H W_z]
	logits buffer
	dq     buffer // [dL/dlogits, dL/d(H W_z)]
	dwcat  buffer
	dweff  buffer
	dh     buffer
}

// forward returns the logits for embeddings h.
func (k *kernelHead) forward(h *mat.Dense, train bool) (*mat.Dense, error) {
	n, d := h.Dims()
	c := k.cls.Out
	k.h = h
	weff := k.cls.effective(train).RawMatrix().Data
	wcat := k.wcat.get(d, 2*c)
	wr := wcat.RawMatrix().Data
	for r := 0; r < d; r++ {
		copy(wr[r*2*c:r*2*c+c], weff[r*c:(r+1)*c])
		copy(wr[r*2*c+c:(r+1)*2*c], weff[(d+r)*c:(d+r+1)*c])
	}
	s := k.score.Forward(h) // Eq. 2
	p := k.p.get(n, 2*c)
	mulSkip(p, h, wcat)
	yz, err := k.agg.Forward(p.Slice(0, n, c, 2*c).(*mat.Dense), s) // Eq. 5, projected
	if err != nil {
		return nil, err
	}
	logits := k.logits.get(n, c)
	logits.Add(p.Slice(0, n, 0, c), yz)
	addRowVector(logits, k.cls.Bias.Value)
	return logits, nil
}

// backward takes dL/dlogits, accumulates the parameter gradients and
// returns dL/dH (through the classifier, the aggregate and the scores).
// When onlyNonzero is set dL/dH is exact only where H is non-zero (see
// GCN.GradOnlyNonzero).
func (k *kernelHead) backward(g *mat.Dense, onlyNonzero bool) *mat.Dense {
	n, d := k.h.Dims()
	c := k.cls.Out
	addColumnSums(k.cls.Bias.Grad, g)
	dpz, ds := k.agg.Backward(g)
	dq := k.dq.get(n, 2*c)
	dq.Slice(0, n, 0, c).(*mat.Dense).Copy(g)
	dq.Slice(0, n, c, 2*c).(*mat.Dense).Copy(dpz)

	dwcat := k.dwcat.zeros(d, 2*c)
	mulTransAddSkip(dwcat, k.h, dq)
	dweff := k.dweff.get(2*d, c)
	dw, dc := dweff.RawMatrix().Data, dwcat.RawMatrix().Data
	for r := 0; r < d; r++ {
		copy(dw[r*c:(r+1)*c], dc[r*2*c:r*2*c+c])
		copy(dw[(d+r)*c:(d+r+1)*c], dc[r*2*c+c:(r+1)*2*c])
	}
	k.cls.addWeightGrad(dweff)

	var pattern *mat.Dense
	if onlyNonzero {
		pattern = k.h
	}
	dh := k.dh.get(n, d)
	mulTransB(dh, dq, k.wcat.m, pattern)
	addTo(dh, k.score.Backward(ds))
	return dh
}
