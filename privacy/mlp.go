package privacy

import (
	"math"
	"math/rand/v2"

	"github.com/fedaux/fedaux/gnn"
)

// The attack model and its training (docs/method.md#membership-inference): 26 -> 64 ReLU ->
// 1 sigmoid, binary cross-entropy, Adam with learning rate 1e-3 and
// weight decay 1e-4 (coupled L2, as torch.optim.Adam), 300 full-batch
// epochs.
const (
	attackHidden = 64
	attackLR     = 1e-3
	attackWD     = 1e-4
	attackEpochs = 300
)

// mlp is a one-hidden-layer perceptron with one output, the logit z of
// P(member) = sigmoid(z):
//
//	a = W1 x + b1,   h = relu(a),   z = w2 . h + b2.
type mlp struct {
	in, hidden int
	w1, b1     *gnn.Param // hidden x in (row-major), hidden
	w2, b2     *gnn.Param // 1 x hidden, 1

	x [][]float64 // the last forward's inputs
	a [][]float64 // its pre-activations
}

// newMLP returns an MLP initialised as torch.nn.Linear is: every weight
// and bias of a layer with fan-in f drawn from U(-1/sqrt(f), 1/sqrt(f)),
// in the order W1, b1, w2, b2.
func newMLP(in, hidden int, rng *rand.Rand) *mlp {
	m := &mlp{in: in, hidden: hidden,
		w1: param("w1", hidden, in), b1: param("b1", 1, hidden),
		w2: param("w2", 1, hidden), b2: param("b2", 1, 1)}
	for _, p := range []struct {
		p   *gnn.Param
		fan int
	}{{m.w1, in}, {m.b1, in}, {m.w2, hidden}, {m.b2, hidden}} {
		bound := 1 / math.Sqrt(float64(p.fan))
		for i := range p.p.Value {
			p.p.Value[i] = bound * (2*rng.Float64() - 1)
		}
	}
	return m
}

func param(name string, rows, cols int) *gnn.Param {
	return &gnn.Param{Name: name, Rows: rows, Cols: cols, Value: make([]float64, rows*cols), Grad: make([]float64, rows*cols)}
}

func (m *mlp) params() []*gnn.Param { return []*gnn.Param{m.w1, m.b1, m.w2, m.b2} }

// forward returns the logit of every row of x and caches what backward needs.
func (m *mlp) forward(x [][]float64) []float64 {
	m.x = x
	if len(m.a) != len(x) {
		m.a = make([][]float64, len(x))
		for i := range m.a {
			m.a[i] = make([]float64, m.hidden)
		}
	}
	z := make([]float64, len(x))
	w1, b1, w2 := m.w1.Value, m.b1.Value, m.w2.Value
	for i, xi := range x {
		xi = xi[:m.in]
		a := m.a[i]
		out := m.b2.Value[0]
		// Four units at a time: four sums in flight instead of one, each
		// added in the order of the features as one unit's alone is, and
		// added to out in the order of the units: the same bits.
		j := 0
		for ; j+4 <= len(a); j += 4 {
			r0 := w1[j*m.in:][:len(xi)]
			r1 := w1[(j+1)*m.in:][:len(xi)]
			r2 := w1[(j+2)*m.in:][:len(xi)]
			r3 := w1[(j+3)*m.in:][:len(xi)]
			s0, s1, s2, s3 := b1[j], b1[j+1], b1[j+2], b1[j+3]
			for f, v := range xi {
				s0 += r0[f] * v
				s1 += r1[f] * v
				s2 += r2[f] * v
				s3 += r3[f] * v
			}
			a[j], a[j+1], a[j+2], a[j+3] = s0, s1, s2, s3
			for t, s := range [4]float64{s0, s1, s2, s3} {
				if s > 0 {
					out += w2[j+t] * s
				}
			}
		}
		for ; j < len(a); j++ {
			s := b1[j]
			for f, w := range w1[j*m.in : (j+1)*m.in] {
				s += w * xi[f]
			}
			a[j] = s
			if s > 0 {
				out += w2[j] * s
			}
		}
		z[i] = out
	}
	return z
}

// backward adds to the parameters' gradients that of a loss whose
// gradient in the last forward's logits is dz.
func (m *mlp) backward(dz []float64) {
	for i, xi := range m.x {
		g := dz[i]
		m.b2.Grad[0] += g
		for j, a := range m.a[i] {
			if a <= 0 {
				continue // relu: no gradient through an inactive unit
			}
			m.w2.Grad[j] += g * a
			ga := g * m.w2.Value[j]
			m.b1.Grad[j] += ga
			row := m.w1.Grad[j*m.in : (j+1)*m.in]
			for f, v := range xi {
				row[f] += ga * v
			}
		}
	}
}

func (m *mlp) zeroGrad() {
	for _, p := range m.params() {
		clear(p.Grad)
	}
}

// bce returns the mean binary cross-entropy of logits z for labels y
// (true: 1), computed stably as max(z, 0) - z y + log(1 + exp(-|z|)),
// and its gradient in z, (sigmoid(z) - y) / n.
func bce(z []float64, y []bool) (float64, []float64) {
	n := float64(len(z))
	var loss float64
	dz := make([]float64, len(z))
	for i, v := range z {
		t := 0.0
		if y[i] {
			t = 1
		}
		loss += math.Max(v, 0) - v*t + math.Log1p(math.Exp(-math.Abs(v)))
		dz[i] = (sigmoid(v) - t) / n
	}
	return loss / n, dz
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// trainAttack trains a fresh attack model on (x, y), initialised from
// rng, and returns it with its training loss after each epoch.
func trainAttack(x [][]float64, y []bool, rng *rand.Rand, epochs int) (*mlp, []float64) {
	m := newMLP(len(x[0]), attackHidden, rng)
	opt := gnn.NewAdam(m.params(), attackLR, attackWD)
	losses := make([]float64, epochs)
	for e := range epochs {
		m.zeroGrad()
		loss, dz := bce(m.forward(x), y)
		m.backward(dz)
		opt.Step()
		losses[e] = loss
	}
	return m, losses
}
