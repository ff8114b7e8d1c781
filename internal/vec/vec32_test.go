package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randVec32 is randVec for float32: guards are NaNs, and one entry in
// fifty is an infinity or a NaN when special is set.
func randVec32(rng *rand.Rand, n, off int, special bool) (v, backing []float32) {
	backing = make([]float32, off+n+guard)
	for i := range backing {
		backing[i] = float32(math.NaN())
	}
	v = backing[off : off+n]
	for i := range v {
		switch k := rng.IntN(50); {
		case k < 5:
			v[i] = 0
		case k < 8:
			v[i] = float32(math.Copysign(0, -1))
		case special && k == 8:
			v[i] = float32(math.Inf(1 - 2*rng.IntN(2)))
		case special && k == 9:
			v[i] = float32(math.NaN())
		default:
			v[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
		}
	}
	return v, backing
}

func checkGuards32(t *testing.T, backing []float32, off, n int) {
	t.Helper()
	for i, v := range backing {
		if (i < off || i >= off+n) && v == v {
			t.Fatalf("element %d outside the slice [%d, %d) was written", i, off, off+n)
		}
	}
}

// sameBits32 fails t unless got and want are equal bit for bit, a NaN
// matching any NaN (the payload of a NaN from two NaN operands depends
// on their order, which the float32 kernels do not fix).
func sameBits32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		g, w := got[i], want[i]
		if g != g && w != w {
			continue
		}
		if math.Float32bits(g) != math.Float32bits(w) {
			t.Fatalf("%s: element %d is %v (%#x), want %v (%#x)", what, i, g, math.Float32bits(g), w, math.Float32bits(w))
		}
	}
}

// atLevels returns f's results at every level, slowest first.
func atLevels[T any](f func() T) []T {
	var out []T
	for _, l := range levels() {
		prev := Use(l)
		out = append(out, f())
		Use(prev)
	}
	return out
}

// rowSums32Ref is RowSums32 as documented, element by element.
func rowSums32Ref(dst []float32, stride, cols int, src []float32, terms []Term32, n []int, zero bool) {
	for r, k := range n {
		row := dst[r*stride : r*stride+cols]
		for c := range row {
			v := row[c]
			if zero {
				v = 0
			}
			for _, t := range terms[:k] {
				v += float32(t.A * src[int(t.Off)+c])
			}
			row[c] = v
		}
		terms = terms[k:]
	}
}

func TestRowSums32(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	for trial := range 600 {
		cols := 1 + rng.IntN(80)
		if rng.IntN(8) == 0 {
			cols = 256
		}
		rows := rng.IntN(12)
		stride := cols + rng.IntN(3)
		srcRows := 1 + rng.IntN(30)
		srcStride := cols + rng.IntN(3)
		src, _ := randVec32(rng, (srcRows-1)*srcStride+cols, 0, trial%2 == 0)
		dst0, _ := randVec32(rng, max(0, (rows-1)*stride+cols), 0, trial%2 == 0)
		n := make([]int, rows)
		var terms []Term32
		for r := range n {
			n[r] = rng.IntN(21)
			if rng.IntN(4) == 0 {
				n[r] = rng.IntN(3)
			}
			for range n[r] {
				a, _ := randVec32(rng, 1, 0, trial%2 == 0)
				terms = append(terms, Term32{Off: int32(rng.IntN(srcRows) * srcStride), A: a[0]})
			}
		}
		zero := rng.IntN(2) == 0
		want := append([]float32(nil), dst0...)
		if rows > 0 {
			rowSums32Ref(want, stride, cols, src, terms, n, zero)
		}
		got := atLevels(func() []float32 {
			d := append([]float32(nil), dst0...)
			RowSums32(d, stride, cols, src, terms, n, zero)
			return d
		})
		for i, g := range got {
			sameBits32(t, levels()[i].String(), g, want)
		}
	}
}

func TestElementwise32(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 2))
	for _, n := range lengths {
		for _, off := range offsets {
			x, _ := randVec32(rng, n, off, true)
			y, _ := randVec32(rng, n, off, true)
			d0, _ := randVec32(rng, n, off, true)
			for _, op := range []string{"mul", "addmul", "pruned", "axpy"} {
				res := atLevels(func() []float32 {
					d, backing := randVec32(rng, n, off, false)
					copy(d, d0)
					switch op {
					case "mul":
						Mul32(d, x, y)
					case "addmul":
						AddMul32(d, x, y)
					case "pruned":
						MulPruned32(d, x, y, 0.5)
					case "axpy":
						AddScaled32(d, -1.25, x)
					}
					checkGuards32(t, backing, off, n)
					return d
				})
				want := make([]float32, n)
				for i := range want {
					switch op {
					case "mul":
						want[i] = x[i] * y[i]
					case "addmul":
						want[i] = d0[i] + float32(x[i]*y[i])
					case "pruned":
						m := y[i]
						if m < 0.5 && m > -0.5 {
							m = 0
						}
						want[i] = x[i] * m
					case "axpy":
						want[i] = d0[i] + float32(-1.25*x[i])
					}
				}
				for i, r := range res {
					sameBits32(t, op+" "+levels()[i].String(), r, want)
				}
			}
		}
	}
}

func TestDot32(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 3))
	for _, n := range lengths {
		for _, off := range offsets {
			x, _ := randVec32(rng, n, off, n%7 == 3)
			y, _ := randVec32(rng, n, off, false)
			// The documented order, written out.
			var s [16]float32
			for i := range x {
				s[i%16] += float32(x[i] * y[i])
			}
			for h := 8; h >= 2; h /= 2 {
				for k := range h {
					s[k] += s[k+h]
				}
			}
			want := s[0] + s[1]
			for i, got := range atLevels(func() float32 { return Dot32(x, y) }) {
				sameBits32(t, levels()[i].String(), []float32{got}, []float32{want})
			}
			// And close to the float64 dot product.
			var d, mag float64
			for i := range x {
				d += float64(x[i]) * float64(y[i])
				mag += math.Abs(float64(x[i]) * float64(y[i]))
			}
			if n%7 != 3 && math.Abs(float64(want)-d) > 1e-6*mag*float64(n+1) {
				t.Fatalf("n=%d: Dot32 %v, float64 dot %v", n, want, d)
			}
			// DotN32 on 0 to 9 vectors (every remainder of its groups of
			// four) gives Dot32's bits.
			for k := range 10 {
				ys := make([][]float32, k)
				want := make([]float32, k)
				for q := range ys {
					ys[q], _ = randVec32(rng, n, q%3, q == 5)
					want[q] = dot32Go(x, ys[q])
				}
				for i, got := range atLevels(func() []float32 { d := make([]float32, k); DotN32(d, x, ys); return d }) {
					sameBits32(t, "DotN32 "+levels()[i].String(), got, want)
				}
			}
		}
	}
}

func TestAdam32(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 4))
	s := AdamStep32{Beta1: 0.9, Beta2: 0.999, WeightDecay: 5e-4, StepSize: 0.01 / (1 - 0.9*0.9), InvBC2: float32(1 / math.Sqrt(1-0.999*0.999)), Eps: 1e-8}
	for _, n := range lengths {
		for _, off := range offsets {
			th0, _ := randVec32(rng, n, off, false)
			g0, _ := randVec32(rng, n, off, false)
			m0, _ := randVec32(rng, n, off, false)
			v0, _ := randVec32(rng, n, off, false)
			for i := range v0 {
				v0[i] *= v0[i]
			}
			res := atLevels(func() [3][]float32 {
				th, b := randVec32(rng, n, off, false)
				m, _ := randVec32(rng, n, off, false)
				v, _ := randVec32(rng, n, off, false)
				copy(th, th0)
				copy(m, m0)
				copy(v, v0)
				Adam32(th, g0, m, v, s)
				checkGuards32(t, b, off, n)
				return [3][]float32{th, m, v}
			})
			for i, r := range res[1:] {
				for k := range 3 {
					sameBits32(t, levels()[i+1].String(), r[k], res[0][k])
				}
			}
			// The portable version against the float64 update.
			for i := range th0 {
				x, g := float64(th0[i]), float64(g0[i])+float64(s.WeightDecay)*float64(th0[i])
				m := float64(s.Beta1)*float64(m0[i]) + float64(1-s.Beta1)*g
				v := float64(s.Beta2)*float64(v0[i]) + float64(1-s.Beta2)*g*g
				upd := float64(s.StepSize) * m / (math.Sqrt(v)*float64(s.InvBC2) + float64(s.Eps))
				// A few float32 roundings of the magnitudes summed (the sums
				// for g, m and x may cancel; v's and the denominator's may not).
				gm := math.Abs(float64(g0[i])) + math.Abs(float64(s.WeightDecay)*x)
				mm := math.Abs(float64(s.Beta1)*float64(m0[i])) + float64(1-s.Beta1)*gm
				// g's error also reaches v, and so the denominator.
				tol := 1e-6 * (math.Abs(x) + math.Abs(upd)*(mm/math.Max(math.Abs(m), 1e-300)+gm/math.Max(math.Abs(g), 1e-300)) + 1e-30)
				x -= upd
				if got := float64(res[0][0][i]); math.Abs(got-x) > tol {
					t.Fatalf("n=%d element %d: Adam32 gives %v, float64 %v (x0 %v g %v m0 %v v0 %v upd %v m %v v %v)", n, i, got, x, th0[i], g0[i], m0[i], v0[i], upd, m, v)
				}
			}
		}
	}
}

func TestPanics32(t *testing.T) {
	a, b := make([]float32, 3), make([]float32, 4)
	for name, f := range map[string]func(){
		"Mul32":       func() { Mul32(a, a, b) },
		"AddMul32":    func() { AddMul32(a, b, a) },
		"MulPruned32": func() { MulPruned32(b, a, a, 1) },
		"AddScaled32": func() { AddScaled32(a, 1, b) },
		"Dot32":       func() { Dot32(a, b) },
		"DotN32":      func() { DotN32(a[:1], a, [][]float32{b}) },
		"Adam32":      func() { Adam32(a, a, a, b, AdamStep32{}) },
		"RowSums32":   func() { RowSums32(a, 3, 3, a, []Term32{{Off: 1}}, []int{1}, true) },
		"CheckOff32":  func() { CheckOff32(MaxOff32 + 1) },
		"NonzeroTerms32 offset": func() {
			NonzeroTerms32(make([]Term32, 3+NonzeroTermsSlack), a, 1<<30) // the last Off is 2^31
		},
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

func TestReLU32(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 5))
	for _, n := range lengths {
		for _, off := range offsets {
			x0, _ := randVec32(rng, n, off, true)
			b, _ := randVec32(rng, n, off, true)
			g, _ := randVec32(rng, n, off, true)
			s, _ := randVec32(rng, n, off, true)
			want := make([]float32, n)
			for i := range want {
				want[i] = max(x0[i]+b[i], 0)
			}
			for l, got := range atLevels(func() []float32 {
				x, backing := randVec32(rng, n, off, false)
				copy(x, x0)
				BiasReLU32(x, b)
				checkGuards32(t, backing, off, n)
				return x
			}) {
				sameBits32(t, "BiasReLU32 "+levels()[l].String(), got, want)
			}
			for _, scaled := range []bool{false, true} {
				sc := s
				if !scaled {
					sc = nil
				}
				for i := range want {
					v := g[i]
					if scaled {
						v = g[i] * s[i]
					}
					if !(x0[i] > 0) {
						v = 0
					}
					want[i] = v
				}
				for l, got := range atLevels(func() []float32 {
					d, backing := randVec32(rng, n, off, false)
					ReLUBack32(d, g, x0, sc)
					checkGuards32(t, backing, off, n)
					return d
				}) {
					sameBits32(t, "ReLUBack32 "+levels()[l].String(), got, want)
				}
			}
		}
	}
}
