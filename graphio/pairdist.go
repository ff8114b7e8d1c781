package graphio

// The pairwise squared distances of the MMD term (NonIIDWith): blocks of
// the Gram matrix Z Z^T, dense or sparse, turned into distances.

import (
	"slices"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/floats"
)

// gramBlock is the number of rows of one Z Z^T block.
const gramBlock = 512

// rowStart is the offset of row i in the packed strict upper triangle of
// an m x m matrix.
func rowStart(i, m int) int { return i*m - i*(i+1)/2 }

// pairDistances returns the squared distances ||z_i - z_j||^2 for i < j in
// the packed strict upper triangle (row-major), in single precision. The
// Gram blocks Z_I Z^T come from dot products of rows (denseGram), or from
// sparse row products when z has few non-zeros (bag-of-words features on
// sparse graphs).
func pairDistances(z []float64, m, f, workers int) []float32 {
	norms := make([]float64, m)
	nnz := 0
	for i := range m {
		row := z[i*f : (i+1)*f]
		norms[i] = floats.Dot(row, row)
		for _, x := range row {
			if x != 0 {
				nnz++
			}
		}
	}
	d2 := make([]float32, m*(m-1)/2)
	if f == 0 || m < 2 {
		return d2
	}
	// gram(i0, b, g) fills g with the b x (m-i0) block Z[i0:i0+b] Z[i0:]^T;
	// entry (r, c) is at g[r*rs + c*cs].
	var gram func(i0, b int, g []float64) (rs, cs int)
	if nnz*8 < m*f {
		gram = sparseGram(z, m, f, workers)
	} else {
		gram = denseGram(z, m, f, workers)
	}
	buf := make([]float64, gramBlock*m)
	for i0 := 0; i0 < m-1; i0 += gramBlock {
		b := min(gramBlock, m-i0)
		w := m - i0
		rs, cs := gram(i0, b, buf)
		parallelRange(b, workers, func(r int) {
			i := i0 + r
			out := d2[rowStart(i, m) : rowStart(i, m)+m-1-i]
			for c := r + 1; c < w; c++ {
				v := norms[i] + norms[i0+c] - 2*buf[r*rs+c*cs]
				if !(v > 0) { // also turns -0 and NaN into +0
					v = 0
				}
				out[c-r-1] = float32(v)
			}
		})
	}
	return d2
}

// gemmBlock and gemmMinPar are gonum's Dgemm block size and the number of
// blocks from which it splits a product into blocks (blas/gonum:
// blockSize, minParBlock), whose sums denseGram keeps.
const gemmBlock, gemmMinPar = 64, 4

// denseGram returns a Gram block function for a dense z: the b x w block
// Z[i0:i0+b] Z[i0:]^T, row-major, with the bits gonum's
// Dgemm(NoTrans, Trans, 1, ..., 0, ...) gives it, so that the facts of
// run logs written with gonum's product stay the same. Gonum splits a product of at least gemmMinPar
// blocks of gemmBlock x gemmBlock entries into such blocks and sums each
// entry from +0 by the dot products of its rows' gemmBlock-column pieces,
// in order; a smaller product gets +0 plus one dot product of the whole
// rows. Every dot product is vec.Dot's, which keeps the order of gonum's
// DotUnitary on amd64, so that the block is the same there; vec.DotMN
// computes them several rows at a time.
func denseGram(z []float64, m, f, workers int) func(i0, b int, g []float64) (int, int) {
	blocks := func(n int) int { return (n + gemmBlock - 1) / gemmBlock }
	var ys [][]float64
	return func(i0, b int, g []float64) (int, int) {
		w := m - i0
		piece := f
		if blocks(b)*blocks(w) >= gemmMinPar {
			piece = gemmBlock
		}
		np := (f + piece - 1) / piece
		ys = slices.Grow(ys[:0], np*w)[:np*w]
		for p := range np {
			k0, k1 := p*piece, min((p+1)*piece, f)
			for c := range w {
				ys[p*w+c] = z[(i0+c)*f+k0 : (i0+c)*f+k1]
			}
		}
		// A task sums a tile of rows x cols entries, piece after piece:
		// its pieces of z (64 x 64 and 256 x 64 entries) and its sums stay
		// in the second-level cache, and z is read from memory once a
		// tile rather than once a few rows.
		const rows, cols = 64, 256
		rt, ct := (b+rows-1)/rows, (w+cols-1)/cols
		forTasks(rt*ct, workers, func() func(t int) {
			dot := make([]float64, rows*cols)
			xs := make([][]float64, rows)
			return func(t int) {
				r0, c0 := t/ct*rows, t%ct*cols
				r1, c1 := min(r0+rows, b), min(c0+cols, w)
				nr, nc := r1-r0, c1-c0
				for a := r0; a < r1; a++ {
					clear(g[a*w+c0 : a*w+c1])
				}
				for p := range np {
					k0, k1 := p*piece, min((p+1)*piece, f)
					for a := range nr {
						xs[a] = z[(i0+r0+a)*f+k0 : (i0+r0+a)*f+k1]
					}
					d := dot[:nr*nc]
					vec.DotMN(d, xs[:nr], ys[p*w+c0:p*w+c1])
					for a := range nr {
						out := g[(r0+a)*w+c0 : (r0+a)*w+c1]
						for e, v := range d[a*nc : (a+1)*nc] {
							out[e] += v
						}
					}
				}
			}
		})
		return w, 1
	}
}

// sparseGram returns a Gram block function for a sparse z: column c of the
// block is the sum over the non-zeros (t, v) of row i0+c of v times row t
// of the transposed dense block Z[i0:i0+b]^T.
func sparseGram(z []float64, m, f, workers int) func(i0, b int, g []float64) (int, int) {
	ptr := make([]int, m+1)
	var idx []int32
	var val []float64
	for i := range m {
		for t, x := range z[i*f : (i+1)*f] {
			if x != 0 {
				idx = append(idx, int32(t))
				val = append(val, x)
			}
		}
		ptr[i+1] = len(idx)
	}
	zt := make([]float64, f*gramBlock)
	return func(i0, b int, g []float64) (int, int) {
		for r := range b {
			for p := ptr[i0+r]; p < ptr[i0+r+1]; p++ {
				zt[int(idx[p])*b+r] = val[p]
			}
		}
		w := m - i0
		const cols = 64
		parallelRange((w+cols-1)/cols, workers, func(task int) {
			for c := task * cols; c < min((task+1)*cols, w); c++ {
				gc := g[c*b : (c+1)*b]
				clear(gc)
				j := i0 + c
				for p := ptr[j]; p < ptr[j+1]; p++ {
					t := int(idx[p])
					floats.AddScaled(gc, val[p], zt[t*b:(t+1)*b])
				}
			}
		})
		for r := range b {
			for p := ptr[i0+r]; p < ptr[i0+r+1]; p++ {
				zt[int(idx[p])*b+r] = 0
			}
		}
		return 1, b
	}
}
