package gnn

import (
	"math"
	"math/rand/v2"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// ReLU is the rectifier max(x, 0). Its derivative at 0 is taken as 0, as
// in torch. The matrices it returns belong to it and are overwritten by
// its next call.
type ReLU struct {
	out buffer
	dx  buffer
}

// Forward returns max(x, 0) element-wise.
func (r *ReLU) Forward(x *mat.Dense) *mat.Dense {
	n, c := x.Dims()
	out := r.out.get(n, c)
	src, dst := x.RawMatrix(), out.RawMatrix()
	for i := 0; i < n; i++ {
		// max(v, 0) with Go's max: a NaN stays, -0 becomes +0.
		vec.ReLU(dst.Data[i*dst.Stride:i*dst.Stride+c], src.Data[i*src.Stride:i*src.Stride+c])
	}
	return out
}

// Backward returns dOut where the last output was positive, 0 elsewhere.
func (r *ReLU) Backward(dOut *mat.Dense) *mat.Dense {
	n, c := dOut.Dims()
	dx := r.dx.get(n, c)
	g, y, d := dOut.RawMatrix(), r.out.m.RawMatrix(), dx.RawMatrix()
	for i := 0; i < n; i++ {
		// The bits of the gradient where the output is positive, +0
		// elsewhere (a NaN output too).
		vec.ReLUBack(d.Data[i*d.Stride:i*d.Stride+c], g.Data[i*g.Stride:i*g.Stride+c], y.Data[i*y.Stride:i*y.Stride+c])
	}
	return dx
}

// Dropout zeroes each entry with probability P during training and
// scales the survivors by 1/(1-P) (inverted dropout), so evaluation is
// the identity. The matrices it returns belong to it (or, when it is
// inactive, are its input) and are overwritten by its next call.
type Dropout struct {
	P float64

	active bool
	scale  []float64 // per entry: 0 or 1/(1-P)
	out    buffer
	dx     buffer
}

// Forward applies dropout when train is set and P > 0, otherwise it
// returns x itself. The entries are visited in row-major order; each is
// dropped when a b-bit chunk of rng's output is below P 2^b, with b the
// fewest bits (1, 2, 4, ..., 32) for which P 2^b is an integer (b = 1
// for P = 0.5), or a whole 64-bit draw otherwise, so the draw is exact.
func (d *Dropout) Forward(x *mat.Dense, train bool, rng *rand.Rand) *mat.Dense {
	d.active = train && d.P > 0
	if !d.active {
		return x
	}
	n, c := x.Dims()
	d.draw(n*c, rng)
	out := d.out.get(n, c)
	d.apply(out, x)
	return out
}

// Backward returns dOut scaled by the last forward's dropout mask.
func (d *Dropout) Backward(dOut *mat.Dense) *mat.Dense {
	if !d.active {
		return dOut
	}
	n, c := dOut.Dims()
	dx := d.dx.get(n, c)
	d.apply(dx, dOut)
	return dx
}

// apply sets dst = src . scale element-wise.
func (d *Dropout) apply(dst, src *mat.Dense) {
	s, t := src.RawMatrix(), dst.RawMatrix()
	c := s.Cols
	for i := 0; i < s.Rows; i++ {
		// ts[j] = ss[j] * sc[j], one rounded product each.
		vec.Mul(t.Data[i*t.Stride:i*t.Stride+c], s.Data[i*s.Stride:i*s.Stride+c], d.scale[i*c:i*c+c])
	}
}

// draw sets d.scale to size draws of 0 (dropped, probability P) or
// 1/(1-P) (kept) from rng.
func (d *Dropout) draw(size int, rng *rand.Rand) {
	d.scale = grow(d.scale, size)
	drawScale(d.scale, d.P, rng)
}

// drawWords is drawScale's loop at one bit a draw (p is 0, 1/2 or 1)
// over the whole words that scale takes: it sets the first 64 x n
// elements from n words, draw i being bit i%64 of its word, kept when
// the bit is at least thresh, and returns 64 x n. Four draws at a time
// are one of sixteen rows of a table of the rule's values.
func drawWords[T float32 | float64](scale []T, keepOrDrop [2]T, thresh uint64, rng *rand.Rand) int {
	var tbl [16][4]T
	for n := range tbl {
		for j := range tbl[n] {
			tbl[n][j] = keepOrDrop[b2i(uint64(n>>j)&1 >= thresh)]
		}
	}
	i := 0
	for ; i+64 <= len(scale); i += 64 {
		word := rng.Uint64()
		s := scale[i : i+64 : i+64]
		for q := 0; q < 64; q += 4 {
			*(*[4]T)(s[q:]) = tbl[word&15]
			word >>= 4
		}
	}
	return i
}

// drawScale sets every element of scale to 0 (dropped, probability p) or
// T(1/(1-p)) (kept), drawing from rng as Dropout.draw does: the float32
// layers draw their scale in float32 directly, with the same draws and
// the values Dropout's float64 scale rounds to.
func drawScale[T float32 | float64](scale []T, p float64, rng *rand.Rand) {
	keep := 0.0
	if p < 1 {
		keep = 1 / (1 - p)
	}
	// The choice is an index, not a branch: the draws are random, and a
	// branch on them is mispredicted half the time.
	keepOrDrop := [2]T{0, T(keep)}
	bits := 64
	for b := 1; b < 64; b *= 2 {
		if v := math.Ldexp(p, b); v == math.Trunc(v) {
			bits = b
			break
		}
	}
	if bits == 64 {
		// rng.Uint64() < thresh has probability p (to within 2^-64).
		var thresh uint64 = math.MaxUint64
		if p < 1 {
			thresh = uint64(math.Ldexp(p, 64))
		}
		for i := range scale {
			scale[i] = keepOrDrop[b2i(rng.Uint64() >= thresh)]
		}
	} else {
		thresh := uint64(math.Ldexp(p, bits))
		mask := uint64(1)<<bits - 1
		i := 0
		if bits == 1 {
			i = drawWords(scale, keepOrDrop, thresh, rng)
		}
		var word uint64
		left := 0
		for ; i < len(scale); i++ {
			if left == 0 {
				word, left = rng.Uint64(), 64
			}
			scale[i] = keepOrDrop[b2i(word&mask >= thresh)]
			word >>= bits
			left -= bits
		}
	}
}
