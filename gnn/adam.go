package gnn

import (
	"fmt"
	"math"

	"github.com/fedaux/fedaux/internal/prefault"
	"github.com/fedaux/fedaux/internal/vec"
)

// Adam is the Adam optimiser with coupled L2 weight decay, as torch.optim.Adam:
// for every parameter theta with gradient g, at step t,
//
//	g     = g + WeightDecay * theta        (coupled: decay enters the moments)
//	m     = Beta1 m + (1 - Beta1) g
//	v     = Beta2 v + (1 - Beta2) g^2
//	theta = theta - LR/(1 - Beta1^t) * m / (sqrt(v)/sqrt(1 - Beta2^t) + Eps)
//
// Every parameter is updated, masks and the APV included. The moments and
// the step count persist across calls (a client keeps its optimiser for the
// whole run); LR may be changed between steps.
//
// The parameters of a model's float32 layers (Config.Precision F32) are
// updated in float32, with float32 moments (vec.AdamF32): the same
// expressions, each operation rounded to float32.
type Adam struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64

	params   []*Param
	m, v     [][]float64
	m32, v32 [][]float32 // the moments of the float32 parameters (m, v nil there)
	t        int
}

// NewAdam returns an optimiser for params with the given learning rate
// and weight decay, beta1 0.9, beta2 0.999 and eps 1e-8.
func NewAdam(params []*Param, lr, weightDecay float64) *Adam {
	a := &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: weightDecay, params: params}
	a.m = make([][]float64, len(params))
	a.v = make([][]float64, len(params))
	a.m32 = make([][]float32, len(params))
	a.v32 = make([][]float32, len(params))
	for i, p := range params {
		if p.f32 {
			a.m32[i] = make([]float32, len(p.Value))
			a.v32[i] = make([]float32, len(p.Value))
			prefault.Floats(a.m32[i]) // the first step writes them all
			prefault.Floats(a.v32[i])
			continue
		}
		a.m[i] = make([]float64, len(p.Value))
		a.v[i] = make([]float64, len(p.Value))
		prefault.Floats(a.m[i])
		prefault.Floats(a.v[i])
	}
	return a
}

// Steps returns the number of steps taken.
func (a *Adam) Steps() int { return a.t }

// Step updates every parameter from its gradient. It does not clear the
// gradients.
func (a *Adam) Step() {
	s, s32 := a.next()
	for k := range a.params {
		a.stepParam(k, s, s32)
	}
}

// next counts a step and returns its constants, in float64 and float32.
func (a *Adam) next() (vec.AdamStep, vec.AdamStep32) {
	a.t++
	t := float64(a.t)
	b1, b2, wd, eps := a.Beta1, a.Beta2, a.WeightDecay, a.Eps
	stepSize := a.LR / (1 - math.Pow(b1, t))
	invBC2 := 1 / math.Sqrt(1-math.Pow(b2, t))
	s := vec.AdamStep{Beta1: b1, Beta2: b2, WeightDecay: wd, StepSize: stepSize, InvBC2: invBC2, Eps: eps}
	s32 := vec.AdamStep32{Beta1: float32(b1), Beta2: float32(b2), WeightDecay: float32(wd), StepSize: float32(stepSize), InvBC2: float32(invBC2), Eps: float32(eps)}
	return s, s32
}

// stepParam updates parameter k from its gradient with the step's
// constants.
func (a *Adam) stepParam(k int, s vec.AdamStep, s32 vec.AdamStep32) {
	p := a.params[k]
	th := p.Value
	if a.m32[k] != nil {
		vec.AdamF32(th, p.Grad[:len(th)], a.m32[k][:len(th)], a.v32[k][:len(th)], s32)
		return
	}
	// For every i, with the rounding of these expressions:
	//	g := gr[i] + wd*x
	//	m[i] = b1*m[i] + (1-b1)*g
	//	v[i] = b2*v[i] + (1-b2)*g*g
	//	th[i] = x - stepSize*m[i]/(math.Sqrt(v[i])*invBC2+eps)
	vec.Adam(th, p.Grad[:len(th)], a.m[k][:len(th)], a.v[k][:len(th)], s)
}

// index returns the position of p among a's parameters, or -1.
func (a *Adam) index(p *Param) int {
	for k, q := range a.params {
		if q == p {
			return k
		}
	}
	return -1
}

// AdamState is a snapshot of an optimiser's moments, for checkpoints.
type AdamState struct {
	Step int
	M, V [][]float64 // per parameter, in the optimiser's order
}

// State returns a copy of the optimiser's state (float32 moments as
// float64, which is exact).
func (a *Adam) State() AdamState {
	s := AdamState{Step: a.t, M: make([][]float64, len(a.m)), V: make([][]float64, len(a.v))}
	for i := range a.m {
		if a.m32[i] != nil {
			s.M[i], s.V[i] = widen(a.m32[i]), widen(a.v32[i])
			continue
		}
		s.M[i] = append([]float64(nil), a.m[i]...)
		s.V[i] = append([]float64(nil), a.v[i]...)
	}
	return s
}

func widen(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// size returns the length of parameter i's moments.
func (a *Adam) size(i int) int { return len(a.params[i].Value) }

// SetState restores a state returned by State of an optimiser over
// parameters of the same shapes.
func (a *Adam) SetState(s AdamState) error {
	if len(s.M) != len(a.m) || len(s.V) != len(a.v) {
		return fmt.Errorf("gnn: adam state has %d/%d tensors, want %d", len(s.M), len(s.V), len(a.m))
	}
	for i := range a.m {
		if len(s.M[i]) != a.size(i) || len(s.V[i]) != a.size(i) {
			return fmt.Errorf("gnn: adam state tensor %d (%s) has the wrong size", i, a.params[i].Name)
		}
	}
	for i := range a.m {
		if a.m32[i] != nil {
			// Moments saved from float32 come back exactly.
			vec.To32(a.m32[i], s.M[i])
			vec.To32(a.v32[i], s.V[i])
			continue
		}
		copy(a.m[i], s.M[i])
		copy(a.v[i], s.V[i])
	}
	a.t = s.Step
	return nil
}
