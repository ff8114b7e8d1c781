package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

func TestMeanAdj(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 9
	adj := randGraph(rng, n, 0.3)
	adj.Indices = append([]int(nil), adj.Indices...)
	a, err := NewMeanAdj(adj)
	if err != nil {
		t.Fatal(err)
	}
	// The dense mean operator, self loops left out.
	want := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		var deg float64
		for k := adj.Indptr[i]; k < adj.Indptr[i+1]; k++ {
			if adj.Indices[k] != i {
				deg++
			}
		}
		for k := adj.Indptr[i]; k < adj.Indptr[i+1]; k++ {
			if j := adj.Indices[k]; j != i {
				want.Set(i, j, 1/deg)
			}
		}
	}
	x := randDense(rng, n, 4, 1)
	got, ref := mat.NewDense(n, 4, nil), mat.NewDense(n, 4, nil)
	a.Apply(got, x)
	ref.Mul(want, x)
	if d := maxAbsDiff(got, ref); d > 1e-14 {
		t.Errorf("Apply differs from the dense mean by %g", d)
	}
	a.ApplyT(got, x)
	ref.Mul(want.T(), x)
	if d := maxAbsDiff(got, ref); d > 1e-14 {
		t.Errorf("ApplyT differs from the dense transpose by %g", d)
	}
	// An isolated node aggregates to zero.
	iso, _ := NewMeanAdj(&CSR{Rows: 2, Cols: 2, Indptr: []int{0, 1, 1}, Indices: []int{0}, Values: []float64{1}})
	y := mat.NewDense(2, 1, []float64{3, 4})
	out := mat.NewDense(2, 1, nil)
	iso.Apply(out, y)
	if out.At(0, 0) != 0 || out.At(1, 0) != 0 {
		t.Errorf("a node with only a self loop aggregates %v, want 0", mat.Formatted(out.T()))
	}
}

func TestSAGEGradients(t *testing.T) {
	const n0, ne, fin, fout = 10, 3, 6, 4
	for _, sparse := range []bool{true, false} {
		for _, extra := range []bool{false, true} {
			t.Run(fmt.Sprintf("sparse=%v/extra=%v", sparse, extra), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(7, 8))
				n := n0
				var e *mat.Dense
				if extra {
					n += ne
					e = randDense(rng, ne, fin, 0.8)
				}
				adj, err := NewMeanAdj(randGraph(rng, n, 0.25))
				if err != nil {
					t.Fatal(err)
				}
				var x Features
				if sparse {
					x.Sparse = randSparse(rng, n0, fin, 3)
				} else {
					x.Dense = randDense(rng, n0, fin, 0.7)
				}
				l := NewSAGE("sage", fin, fout, rng)
				r := randDense(rng, n, fout, 1)
				loss := func() float64 { return weightedSum(r, l.Forward(adj, x, e)) }
				loss()
				dx, de := l.Backward(r, true, true)
				for _, p := range l.Params() {
					checkGrad(t, p.Name, p.Grad, numGrad(loss, p.Value))
				}
				if sparse != (dx == nil) {
					t.Fatalf("input gradient %v for a sparse=%v input", dx, sparse)
				}
				if !sparse {
					checkGrad(t, "input", copyData(dx), numGrad(loss, rawData(x.Dense)))
				}
				if extra != (de != nil) {
					t.Fatalf("extra gradient %v with extra=%v", de, extra)
				}
				if extra {
					checkGrad(t, "extra", copyData(de), numGrad(loss, rawData(e)))
				}
				// Without the extra rows' gradient: nil, and the same
				// parameter gradients to the last bit.
				var want [][]float64
				for _, p := range l.Params() {
					want = append(want, slices.Clone(p.Grad))
					clear(p.Grad)
				}
				loss()
				if _, de := l.Backward(r, false, false); de != nil {
					t.Fatal("extra gradient computed without being asked for")
				}
				for i, p := range l.Params() {
					if !slices.Equal(p.Grad, want[i]) {
						t.Errorf("%s: gradient changed when the extra rows' gradient is skipped", p.Name)
					}
				}
			})
		}
	}
}

func TestSAGENetGradients(t *testing.T) {
	const n0, ne, fin, hid, fout = 9, 4, 5, 6, 3
	rng := rand.New(rand.NewPCG(9, 10))
	adj, err := NewMeanAdj(randGraph(rng, n0+ne, 0.3))
	if err != nil {
		t.Fatal(err)
	}
	x := Features{Sparse: randSparse(rng, n0, fin, 2)}
	e := randDense(rng, ne, fin, 1)
	m := NewSAGENet("cls", fin, hid, fout, 0.5, rng)
	labels := make([]int, n0+ne)
	for i := range labels {
		labels[i] = rng.IntN(fout)
	}
	idx := []int{0, 2, 3, 5, 8}
	dl := mat.NewDense(n0+ne, fout, nil)
	loss := func() float64 {
		return SoftmaxCrossEntropy(m.Forward(adj, x, e, true, rand.New(rand.NewPCG(1, 1))), labels, idx, nil)
	}
	SoftmaxCrossEntropy(m.Forward(adj, x, e, true, rand.New(rand.NewPCG(1, 1))), labels, idx, dl)
	de := m.Backward(dl, true)
	for _, p := range m.Params() {
		checkGrad(t, p.Name, p.Grad, numGrad(loss, p.Value))
	}
	checkGrad(t, "extra", copyData(de), numGrad(loss, rawData(e)))
}

// Gradient checks of float32 weights perturb them by the exact step
// fdStep32 = 2^-12: the weights are first rounded to multiples of 2^-20
// in (-1, 1), so that w + k fdStep32 (|k| <= 2) is exactly a float32.
const fdStep32 = 1.0 / (1 << 12)

// snap32 rounds every weight to a multiple of 2^-20 in (-1, 1).
func snap32(w []float32) {
	for i, v := range w {
		w[i] = float32(math.Round(math.Max(-0.99, math.Min(0.99, float64(v)))*(1<<20)) / (1 << 20))
	}
}

// numGrad32 is numGrad for float32 entries, with step fdStep32.
func numGrad32(f func() float64, x []float32) []float64 {
	g := make([]float64, len(x))
	for i := range x {
		old := x[i]
		at := func(k float64) float64 {
			x[i] = float32(float64(old) + k*fdStep32)
			return f()
		}
		g[i] = (at(-2) - 8*at(-1) + 8*at(1) - at(2)) / (12 * fdStep32)
		x[i] = old
	}
	return g
}

func TestSlotLinearGradients(t *testing.T) {
	const n, in, slots, width = 6, 7, 3, 5
	for _, onlyNonzero := range []bool{false, true} {
		t.Run(fmt.Sprintf("onlyNonzero=%v", onlyNonzero), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 12))
			l := NewSlotLinear("out", in, slots, width, rng)
			l.GradOnlyNonzero = onlyNonzero
			snap32(l.W)
			l.AttachGrad(make([]float64, len(l.W)))
			h := randDense(rng, n, in, 0.6)
			counts := []int{0, 1, 3, 2, 3, 1}
			r := randDense(rng, n, slots*width, 1)
			loss := func() float64 { return weightedSum(r, l.Forward(h, counts)) }
			out := l.Forward(h, counts)
			for i, c := range counts {
				for j := c * width; j < slots*width; j++ {
					if out.At(i, j) != 0 {
						t.Fatalf("row %d slot %d computed beyond its count %d", i, j/width, c)
					}
				}
			}
			dh := l.Backward(r, true)
			checkGrad(t, "out.weight", l.Grad(), numGrad32(loss, l.W))
			checkGrad(t, l.Bias.Name, l.Bias.Grad, numGrad(loss, l.Bias.Value))
			num := numGrad(loss, rawData(h))
			if onlyNonzero {
				for i, v := range rawData(h) {
					if v == 0 {
						num[i] = 0
					}
				}
			}
			checkGrad(t, "input", copyData(dh), num)
		})
	}
}

func TestFGenGradients(t *testing.T) {
	const n, latent, h1, h2, width = 5, 6, 8, 12, 4
	rng := rand.New(rand.NewPCG(13, 14))
	f := newFGen(latent, h1, h2, width, 0.5, rng)
	snap32(f.Out.W)
	f.Out.AttachGrad(make([]float64, len(f.Out.W)))
	z := randDense(rng, n, latent, 1)
	counts := []int{2, 0, 5, 1, 3}
	r := randDense(rng, n, MaxPred*width, 1)
	loss := func() float64 { return weightedSum(r, f.Forward(z, counts, true, rand.New(rand.NewPCG(2, 2)))) }
	loss()
	dz := f.Backward(r)
	for _, p := range f.Params() {
		checkGrad(t, p.Name, p.Grad, numGrad(loss, p.Value))
	}
	checkGrad(t, "fgen.out.weight", f.Out.Grad(), numGrad32(loss, f.Out.W))
	checkGrad(t, "z", copyData(dz), numGrad(loss, rawData(z)))

	// A replica shares the weights and adds to the same gradients.
	before := append([]float64(nil), f.Out.Grad()...)
	g := f.Replica()
	g.Forward(z, counts, true, rand.New(rand.NewPCG(2, 2)))
	g.Backward(r)
	for i, v := range f.Out.Grad() {
		if v != 2*before[i] && math.Abs(v-2*before[i]) > 1e-12*math.Abs(v) {
			t.Fatalf("replica's gradient entry %d: %v after %v, want it doubled", i, v, before[i])
		}
	}
}

func TestNeighGenDegreesGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	g := NewNeighGen(4, 6, 0.5, rng)
	g.DGen.Bias.Value[0] = 0.7 // keep most predictions above zero
	z := randDense(rng, 6, NeighLatent, 1)
	for i := range g.DGen.Weight.Value {
		g.DGen.Weight.Value[i] *= 0.1
	}
	target := []float64{0, 1, 3, 0.5, 2, 1}
	idx := []int{0, 1, 2, 4, 5}
	loss := func() float64 {
		p := g.Degrees(z, true)
		return SmoothL1(rawData(p), target, idx, 1, nil)
	}
	p := g.Degrees(z, true)
	dn := make([]float64, 6)
	SmoothL1(rawData(p), target, idx, 1, dn)
	dz := g.DegreesBackward(dn)
	for _, q := range g.DGen.Params() {
		checkGrad(t, q.Name, q.Grad, numGrad(loss, q.Value))
	}
	checkGrad(t, "z", copyData(dz), numGrad(loss, rawData(z)))
	if c := Counts(mat.NewDense(4, 1, []float64{-1, 0.49, 2.5, 9})); fmt.Sprint(c) != "[0 0 3 5]" {
		t.Errorf("Counts = %v, want [0 0 3 5] (rounded half away from zero, clipped to [0, 5])", c)
	}
}

func TestSmoothL1(t *testing.T) {
	pred := []float64{0.2, -3, 1.5, 4, 0.9}
	target := []float64{0, 0, 1, 1, 2.5}
	idx := []int{0, 1, 2, 4}
	// 0.02, 2.5, 0.125, 1.1 over 4.
	if got, want := SmoothL1(pred, target, idx, 1, nil), (0.02+2.5+0.125+1.1)/4; math.Abs(got-want) > 1e-15 {
		t.Errorf("SmoothL1 = %v, want %v", got, want)
	}
	d := make([]float64, len(pred))
	SmoothL1(pred, target, idx, 2, d)
	checkGrad(t, "pred", d, numGrad(func() float64 { return 2 * SmoothL1(pred, target, idx, 1, nil) }, pred))
}

func TestGreedyLoss(t *testing.T) {
	const w = 3
	rng := rand.New(rand.NewPCG(17, 18))
	gen := randDense(rng, 5, MaxPred*w, 1)
	target := randDense(rng, 3, MaxPred*w, 1)
	rows := []int{4, 0, 2}
	pred := []int{2, 5, 1}
	truth := []int{3, 0, 7}
	// Brute force: every generated neighbour against its nearest true one.
	var want float64
	for k, i := range rows {
		if truth[k] == 0 {
			continue
		}
		for j := 0; j < min(MaxPred, pred[k]); j++ {
			best := math.Inf(1)
			for u := 0; u < min(MaxPred, truth[k]); u++ {
				var s float64
				for e := 0; e < w; e++ {
					d := gen.At(i, j*w+e) - target.At(k, u*w+e)
					s += d * d
				}
				best = math.Min(best, s/w)
			}
			want += best
		}
	}
	want /= float64(len(rows) * MaxPred)
	if got := GreedyLoss(gen, rows, target, pred, truth, 1, nil); math.Abs(got-want) > 1e-14 {
		t.Errorf("GreedyLoss = %v, want %v", got, want)
	}
	d := mat.NewDense(5, MaxPred*w, nil)
	GreedyLoss(gen, rows, target, pred, truth, 0.5, d)
	num := numGrad(func() float64 { return 0.5 * GreedyLoss(gen, rows, target, pred, truth, 1, nil) }, rawData(gen))
	checkGrad(t, "gen", copyData(d), num)
}

func TestAdam32TracksAdam(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	const n = 50
	p := newParam("w", 1, n, false)
	w32 := make([]float32, n)
	for i := range w32 {
		w32[i] = float32(rng.NormFloat64())
		p.Value[i] = float64(w32[i])
	}
	a64 := NewAdam([]*Param{p}, 0.01, 1e-4)
	a32 := NewAdam32(n, 0.01, 1e-4)
	for step := 0; step < 20; step++ {
		g := make([]float64, n)
		for i := range g {
			g[i] = math.Sin(float64(step*n+i)) * float64(w32[i])
			p.Grad[i] = math.Sin(float64(step*n+i)) * p.Value[i]
		}
		a64.Step()
		a32.Step(w32, g)
	}
	for i, v := range w32 {
		if d := math.Abs(float64(v) - p.Value[i]); d > 1e-5 {
			t.Fatalf("entry %d: float32 Adam at %v, float64 Adam at %v", i, v, p.Value[i])
		}
	}
}

// adam32Ref is Adam32.Step as it was written before it called vec.Adam:
// the loop of its doc comment, element by element.
func adam32Ref(a *Adam32, w []float32, g []float64) {
	a.T++
	t := float64(a.T)
	b1, b2, wd, eps := a.Beta1, a.Beta2, a.WeightDecay, a.Eps
	stepSize := a.LR / (1 - math.Pow(b1, t))
	invBC2 := 1 / math.Sqrt(1-math.Pow(b2, t))
	for i, x32 := range w {
		x := float64(x32)
		gi := g[i] + float64(wd*x)
		mi := float64(b1*float64(a.M[i])) + float64((1-b1)*gi)
		vi := float64(b2*float64(a.V[i])) + float64(float64((1-b2)*gi)*gi)
		a.M[i], a.V[i] = float32(mi), float32(vi)
		w[i] = float32(x - float64(stepSize*mi)/(float64(math.Sqrt(vi)*invBC2)+eps))
	}
}

// TestAdam32Bits checks Adam32.Step against the element-by-element loop,
// bit for bit, at every vector level, over several steps, on lengths
// around its chunk, with zeros, negative zeros, infinities and NaNs among
// the gradients.
func TestAdam32Bits(t *testing.T) {
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.NaN(), 1e30}
	forLevels(t, func(t *testing.T) {
		level := vec.Current()
		rng := rand.New(rand.NewPCG(51, 52))
		for _, n := range []int{1, 7, adam32Chunk, adam32Chunk + 9, 3*adam32Chunk + 1} {
			a, ref := NewAdam32(n, 0.01, 1e-4), NewAdam32(n, 0.01, 1e-4)
			w := make([]float32, n)
			for i := range w {
				w[i] = float32(rng.NormFloat64())
			}
			wr := slices.Clone(w)
			for step := range 4 {
				g := make([]float64, n)
				for i := range g {
					g[i] = rng.NormFloat64()
					if rng.IntN(40) == 0 {
						g[i] = specials[rng.IntN(len(specials))]
					}
				}
				a.Step(w, g)
				adam32Ref(ref, wr, g)
				for i := range w {
					if math.Float32bits(w[i]) != math.Float32bits(wr[i]) || math.Float32bits(a.M[i]) != math.Float32bits(ref.M[i]) ||
						math.Float32bits(a.V[i]) != math.Float32bits(ref.V[i]) {
						t.Fatalf("%v n=%d step %d entry %d: w %v m %v v %v, want %v %v %v", level, n, step, i, w[i], a.M[i], a.V[i], wr[i], ref.M[i], ref.V[i])
					}
				}
			}
		}
	})
}

// TestSAGEInputGradBits checks the input gradient, dr W_r^T + dn W_n^T,
// entry by entry against its definition, dot(dr_i, W_r row j) +
// dot(dn_i, W_n row j) with zeros where the pattern is zero, to the bit,
// at every kernel level: on both sides of shortLoop in the product's
// length (the classifier's and the encoder's layers), over more than
// transRows rows, with signed zeros in the factors.
func TestSAGEInputGradBits(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		for _, c := range []struct{ rows, in, out int }{{70, 20, 7}, {130, 37, 40}, {5, 3, 16}} {
			for _, masked := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(uint64(c.rows), uint64(c.out)))
				l := NewSAGE("sage", c.in, c.out, rng)
				l.Root.Value[1], l.Neigh.Value[2] = math.Copysign(0, -1), 0
				dr, dn := randDense(rng, c.rows, c.out, 0.9), randDense(rng, c.rows, c.out, 0.9)
				dr.Set(0, 0, math.Copysign(0, -1))
				var pattern *mat.Dense
				if masked {
					pattern = randDense(rng, c.rows, c.in, 0.5)
					pattern.Set(0, 1, math.Copysign(0, -1))
				}
				got := mat.NewDense(c.rows, c.in, nil)
				l.inputGrad(got, dr, dn, pattern)
				for i := range c.rows {
					for j := range c.in {
						want := 0.0
						if pattern == nil || pattern.At(i, j) != 0 {
							want = refDot(dr.RawRowView(i), l.Root.Value[j*c.out:(j+1)*c.out]) +
								refDot(dn.RawRowView(i), l.Neigh.Value[j*c.out:(j+1)*c.out])
						}
						if g := got.At(i, j); math.Float64bits(g) != math.Float64bits(want) {
							t.Fatalf("%dx%d->%d masked=%v: entry (%d, %d) = %v (%#x), want %v (%#x)",
								c.rows, c.in, c.out, masked, i, j, g, math.Float64bits(g), want, math.Float64bits(want))
						}
					}
				}
			}
		}
	})
}
