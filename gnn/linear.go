package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Linear is a fully connected layer, masked or plain:
//
//	Y = X (W . M) + b,
//
// with W (In x Out), the mask M (In x Out, all ones, personal; absent in
// a plain layer) and the bias b (1 x Out). Evaluation mode prunes the mask
// as GCN does.
//
// Initialisation follows the reference code. Masked (FedAux's
// classifier): W Xavier-uniform, and b also Xavier-uniform as torch
// initialises a (1, Out) tensor, bound sqrt(6/(Out+1)). Plain (FedAvg's
// torch nn.Linear head): W and b uniform in +-1/sqrt(In).
//
// The matrices Forward and Backward return belong to the layer and are
// overwritten by its next call.
type Linear struct {
	In, Out int
	Weight  *Param
	Mask    *Param // nil for a plain layer
	Bias    *Param

	// GradOnlyNonzero makes Backward compute the input gradient only
	// where the input is non-zero, leaving zero elsewhere. It is exact
	// when the input is the output of a ReLU (or of dropout after a
	// ReLU), whose backward zeroes those entries anyway.
	GradOnlyNonzero bool

	x      *mat.Dense
	pruned bool
	weff   buffer
	wview  *mat.Dense
	wpad   buffer // a wide weight in padded rows (wideSource)
	out    buffer
	dweff  buffer
	dpad   buffer // a wide dL/dY in padded rows
	dx     buffer
}

// NewLinear returns a layer named name (parameters name.weight,
// name.mask, name.bias) initialised from rng.
func NewLinear(name string, in, out int, masked bool, rng *rand.Rand) *Linear {
	l := &Linear{In: in, Out: out}
	l.Weight = newParam(name+".weight", in, out, false)
	l.Bias = newParam(name+".bias", 1, out, false)
	if masked {
		l.Weight.glorot(rng, in, out)
		l.Bias.glorot(rng, 1, out)
		l.Mask = newParam(name+".mask", in, out, true)
		l.Mask.fill(1)
	} else {
		bound := 1 / math.Sqrt(float64(in))
		l.Weight.uniform(rng, bound)
		l.Bias.uniform(rng, bound)
	}
	return l
}

// Params returns the layer's parameters: weight, mask (if any), bias.
func (l *Linear) Params() []*Param {
	if l.Mask == nil {
		return []*Param{l.Weight, l.Bias}
	}
	return []*Param{l.Weight, l.Mask, l.Bias}
}

// Forward returns X (W . M) + b for the N x In input x, pruning the mask
// in evaluation mode.
func (l *Linear) Forward(x *mat.Dense, train bool) *mat.Dense {
	n, f := x.Dims()
	if f != l.In {
		panic(fmt.Sprintf("gnn: linear forward: input has %d columns, layer takes %d", f, l.In))
	}
	l.x = x
	w := l.effective(train)
	out := l.out.get(n, l.Out)
	mulSkip(out, x, wideSource(&l.wpad, w))
	addRowVector(out, l.Bias.Value)
	return out
}

// Backward takes dL/dY, adds the parameter gradients to their Grad
// fields and returns dL/dX (nil unless needInput).
func (l *Linear) Backward(dOut *mat.Dense, needInput bool) *mat.Dense {
	addColumnSums(l.Bias.Grad, dOut)
	dweff := l.dweff.zeros(l.In, l.Out)
	mulTransAddSkip(dweff, l.x, wideSource(&l.dpad, dOut))
	l.addWeightGrad(dweff)
	if !needInput {
		return nil
	}
	n, _ := dOut.Dims()
	dx := l.dx.get(n, l.In)
	var pattern *mat.Dense
	if l.GradOnlyNonzero {
		pattern = l.x
	}
	mulTransB(dx, dOut, l.lastEffective(), pattern)
	return dx
}

// wideSource returns m as the source of a product into its columns: when
// they are more than 256 and its rows a multiple of 1 KiB apart, a copy
// in b with rows padStride apart, which vec.RowSumsStride sums in strips
// at AVX2 (a 2048-column product, as FedSage+'s generator's second layer,
// 1.6 times as fast as row by row, which RowSums takes for such rows);
// m itself otherwise. The sums are the same to the bit.
func wideSource(b *buffer, m *mat.Dense) *mat.Dense {
	if _, c := m.Dims(); c <= 256 || m.RawMatrix().Stride%128 != 0 {
		return m
	}
	return b.paddedCopy(m)
}

// effective computes the effective weight W . M of this forward (pruned
// when not training); for a plain layer it is W itself.
func (l *Linear) effective(train bool) *mat.Dense {
	l.pruned = !train
	if l.Mask == nil {
		if l.wview == nil || &l.wview.RawMatrix().Data[0] != &l.Weight.Value[0] {
			l.wview = l.Weight.Matrix()
		}
		return l.wview
	}
	weff := l.weff.get(l.In, l.Out)
	maskedRow(weff.RawMatrix().Data, l.Weight.Value, l.Mask.Value, l.pruned)
	return weff
}

// lastEffective returns the effective weight of the last forward.
func (l *Linear) lastEffective() *mat.Dense {
	if l.Mask == nil {
		return l.wview
	}
	return l.weff.m
}

// addWeightGrad adds the gradient of the effective weight, dL/d(W.M),
// to the weight (and mask) gradients.
func (l *Linear) addWeightGrad(dweff *mat.Dense) {
	d := dweff.RawMatrix().Data
	if l.Mask == nil {
		axpy(l.Weight.Grad, 1, d)
		return
	}
	maskGradRow(l.Weight.Grad, l.Mask.Grad, d, l.Weight.Value, l.Mask.Value, l.pruned)
}
