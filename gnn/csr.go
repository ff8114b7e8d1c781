package gnn

import (
	"errors"
	"fmt"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// CSR is a sparse matrix in compressed sparse row form, laid out like
// graphio.CSR so that the two convert by sharing slices: row i holds the
// column indices Indices[Indptr[i]:Indptr[i+1]] with the values
// Values[Indptr[i]:Indptr[i+1]].
type CSR struct {
	Rows, Cols int
	Indptr     []int
	Indices    []int
	Values     []float64
}

// NNZ returns the number of stored entries.
func (c *CSR) NNZ() int { return len(c.Indices) }

// Validate reports the first structural problem of c: a negative shape,
// wrong slice lengths, a row pointer that is not monotone, or a column
// index out of range.
func (c *CSR) Validate() error {
	if c.Rows < 0 || c.Cols < 0 {
		return fmt.Errorf("gnn: CSR has negative shape %dx%d", c.Rows, c.Cols)
	}
	if len(c.Indptr) != c.Rows+1 {
		return fmt.Errorf("gnn: CSR indptr has length %d, want rows+1 = %d", len(c.Indptr), c.Rows+1)
	}
	if c.Indptr[0] != 0 {
		return fmt.Errorf("gnn: CSR indptr[0] = %d, want 0", c.Indptr[0])
	}
	for i := 0; i < c.Rows; i++ {
		if c.Indptr[i+1] < c.Indptr[i] {
			return fmt.Errorf("gnn: CSR indptr not monotone at row %d", i)
		}
	}
	if n := c.Indptr[c.Rows]; n != len(c.Indices) || n != len(c.Values) {
		return fmt.Errorf("gnn: CSR indptr ends at %d but there are %d indices and %d values", n, len(c.Indices), len(c.Values))
	}
	for k, j := range c.Indices {
		if j < 0 || j >= c.Cols {
			return fmt.Errorf("gnn: CSR column index %d at entry %d out of range [0,%d)", j, k, c.Cols)
		}
	}
	return nil
}

// Dense returns c as a dense matrix (duplicates summed). For tests and
// small matrices.
func (c *CSR) Dense() *mat.Dense {
	d := mat.NewDense(max(c.Rows, 1), max(c.Cols, 1), nil)
	for i := 0; i < c.Rows; i++ {
		for k := c.Indptr[i]; k < c.Indptr[i+1]; k++ {
			j := c.Indices[k]
			d.Set(i, j, d.At(i, j)+c.Values[k])
		}
	}
	return d
}

// CSRFromDense returns the non-zero entries of m in CSR form, columns
// sorted within each row.
func CSRFromDense(m mat.Matrix) *CSR {
	r, cols := m.Dims()
	c := &CSR{Rows: r, Cols: cols, Indptr: make([]int, r+1)}
	for i := 0; i < r; i++ {
		for j := 0; j < cols; j++ {
			if v := m.At(i, j); v != 0 {
				c.Indices = append(c.Indices, j)
				c.Values = append(c.Values, v)
			}
		}
		c.Indptr[i+1] = len(c.Indices)
	}
	return c
}

// mulDense sets dst = c * b. dst is c.Rows x m and b is c.Cols x m; only
// the rows of b that c references are read. Row i of dst is summed from
// +0 over the entries of row i of c in their order, each product and
// each sum rounded (vec.RowSums), termRows rows at a time.
func (c *CSR) mulDense(dst, b *mat.Dense) {
	d, br := dst.RawMatrix(), b.RawMatrix()
	bt := getTerms()
	defer putTerms(bt)
	for i0 := 0; i0 < c.Rows; i0 += termRows {
		i1 := min(i0+termRows, c.Rows)
		bt.reset(i1-i0, 0)
		for k := c.Indptr[i0]; k < c.Indptr[i1]; k++ {
			bt.t = append(bt.t, vec.Term{Off: c.Indices[k] * br.Stride, A: c.Values[k]})
		}
		for i := i0; i < i1; i++ {
			bt.n[i-i0] = c.Indptr[i+1] - c.Indptr[i]
		}
		vec.RowSums(d.Data[i0*d.Stride:], d.Stride, d.Cols, br.Data, bt.t, bt.n, true)
	}
}

// mulTransAdd adds c^T * b to dst (dst c.Cols x m, b c.Rows x m): row j
// of dst gains c_ij times row i of b for every entry of column j of c, in
// the order of i and, within row i, of the entries, explicit zeros
// included, each product and each sum rounded (vec.RowSumsAt), as from a
// loop over the rows of c that adds each entry's scaled row in turn.
func (c *CSR) mulTransAdd(dst, b *mat.Dense) {
	d, br := dst.RawMatrix(), b.RawMatrix()
	bt := getTerms()
	defer putTerms(bt)
	bt.csrColumns(c, br.Stride)
	off := bt.offsets(len(bt.cols))
	for q, j := range bt.cols {
		off[q] = j * d.Stride
	}
	vec.RowSumsAt(d.Data, off, d.Cols, br.Data, bt.t, bt.n, false)
}

// Features holds a node feature matrix: exactly one of Sparse and Dense
// is non-nil. Sparse suits bag-of-words features (first layer); Dense
// suits hidden activations and random proxy-graph features.
type Features struct {
	Sparse *CSR
	Dense  *mat.Dense
}

// Dims returns the number of rows (nodes) and columns (features).
func (f Features) Dims() (rows, cols int) {
	if f.Sparse != nil {
		return f.Sparse.Rows, f.Sparse.Cols
	}
	if f.Dense != nil {
		return f.Dense.Dims()
	}
	return 0, 0
}

// Validate reports whether exactly one representation is set and, for a
// sparse one, whether it is well formed.
func (f Features) Validate() error {
	switch {
	case f.Sparse != nil && f.Dense != nil:
		return errors.New("gnn: features are both sparse and dense")
	case f.Sparse != nil:
		return f.Sparse.Validate()
	case f.Dense != nil:
		return nil
	}
	return errors.New("gnn: features are empty")
}
