package sim

import "github.com/fedaux/fedaux/gnn"

// flattenInto appends the values of params, in order, to dst[:0].
func flattenInto(dst []float64, params []*gnn.Param) []float64 {
	dst = dst[:0]
	for _, p := range params {
		dst = append(dst, p.Value...)
	}
	return dst
}

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
