package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestLinearGradients(t *testing.T) {
	const n, fin, fout = 12, 6, 4
	for _, masked := range []bool{true, false} {
		for _, train := range []bool{true, false} {
			t.Run(fmt.Sprintf("masked=%v/train=%v", masked, train), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(7, 8))
				x := randDense(rng, n, fin, 0.8)
				l := NewLinear("cls", fin, fout, masked, rng)
				if masked {
					perturbMask(rng, l.Mask)
				}
				r := randDense(rng, n, fout, 1)
				loss := func() float64 { return weightedSum(r, l.Forward(x, train)) }
				loss()
				dx := l.Backward(r, true)
				for _, p := range l.Params() {
					checkGrad(t, p.Name, p.Grad, numGrad(loss, p.Value))
				}
				checkGrad(t, "input", copyData(dx), numGrad(loss, rawData(x)))
			})
		}
	}
}

func TestLinearInit(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const in, out = 40, 7
	for _, masked := range []bool{true, false} {
		l := NewLinear("cls", in, out, masked, rng)
		wb, bb := 1/math.Sqrt(in), 1/math.Sqrt(in)
		if masked {
			wb, bb = math.Sqrt(6.0/(in+out)), math.Sqrt(6.0/(out+1))
			for _, v := range l.Mask.Value {
				if v != 1 {
					t.Fatalf("mask entry %v, want 1", v)
				}
			}
		}
		for _, c := range []struct {
			p     *Param
			bound float64
		}{{l.Weight, wb}, {l.Bias, bb}} {
			hi := 0.0
			for _, v := range c.p.Value {
				hi = max(hi, math.Abs(v))
			}
			if hi > c.bound || hi < 0.5*c.bound {
				t.Errorf("masked=%v %s: max |v| = %v, want within (bound/2, bound = %v]", masked, c.p.Name, hi, c.bound)
			}
		}
	}
}

// TestLinearWideBits checks a layer wider than 256 outputs, whose weight
// and dL/dY its products read from padded rows (wideSource), against the
// plain loops, bit for bit, at every level: the forward X (W . M) + b and
// the weight's gradient X^T dL/dY, each a sum over the non-zero entries
// of X in order from +0, every product and sum rounded.
func TestLinearWideBits(t *testing.T) {
	const n, in, out = 9, 20, 512
	forLevels(t, func(t *testing.T) {
		for _, masked := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(13, 14))
			x := randDense(rng, n, in, 0.6)
			l := NewLinear("gen", in, out, masked, rng)
			if masked {
				perturbMask(rng, l.Mask)
			}
			weff := slices.Clone(l.Weight.Value)
			if masked {
				for i := range weff {
					weff[i] *= l.Mask.Value[i]
				}
			}
			y := l.Forward(x, true)
			g := randDense(rng, n, out, 1)
			for i := range l.Weight.Grad {
				l.Weight.Grad[i] = 0
			}
			l.Backward(g, false)
			for i := range n {
				for c := range out {
					s := 0.0
					for k := range in {
						if v := x.At(i, k); v != 0 {
							s = s + float64(v*weff[k*out+c])
						}
					}
					if got, want := y.At(i, c), s+l.Bias.Value[c]; math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("masked=%v: output (%d, %d) is %v, the plain loop gives %v", masked, i, c, got, want)
					}
				}
			}
			if masked {
				continue // the mask's product rule moves the weight's gradient
			}
			for k := range in {
				for c := range out {
					s := 0.0
					for i := range n {
						if v := x.At(i, k); v != 0 {
							s = s + float64(v*g.At(i, c))
						}
					}
					if got := l.Weight.Grad[k*out+c]; math.Float64bits(got) != math.Float64bits(s) {
						t.Fatalf("weight gradient (%d, %d) is %v, the plain loop gives %v", k, c, got, s)
					}
				}
			}
		}
	})
}
