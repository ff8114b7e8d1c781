package sim

import (
	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/internal/vec"
)

// flattenInto appends the values of params, in order, to dst[:0].
func flattenInto(dst []float64, params []*gnn.Param) []float64 {
	dst = dst[:0]
	for _, p := range params {
		dst = append(dst, p.Value...)
	}
	return dst
}

// flattenChecked is flattenInto that also returns the index of the first
// NaN or infinite entry of the result (-1 if none): each chunk is checked
// as it is copied, while it is still in cache, instead of in a second
// pass over the whole vector.
func flattenChecked(dst []float64, params []*gnn.Param) (v []float64, bad int) {
	dst, bad = dst[:0], -1
	for _, p := range params {
		for i := 0; i < len(p.Value); i += flattenChunk {
			chunk := p.Value[i:min(i+flattenChunk, len(p.Value))]
			if bad < 0 {
				if j := vec.FirstNonFinite(chunk); j >= 0 {
					bad = len(dst) + j
				}
			}
			dst = append(dst, chunk...)
		}
	}
	return dst, bad
}

// flattenChunk is the number of entries flattenChecked checks and copies
// at a time (8 KiB).
const flattenChunk = 1024

// proximal adds the gradient of (mu/2)||theta - ref||^2, mu (theta - ref),
// to the gradients of params (ref holds their values in layout order) and
// returns the term's value.
func proximal(params []*gnn.Param, ref []float64, mu float64) float64 {
	var sq float64
	off := 0
	for _, p := range params {
		r := ref[off : off+len(p.Value)]
		for i, v := range p.Value {
			d := v - r[i]
			sq += d * d
			p.Grad[i] += mu * d
		}
		off += len(p.Value)
	}
	return mu / 2 * sq
}

// difference returns a - b as a new vector.
func difference(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return d
}
