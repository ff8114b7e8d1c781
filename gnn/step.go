package gnn

import (
	"fmt"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// A NonFiniteGradError reports a NaN or an infinity in a gradient: Entry
// is the index of the first such entry of the parameter named Param (in
// the order of the optimiser's parameters), Value its value.
type NonFiniteGradError struct {
	Param string
	Entry int
	Value float64
}

func (e *NonFiniteGradError) Error() string {
	return fmt.Sprintf("gnn: gradient of %s entry %d is %v", e.Param, e.Entry, e.Value)
}

// firstNonFinite returns the first NaN or infinity of p's gradient, or nil.
func firstNonFinite(p *Param) *NonFiniteGradError {
	g := p.Grad[:len(p.Value)]
	if i := vec.FirstNonFinite(g); i >= 0 {
		return &NonFiniteGradError{Param: p.Name, Entry: i, Value: g[i]}
	}
	return nil
}

// BackwardStep is ZeroGrad, Backward, then a check that every gradient
// of opt's parameters is finite, then opt.Step. Its parameters, moments and
// step count come out with the bits these three calls give them, and it
// returns the *NonFiniteGradError that the check would find first, in
// the order of opt's parameters; after an error the parameters and
// moments may be partly updated, so that the step is not to be taken
// again.
//
// It is faster when the first layer is a masked GCN in training mode on
// sparse features (FedAux's and FED-PUB's models on Cora, CiteSeer and
// the Amazon sets), or on any features in float32: that layer's weight
// and mask gradients,
//
//	dL/dW = D . M and dL/dM = D . W, D = dL/d(W . M) = X^T A_hat dL/dH' (Eq. 1),
//
// are formed row by row and stepped at once, so the largest parameters
// are read and written once a step instead of once to clear their
// gradients, once to form them, once for the check and once for Adam.
// Their Grad is then left as it was, not the gradients: a caller that
// reads or changes gradients between Backward and Step (a proximal term,
// clipping, noise) calls those instead.
func (m *Model) BackwardStep(dLogits *mat.Dense, opt *Adam) error {
	_, err := m.backwardStep(dLogits, opt, false)
	return err
}

// StepEvaluate is BackwardStep(dLogits, opt) and then Forward(in, false,
// nil), the evaluation of the stepped model, with the bits of those two
// calls; in is the input of the forward that dLogits comes from. It
// returns the evaluation's logits, or BackwardStep's error and no
// logits.
//
// It is faster when the step is fused (see BackwardStep) and in is the
// sparse input of the forward that dLogits comes from: the first layer's
// evaluation weight, W . M with the mask pruned (entries below
// MaskThreshold in magnitude count as zero; rounded to float32 in
// float32), is formed row by row while the fused step has each row of W
// and M in cache, instead of in a pass of its own over both at the
// evaluation.
func (m *Model) StepEvaluate(dLogits *mat.Dense, opt *Adam, in Input) (*mat.Dense, error) {
	// flag tells the first layer's forward that the rows are formed.
	flag, ahead := &m.layers[0].conv.ahead, m.layers[0].conv.sameSparse(in)
	if m.b32 != nil {
		flag, ahead = &m.b32.layers[0].ahead, m.b32.sameSparse(in)
	}
	formed, err := m.backwardStep(dLogits, opt, ahead)
	if err != nil {
		return nil, err
	}
	if formed {
		*flag = true
		defer func() { *flag = false }() // used by this forward or by none
	}
	return m.Forward(in, false, nil)
}

// backwardStep is BackwardStep; with ahead, the fused step also forms
// the rows of the first layer's pruned effective weight that the last
// forward's sparse input selects, and formed reports whether it did.
func (m *Model) backwardStep(dLogits *mat.Dense, opt *Adam, ahead bool) (formed bool, err error) {
	l0 := m.layers[0].conv
	kw, km := opt.index(l0.Weight), opt.index(l0.Mask)
	fused := m.expand == nil && l0.Mask != nil && kw >= 0 && km == kw+1
	if m.b32 != nil {
		fused = fused && m.b32.train && opt.m32[kw] != nil && opt.m32[km] != nil
	} else {
		fused = fused && l0.x.Sparse != nil && !l0.pruned && opt.m[kw] != nil && opt.m[km] != nil
	}
	if !fused {
		m.ZeroGrad()
		m.Backward(dLogits)
		for _, p := range opt.params {
			if err := firstNonFinite(p); err != nil {
				return false, err
			}
		}
		opt.Step()
		return false, nil
	}
	if !m.ready {
		panic("gnn: BackwardStep without a complete Forward")
	}
	m.ensureGrads()
	for _, p := range m.params {
		if p != l0.Weight && p != l0.Mask {
			p.ZeroGrad()
		}
	}
	dxw, dweff32, count := m.backwardTo1(dLogits)
	for _, p := range opt.params[:kw] {
		if err := firstNonFinite(p); err != nil {
			return false, err
		}
	}
	s, s32 := opt.next()
	var weff []float32 // where sparseStep32 forms the evaluation's weight
	if dxw != nil {
		if err := l0.sparseStep(dxw, opt, kw, km, s, ahead); err != nil {
			return false, err
		}
		formed = ahead
	} else {
		if ahead {
			weff = m.b32.layers[0].weff
		}
		if err := l0.sparseStep32(dweff32, count, opt, kw, km, s32, weff); err != nil {
			return false, err
		}
		formed = weff != nil
	}
	for _, p := range opt.params[km+1:] {
		if err := firstNonFinite(p); err != nil {
			return false, err
		}
	}
	for k := range opt.params {
		if k != kw && k != km {
			opt.stepParam(k, s, s32)
		}
	}
	return formed, nil
}

// backwardTo1 is Backward but for the first layer's weight and mask
// gradients: it returns A_hat dL/dH' of the first layer (its bias
// gradient added), from which sparseStep forms them; for float32 layers
// it returns instead dL/d(W . M) and its rows' counts of terms, from which
// sparseStep32 does.
func (m *Model) backwardTo1(dLogits *mat.Dense) (dxw *mat.Dense, dweff32 []float32, count []int) {
	if m.b32 != nil {
		dweff32, count = m.b32.backward(m, m.headBackward32(dLogits), true)
		return nil, dweff32, count
	}
	dh := m.headBackward(dLogits)
	for i := len(m.layers) - 1; i > 0; i-- {
		l := &m.layers[i]
		dh = l.conv.Backward(l.relu.Backward(l.drop.Backward(dh)), true)
	}
	l := &m.layers[0]
	return l.conv.backwardProp(l.relu.Backward(l.drop.Backward(dh))), nil, nil
}

// backwardProp adds the bias gradient for dL/dH' and returns A_hat dL/dH',
// the first part of Backward.
func (l *GCN) backwardProp(dOut *mat.Dense) *mat.Dense {
	n, _ := dOut.Dims()
	addColumnSums(l.Bias.Grad, dOut)
	dxw := l.dxw.padded(n, l.Out)
	l.prop.Apply(dxw, dOut) // A_hat is symmetric
	return dxw
}

// sparseStep forms the weight and mask gradients of a masked layer on a
// sparse input from dxw = A_hat dL/dH', row by row as sparseBackward
// does (each from +0, as after ZeroGrad), checks them and steps both
// rows with Adam (moments kw and km of opt, step s); the rows that no
// node's features select have zero gradients. On the first row with a
// NaN or an infinity it stops stepping and returns the first such entry
// of the weight's gradient over the rows not stepped, or if it has none,
// the mask's first: the rows before were finite in both (badRows).
// With ahead, each stepped row's pruned W . M goes to the row of the
// effective weight that the evaluation's forward reads (l.effective).
func (l *GCN) sparseStep(dxw *mat.Dense, opt *Adam, kw, km int, s vec.AdamStep, ahead bool) error {
	c := l.Out
	gw, gm, zeros := l.stepRows()
	var weff blas64.General
	if ahead {
		weff = l.weff.padded(l.In, c).RawMatrix()
	}
	w, mk := l.Weight.Value, l.Mask.Value
	mw, vw, mm, vm := opt.m[kw], opt.v[kw], opt.m[km], opt.v[km]
	// idle steps the rows from..to-1, which no feature selects.
	idle := func(from, to int) {
		for r := from; r < to; r++ {
			lo, hi := r*c, (r+1)*c
			vec.Adam(w[lo:hi], zeros, mw[lo:hi], vw[lo:hi], s)
			vec.Adam(mk[lo:hi], zeros, mm[lo:hi], vm[lo:hi], s)
		}
	}
	bad := badRows{l: l}
	next := 0
	err := l.eachGradRow(dxw, func(r int, d []float64) error {
		lo, hi := r*c, (r+1)*c
		clear(gw)
		clear(gm)
		vec.AddMul(gw, d, mk[lo:hi]) // as maskGradRow
		vec.AddMul(gm, d, w[lo:hi])
		step, err := bad.check(gw, gm, lo)
		if step {
			idle(next, r)
			vec.Adam(w[lo:hi], gw, mw[lo:hi], vw[lo:hi], s)
			vec.Adam(mk[lo:hi], gm, mm[lo:hi], vm[lo:hi], s)
			if ahead {
				vec.MulPruned(weff.Data[r*weff.Stride:r*weff.Stride+c], w[lo:hi], mk[lo:hi], MaskThreshold)
			}
			next = r + 1
		}
		return err
	})
	if err != nil {
		return err
	}
	if bad.pending != nil {
		return bad.pending
	}
	idle(next, l.In)
	return nil
}

// stepRows returns three rows of Out elements in l's memory for a fused
// step: the weight's gradient, the mask's, and zeros (the gradient of
// the rows no feature selects).
func (l *GCN) stepRows() (gw, gm, zeros []float64) {
	c := l.Out
	l.row = grow(l.row, 3*c)
	gw, gm, zeros = l.row[:c], l.row[c:2*c], l.row[2*c:3*c]
	clear(zeros)
	return gw, gm, zeros
}

// badRows follows the rows of a masked layer's weight and mask gradients
// in order, to report the first non-finite entry that a check of the
// whole weight's gradient, then the whole mask's, would.
type badRows struct {
	l *GCN
	// pending is the first non-finite entry of the mask's gradient,
	// found while looking for one of the weight's.
	pending *NonFiniteGradError
}

// check takes the gradients gw and gm of the rows from entry lo: step
// reports whether they may be stepped (both finite, none earlier), err
// is the weight's first non-finite entry once found.
func (b *badRows) check(gw, gm []float64, lo int) (step bool, err error) {
	if b.pending == nil && vec.AllFinite(gw) && vec.AllFinite(gm) {
		return true, nil
	}
	if i := vec.FirstNonFinite(gw); i >= 0 {
		return false, &NonFiniteGradError{Param: b.l.Weight.Name, Entry: lo + i, Value: gw[i]}
	}
	if i := vec.FirstNonFinite(gm); b.pending == nil && i >= 0 {
		b.pending = &NonFiniteGradError{Param: b.l.Mask.Name, Entry: lo + i, Value: gm[i]}
	}
	return false, nil
}

// sparseStep32 is sparseStep for float32 layers: the gradients are
// formed from the float32 dL/d(W . M) as backbone32's addGrads does
// (vec.MaskGradFrom32), rows without terms have zero gradients, and
// both parameters step with their float32 moments (vec.AdamF32). A
// non-nil weff (In x Out, rows pad32(Out) apart) gets the pruned float32 W . M of every row with
// terms as soon as the row is stepped: the evaluation's effective weight
// (layer32.effective).
func (l *GCN) sparseStep32(dweff []float32, count []int, opt *Adam, kw, km int, s vec.AdamStep32, weff []float32) error {
	c, ws := l.Out, pad32(l.Out)
	gw, gm, zeros := l.stepRows()
	w, mk := l.Weight.Value, l.Mask.Value
	mw, vw, mm, vm := opt.m32[kw], opt.v32[kw], opt.m32[km], opt.v32[km]
	bad := badRows{l: l}
	for r, k := range count {
		lo, hi := r*c, (r+1)*c
		if k == 0 {
			if bad.pending == nil {
				vec.AdamF32(w[lo:hi], zeros, mw[lo:hi], vw[lo:hi], s)
				vec.AdamF32(mk[lo:hi], zeros, mm[lo:hi], vm[lo:hi], s)
			}
			continue
		}
		clear(gw)
		clear(gm)
		vec.MaskGradFrom32(gw, gm, dweff[lo:hi], w[lo:hi], mk[lo:hi])
		step, err := bad.check(gw, gm, lo)
		if err != nil {
			return err
		}
		if step {
			vec.AdamF32(w[lo:hi], gw, mw[lo:hi], vw[lo:hi], s)
			vec.AdamF32(mk[lo:hi], gm, mm[lo:hi], vm[lo:hi], s)
			if weff != nil {
				vec.MulPrunedTo32(weff[r*ws:r*ws+c], w[lo:hi], mk[lo:hi], MaskThreshold)
			}
		}
	}
	if bad.pending != nil {
		return bad.pending
	}
	return nil
}
