package privacy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/fdcheck"
)

// numGrad returns the gradient of f in x by the fourth-order central
// difference with step h, perturbing x in place and restoring it (as
// gnn's gradient checks do).
func numGrad(f func() float64, x []float64, h float64) []float64 { return fdcheck.Grad(f, x, h) }

// relErr returns ||a - b|| / (||a|| + ||b||), 0 when both vanish.
func relErr(a, b []float64) float64 { return fdcheck.RelErr(a, b) }

func randomSet(rng *rand.Rand, n, f int) ([][]float64, []bool) {
	x := make([][]float64, n)
	y := make([]bool, n)
	for i := range x {
		x[i] = make([]float64, f)
		for j := range x[i] {
			x[i][j] = rng.NormFloat64()
		}
		y[i] = rng.IntN(2) == 1
	}
	return x, y
}

// TestMLPGradient checks the attack model's backward pass (the gradient
// of the mean binary cross-entropy in W1, b1, w2 and b2) against finite
// differences, tensor by tensor, at its initialisation and after some
// training (larger logits, some units inactive). The step is small
// enough that no perturbation (at most 2h (1 + max |x|) on a
// pre-activation) moves a unit across the relu's kink, where the
// difference quotient is not the derivative.
func TestMLPGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := randomSet(rng, 23, 26)
	for _, epochs := range []int{0, 200} {
		m, _ := trainAttack(x, y, rand.New(rand.NewPCG(3, 4)), epochs)
		m.zeroGrad()
		_, dz := bce(m.forward(x), y)
		m.backward(dz)
		loss := func() float64 {
			l, _ := bce(m.forward(x), y)
			return l
		}
		inactive := 0
		gap, big := math.Inf(1), 0.0
		for i, a := range m.a {
			for _, v := range a {
				if v <= 0 {
					inactive++
				}
				gap = math.Min(gap, math.Abs(v))
			}
			for _, v := range x[i] {
				big = math.Max(big, math.Abs(v))
			}
		}
		if inactive == 0 {
			t.Fatal("no inactive unit: the check would not cover the relu")
		}
		h := math.Min(1e-4, gap/(4*(1+big)))
		if h < 1e-8 {
			t.Fatalf("a pre-activation %.3g from the kink: no safe finite-difference step", gap)
		}
		for _, p := range m.params() {
			want := numGrad(loss, p.Value, h)
			if e := relErr(p.Grad, want); e > 1e-6 {
				t.Errorf("after %d epochs: %s: relative error %.3g between backward and finite differences", epochs, p.Name, e)
			}
		}
	}
}

// TestBCE checks the loss on values worked by hand and its stability
// for large logits.
func TestBCE(t *testing.T) {
	loss, dz := bce([]float64{0, math.Log(3)}, []bool{true, false})
	// -log(1/2) and -log(1 - 3/4), averaged; gradients (1/2 - 1)/2 and (3/4 - 0)/2.
	if want := (math.Ln2 + math.Log(4)) / 2; math.Abs(loss-want) > 1e-15 {
		t.Errorf("loss %v, want %v", loss, want)
	}
	if math.Abs(dz[0]+0.25) > 1e-15 || math.Abs(dz[1]-0.375) > 1e-15 {
		t.Errorf("gradient %v, want [-0.25 0.375]", dz)
	}
	loss, _ = bce([]float64{800, -800}, []bool{false, true})
	if math.Abs(loss-800) > 1e-9 {
		t.Errorf("loss for confidently wrong logits %v, want 800", loss)
	}
}

// TestTrainAttackLearns checks that the attack model learns a rule that
// one feature carries: its training loss falls and it ranks held-out
// members above non-members.
func TestTrainAttackLearns(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	draw := func(n int) ([][]float64, []bool) {
		x, y := randomSet(rng, n, 26)
		for i := range x {
			if y[i] {
				x[i][4] += 3
			}
		}
		return x, y
	}
	x, y := draw(200)
	m, losses := trainAttack(x, y, rand.New(rand.NewPCG(7, 8)), attackEpochs)
	if !(losses[len(losses)-1] < 0.8*losses[0]) {
		t.Errorf("training loss %v -> %v: it did not learn", losses[0], losses[len(losses)-1])
	}
	xt, yt := draw(200)
	if auc := AUC(m.forward(xt), yt); auc < 0.85 {
		t.Errorf("held-out AUC %v, want > 0.85 (feature 4 separates the classes; Bayes AUC 0.98)", auc)
	}
}

// TestForwardBits checks the attack model's forward, which computes four
// hidden units at a time, against the formula unit by unit (each sum in
// the order of the features, the logit in the order of the units) bit
// for bit, at the attack's width and at widths that leave one to three
// units over.
func TestForwardBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, hidden := range []int{attackHidden, 1, 6, 7} {
		m := newMLP(26, hidden, rng)
		x, _ := randomSet(rng, 50, 26)
		z := m.forward(x)
		for i, xi := range x {
			out := m.b2.Value[0]
			for j := range hidden {
				s := m.b1.Value[j]
				for f := range xi {
					s += m.w1.Value[j*26+f] * xi[f]
				}
				if math.Float64bits(m.a[i][j]) != math.Float64bits(s) {
					t.Fatalf("hidden %d: row %d unit %d: pre-activation %v, want %v", hidden, i, j, m.a[i][j], s)
				}
				if s > 0 {
					out += m.w2.Value[j] * s
				}
			}
			if math.Float64bits(z[i]) != math.Float64bits(out) {
				t.Fatalf("hidden %d: row %d: logit %v, want %v", hidden, i, z[i], out)
			}
		}
	}
}
