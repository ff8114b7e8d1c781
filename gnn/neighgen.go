package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The sizes of FedSage+'s generator (Zhang et al., "Subgraph Federated
// Learning with Missing Neighbor Generation", NeurIPS 2021; OpenFGL's
// locsage_plus.py; docs/method.md#fedsage).
const (
	NeighLatent = 128  // z
	fgenHidden1 = 256  // fGen's first hidden layer
	fgenHidden2 = 2048 // fGen's second hidden layer
	MaxPred     = 5    // n_max, the most neighbours generated per node
)

// FGen is FedSage+'s feature generator: for latent codes z (N x Latent)
//
//	x~ = tanh(out(dropout(relu(fc2(relu(fc1(z + eps)))))))     eps ~ N(0, I)
//
// with fc1 Latent -> 256, fc2 256 -> 2048 and out 2048 -> MaxPred x Width
// (a SlotLinear), row i reshaped to MaxPred generated feature vectors of
// Width entries of which only the first counts[i] are computed. The
// noise is drawn in evaluation mode too, as in OpenFGL and FederatedScope
// (their Sampling step); dropout acts in training mode only.
//
// The matrices Forward and Backward return belong to the generator and
// are overwritten by its next call.
type FGen struct {
	FC1, FC2 *Linear
	Out      *SlotLinear

	relu1, relu2 ReLU
	drop         Dropout
	noisy        buffer
	y            *mat.Dense
	dy           buffer
}

// NewFGen returns a generator of width-entry features (parameters
// fgen.fc1.*, fgen.fc2.*, fgen.out.*) initialised from rng in that order
// as torch's nn.Linear is.
func NewFGen(width int, dropout float64, rng *rand.Rand) *FGen {
	return newFGen(NeighLatent, fgenHidden1, fgenHidden2, width, dropout, rng)
}

// newFGen returns a generator of the given layer sizes (tests use small ones).
func newFGen(latent, hidden1, hidden2, width int, dropout float64, rng *rand.Rand) *FGen {
	f := &FGen{
		FC1: NewLinear("fgen.fc1", latent, hidden1, false, rng),
		FC2: NewLinear("fgen.fc2", hidden1, hidden2, false, rng),
		Out: NewSlotLinear("fgen.out", hidden2, MaxPred, width, rng),
	}
	f.Out.GradOnlyNonzero = true
	f.FC2.GradOnlyNonzero = true // its input comes out of relu1
	f.drop.P = dropout
	return f
}

// Params returns the float64 parameters: fgen.fc1.weight, fgen.fc1.bias,
// fgen.fc2.weight, fgen.fc2.bias, fgen.out.bias. The float32 weight of
// the output layer is Out.W.
func (f *FGen) Params() []*Param {
	return append(append(f.FC1.Params(), f.FC2.Params()...), f.Out.Bias)
}

// Replica returns a generator that shares f's parameters, their gradient
// buffers and Out's attached gradient, with buffers of its own: another
// client's forward and backward passes through f's weights add to f's
// gradients without disturbing f's cached activations.
func (f *FGen) Replica() *FGen {
	g := &FGen{
		FC1: &Linear{In: f.FC1.In, Out: f.FC1.Out, Weight: f.FC1.Weight, Bias: f.FC1.Bias},
		FC2: &Linear{In: f.FC2.In, Out: f.FC2.Out, Weight: f.FC2.Weight, Bias: f.FC2.Bias, GradOnlyNonzero: f.FC2.GradOnlyNonzero},
		Out: &SlotLinear{In: f.Out.In, Slots: f.Out.Slots, Width: f.Out.Width, W: f.Out.W, Bias: f.Out.Bias,
			GradOnlyNonzero: true, grad: f.Out.grad},
	}
	g.drop.P = f.drop.P
	return g
}

// Forward returns x~ (N x MaxPred*Width) for the latent codes z, only
// the first counts[i] slots of row i computed (the others zero). It
// draws the noise from rng, then, in training mode, the dropout. It is
// Output(Hidden(z, train, rng), counts).
func (f *FGen) Forward(z *mat.Dense, counts []int, train bool, rng *rand.Rand) *mat.Dense {
	return f.Output(f.Hidden(z, train, rng), counts)
}

// Hidden returns the input of the output layer (N x the second hidden
// width) for the latent codes z: the noise drawn from rng, the two
// hidden layers and, in training mode, the dropout drawn from rng. The
// returned matrix belongs to f and is overwritten by its next call.
func (f *FGen) Hidden(z *mat.Dense, train bool, rng *rand.Rand) *mat.Dense {
	n, c := z.Dims()
	if c != f.FC1.In {
		panic(fmt.Sprintf("gnn: fGen forward: latent codes of %d entries, want %d", c, f.FC1.In))
	}
	noisy := f.noisy.get(n, c)
	src, dst := z.RawMatrix(), noisy.RawMatrix()
	for i := 0; i < n; i++ {
		for j, v := range src.Data[i*src.Stride : i*src.Stride+c] {
			dst.Data[i*dst.Stride+j] = v + rng.NormFloat64()
		}
	}
	h1 := f.relu1.Forward(f.FC1.Forward(noisy, train))
	return f.drop.Forward(f.relu2.Forward(f.FC2.Forward(h1, train)), train, rng)
}

// Output returns x~ = tanh(h W_s + b_s) for the output layer's input h
// (rows of Hidden's results, possibly of several calls on replicas, one
// after another), only the first counts[i] slots of row i computed.
// Rows are computed independently, so a row's result does not depend on
// the rows beside it.
func (f *FGen) Output(h *mat.Dense, counts []int) *mat.Dense {
	out := f.Out.Forward(h, counts)
	raw := out.RawMatrix()
	w := f.Out.Width
	for i, k := range counts {
		row := raw.Data[i*raw.Stride : i*raw.Stride+k*w]
		for j, v := range row {
			row[j] = math.Tanh(v)
		}
	}
	f.y = out
	return out
}

// Backward takes dL/dx~ of the last Forward (entries of slots not
// computed are ignored), adds the parameter gradients and returns dL/dz.
// It is HiddenBackward(OutputBackward(dY)).
func (f *FGen) Backward(dY *mat.Dense) *mat.Dense {
	return f.HiddenBackward(f.OutputBackward(dY))
}

// OutputBackward takes dL/dx~ of the last Output (entries of slots not
// computed are ignored), adds the output layer's gradients and returns
// dL/dh. The output weight's gradient gains the rows' terms in the order
// of the rows, so one call on the rows of several Hidden results gives
// it the bits of one call for each, in that order.
func (f *FGen) OutputBackward(dY *mat.Dense) *mat.Dense {
	n, c := dY.Dims()
	dy := f.dy.zeros(n, c)
	g, y, d := dY.RawMatrix(), f.y.RawMatrix(), dy.RawMatrix()
	w := f.Out.Width
	for i, k := range f.Out.counts {
		for j := 0; j < k*w; j++ {
			t := y.Data[i*y.Stride+j]
			d.Data[i*d.Stride+j] = g.Data[i*g.Stride+j] * (1 - t*t)
		}
	}
	return f.Out.Backward(dy, true)
}

// HiddenBackward takes dL/dh for the last Hidden, adds the hidden
// layers' gradients and returns dL/dz.
func (f *FGen) HiddenBackward(dh *mat.Dense) *mat.Dense {
	dh1 := f.FC2.Backward(f.relu2.Backward(f.drop.Backward(dh)), true)
	return f.FC1.Backward(f.relu1.Backward(dh1), true)
}

// NeighGen is FedSage+'s missing-neighbour generator for features of
// Width entries:
//
//	z     = enc(X)                two-layer GraphSAGE, In -> Hidden -> 128
//	n^_i  = relu(z_i w + b)       dGen, the predicted number of missing neighbours
//	x~_i  = fGen(z_i)             MaxPred generated neighbour features
//
// The caller runs the three parts (the mending and the losses sit
// between them) and sums the gradients that reach z before Enc.Backward.
type NeighGen struct {
	Enc  *SAGENet
	DGen *Linear
	FGen *FGen

	dRelu ReLU
	dn    buffer
}

// NewNeighGen returns a generator (parameters enc1.*, enc2.*, dgen.*,
// fgen.*) initialised from rng in that order.
func NewNeighGen(in, hidden int, dropout float64, rng *rand.Rand) *NeighGen {
	return &NeighGen{
		Enc:  NewSAGENet("enc", in, hidden, NeighLatent, dropout, rng),
		DGen: NewLinear("dgen", NeighLatent, 1, false, rng),
		FGen: NewFGen(in, dropout, rng),
	}
}

// Params returns the float64 parameters: the encoder's, dgen.weight,
// dgen.bias, then FGen.Params. The float32 weight FGen.Out.W is apart.
func (g *NeighGen) Params() []*Param {
	ps := append([]*Param(nil), g.Enc.Params()...)
	ps = append(ps, g.DGen.Params()...)
	return append(ps, g.FGen.Params()...)
}

// Degrees returns n^ = relu(z w + b) (N x 1) for the latent codes z.
func (g *NeighGen) Degrees(z *mat.Dense, train bool) *mat.Dense {
	return g.dRelu.Forward(g.DGen.Forward(z, train))
}

// DegreesBackward takes dL/dn^ (a vector of N entries), adds dGen's
// gradients and returns dL/dz.
func (g *NeighGen) DegreesBackward(dn []float64) *mat.Dense {
	m := g.dn.get(len(dn), 1)
	copy(m.RawMatrix().Data, dn)
	return g.DGen.Backward(g.dRelu.Backward(m), true)
}

// Counts returns n~_i = clip(round(n^_i), 0, MaxPred) for the predicted
// degrees n^ (N x 1): the number of neighbours mended onto each node
// (FederatedScope rounds, OpenFGL truncates; docs/method.md#fedsage rounds).
func Counts(pred *mat.Dense) []int {
	n, _ := pred.Dims()
	out := make([]int, n)
	for i := range out {
		v := math.Round(pred.At(i, 0))
		out[i] = int(min(max(v, 0), MaxPred))
	}
	return out
}
