package gnn

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// A Param is one named parameter tensor of a model: a Rows x Cols matrix
// stored row-major in Value, with the gradient of the loss in Grad (same
// layout). Layers read Value and accumulate into Grad; a server strategy
// mixes Values by Name. Personal parameters (the masks) are never mixed.
//
// Weights are stored In x Out, the transpose of torch's Out x In layout, so
// that the rows a sparse input selects are contiguous. Biases and the APV
// are 1 x n.
type Param struct {
	Name       string
	Rows, Cols int
	Value      []float64
	Grad       []float64
	Personal   bool

	// f32 marks a parameter of the float32 layers (Config.Precision
	// F32): Adam updates it in float32 (vec.AdamF32), so its Value holds
	// float32 values after a step.
	f32 bool
}

// newParam returns a zero parameter of the given shape.
func newParam(name string, rows, cols int, personal bool) *Param {
	return &Param{
		Name: name, Rows: rows, Cols: cols,
		Value: make([]float64, rows*cols), Grad: make([]float64, rows*cols),
		Personal: personal,
	}
}

// Matrix returns a Rows x Cols matrix that shares its storage with Value.
func (p *Param) Matrix() *mat.Dense { return mat.NewDense(p.Rows, p.Cols, p.Value) }

// GradMatrix returns a Rows x Cols matrix that shares its storage with Grad.
func (p *Param) GradMatrix() *mat.Dense { return mat.NewDense(p.Rows, p.Cols, p.Grad) }

// ZeroGrad sets Grad to zero.
func (p *Param) ZeroGrad() { clear(p.Grad) }

// fill sets every value to v.
func (p *Param) fill(v float64) {
	for i := range p.Value {
		p.Value[i] = v
	}
}

// uniform draws every value from U(-bound, bound), row-major. A nil rng
// draws nothing and leaves the values as they are (see NewModel).
func (p *Param) uniform(rng *rand.Rand, bound float64) {
	if rng == nil {
		return
	}
	for i := range p.Value {
		p.Value[i] = (2*rng.Float64() - 1) * bound
	}
}

// glorot draws from the Glorot (Xavier) uniform distribution of a
// fanIn x fanOut weight: U(-sqrt(6/(fanIn+fanOut)), +sqrt(6/(fanIn+fanOut))).
func (p *Param) glorot(rng *rand.Rand, fanIn, fanOut int) {
	p.uniform(rng, math.Sqrt(6/float64(fanIn+fanOut)))
}

// buffer is a reusable backing store for a dense matrix whose shape may
// change between calls (a client's graph, then a proxy graph). Its
// contents are not cleared on reuse.
type buffer struct {
	m    *mat.Dense
	data []float64
}

// get returns an r x c matrix backed by the buffer, reusing the previous
// matrix when the shape is unchanged. r and c must be positive.
func (b *buffer) get(r, c int) *mat.Dense {
	if b.m != nil {
		if rr, cc := b.m.Dims(); rr == r && cc == c && b.m.RawMatrix().Stride == c {
			return b.m
		}
	}
	if cap(b.data) < r*c {
		b.data = make([]float64, r*c)
	}
	b.m = mat.NewDense(r, c, b.data[:r*c])
	return b.m
}

// padded returns an r x c matrix backed by the buffer whose rows are
// padStride(c) apart, reusing the previous matrix when the shape is
// unchanged. r and c must be positive.
func (b *buffer) padded(r, c int) *mat.Dense {
	s := padStride(c)
	if b.m != nil {
		if rr, cc := b.m.Dims(); rr == r && cc == c && b.m.RawMatrix().Stride == s {
			return b.m
		}
	}
	if cap(b.data) < (r-1)*s+c {
		b.data = make([]float64, r*s)
	}
	b.m = mat.NewDense(r, s, b.data[:r*s]).Slice(0, r, 0, c).(*mat.Dense)
	return b.m
}

// source returns p's value (rows x cols) as the source of a product that
// reads its rows reads times in all: copied to padded(rows, cols) when
// that is at least padReuse times a row, so that the copy pays, and p
// itself when not.
func (b *buffer) source(p *Param, reads int) *mat.Dense {
	if reads < padReuse*p.Rows {
		return p.Matrix()
	}
	return b.paddedCopy(p.Matrix())
}

// paddedCopy returns a copy of m in padded(rows, cols of m).
func (b *buffer) paddedCopy(m *mat.Dense) *mat.Dense {
	p := b.padded(m.Dims())
	p.Copy(m)
	return p
}

// padReuse is how many reads of each row of a source repay copying it
// to padded rows.
const padReuse = 8

// paddedZeros returns padded(r, c) with every entry set to zero.
func (b *buffer) paddedZeros(r, c int) *mat.Dense {
	m := b.padded(r, c)
	clear(b.data[:(r-1)*m.RawMatrix().Stride+c])
	return m
}

// padStride returns the row stride, in float64s, at which rows of c
// columns are kept when the rows of a product's source: c, or c + 8
// (one cache line more) when c is a multiple of 64. Rows 512 bytes apart
// (or any multiple) fall into the same few sets of the first-level
// cache, which then holds only a few of them: a strip of the 256-column
// weight over its 767 rows (Amazon-Computer) was summed a third slower
// than with rows one line further apart.
func padStride(c int) int {
	if c%64 == 0 {
		return c + 8
	}
	return c
}

// zeros returns get(r, c) with every entry set to zero.
func (b *buffer) zeros(r, c int) *mat.Dense {
	m := b.get(r, c)
	clear(b.data[:r*c])
	return m
}

// grow returns s resized to n, reallocating only when its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
