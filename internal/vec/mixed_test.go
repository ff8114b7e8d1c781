package vec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// f32Values returns n float64 values, some of them float32 values (as
// parameters are after a float32 step), some not, with zeros, negative
// zeros, values near the pruning threshold and, when special is set,
// infinities and NaNs.
func f32Values(rng *rand.Rand, n int, special bool) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch k := rng.IntN(40); {
		case k == 0:
			v[i] = 0
		case k == 1:
			v[i] = math.Copysign(0, -1)
		case k == 2:
			v[i] = 1e-3 * (1 - 2*rng.Float64()) // around a threshold of 5e-4
		case special && k == 3:
			v[i] = math.Inf(1 - 2*rng.IntN(2))
		case special && k == 4:
			v[i] = math.NaN()
		case k < 20:
			v[i] = float64(float32(rng.NormFloat64()))
		default:
			v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
		}
	}
	return v
}

func sameBits64(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		g, w := got[i], want[i]
		if g != g && w != w {
			continue
		}
		if math.Float64bits(g) != math.Float64bits(w) {
			t.Fatalf("%s: element %d is %v, want %v", what, i, g, w)
		}
	}
}

func TestMixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 32))
	for _, n := range lengths {
		x, y := f32Values(rng, n, true), f32Values(rng, n, true)
		d := make([]float32, n)
		for i := range d {
			d[i] = float32(f32Values(rng, 1, n%5 == 0)[0])
		}
		gw0, gm0 := f32Values(rng, n, false), f32Values(rng, n, false)

		want32 := make([]float32, n)
		for i := range want32 {
			want32[i] = float32(x[i])
		}
		for l, got := range atLevels(func() []float32 { o := make([]float32, n); To32(o, x); return o }) {
			sameBits32(t, "To32 "+levels()[l].String(), got, want32)
		}
		for i := range want32 {
			want32[i] = float32(x[i] * y[i])
		}
		for l, got := range atLevels(func() []float32 { o := make([]float32, n); MulTo32(o, x, y); return o }) {
			sameBits32(t, "MulTo32 "+levels()[l].String(), got, want32)
		}
		for i := range want32 {
			m := y[i]
			if math.Abs(m) < 5e-4 {
				m = 0
			}
			want32[i] = float32(x[i] * m)
		}
		for l, got := range atLevels(func() []float32 { o := make([]float32, n); MulPrunedTo32(o, x, y, 5e-4); return o }) {
			sameBits32(t, "MulPrunedTo32 "+levels()[l].String(), got, want32)
		}

		wgw, wgm := slices.Clone(gw0), slices.Clone(gm0)
		for i := range wgw {
			wgw[i] += float64(float64(d[i]) * y[i])
			wgm[i] += float64(float64(d[i]) * x[i])
		}
		for l, got := range atLevels(func() [2][]float64 {
			gw, gm := slices.Clone(gw0), slices.Clone(gm0)
			MaskGradFrom32(gw, gm, d, x, y)
			return [2][]float64{gw, gm}
		}) {
			sameBits64(t, "MaskGradFrom32 gw "+levels()[l].String(), got[0], wgw)
			sameBits64(t, "MaskGradFrom32 gm "+levels()[l].String(), got[1], wgm)
		}
		want := slices.Clone(gw0)
		for i := range want {
			want[i] += float64(d[i])
		}
		for l, got := range atLevels(func() []float64 { o := slices.Clone(gw0); AddFrom32(o, d); return o }) {
			sameBits64(t, "AddFrom32 "+levels()[l].String(), got, want)
		}
		for i := range want {
			want[i] = float64(d[i])
		}
		for l, got := range atLevels(func() []float64 { o := slices.Clone(gw0); From32(o, d); return o }) {
			sameBits64(t, "From32 "+levels()[l].String(), got, want)
		}
	}
}

func TestAdamF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 33))
	s := AdamStep32{Beta1: 0.9, Beta2: 0.999, WeightDecay: 5e-4, StepSize: 0.05, InvBC2: 22.4, Eps: 1e-8}
	for _, n := range lengths {
		th0, g0 := f32Values(rng, n, false), f32Values(rng, n, false)
		m0, _ := randVec32(rng, n, 0, false)
		v0, _ := randVec32(rng, n, 0, false)
		for i := range v0 {
			v0[i] *= v0[i]
		}
		// Adam32 on the float32 roundings is the reference.
		wth, wg := make([]float32, n), make([]float32, n)
		for i := range wth {
			wth[i], wg[i] = float32(th0[i]), float32(g0[i])
		}
		wm, wv := slices.Clone(m0), slices.Clone(v0)
		adam32Go(wth, wg, wm, wv, &adamParams32{s.Beta1, 1 - s.Beta1, s.Beta2, 1 - s.Beta2, s.WeightDecay, s.StepSize, s.InvBC2, s.Eps})
		want := make([]float64, n)
		for i, v := range wth {
			want[i] = float64(v)
		}
		for l, got := range atLevels(func() [3][]float64 {
			th, m, v := slices.Clone(th0), slices.Clone(m0), slices.Clone(v0)
			AdamF32(th, g0, m, v, s)
			m64, v64 := make([]float64, n), make([]float64, n)
			for i := range m {
				m64[i], v64[i] = float64(m[i]), float64(v[i])
			}
			return [3][]float64{th, m64, v64}
		}) {
			name := levels()[l].String()
			sameBits64(t, "AdamF32 theta "+name, got[0], want)
			for i := range wm {
				if got[1][i] != float64(wm[i]) || got[2][i] != float64(wv[i]) {
					t.Fatalf("AdamF32 %s: moments of element %d differ", name, i)
				}
			}
		}
	}
}

func TestMixedPanics(t *testing.T) {
	a, b := make([]float64, 3), make([]float64, 4)
	a32 := make([]float32, 3)
	for name, f := range map[string]func(){
		"To32":           func() { To32(a32, b) },
		"MulTo32":        func() { MulTo32(a32, a, b) },
		"MulPrunedTo32":  func() { MulPrunedTo32(a32, b, a, 1) },
		"MaskGradFrom32": func() { MaskGradFrom32(a, a, a32, a, b) },
		"AddFrom32":      func() { AddFrom32(b, a32) },
		"From32":         func() { From32(b, a32) },
		"AdamF32":        func() { AdamF32(a, b, a32, a32, AdamStep32{}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
