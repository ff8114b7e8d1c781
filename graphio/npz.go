package graphio

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"path/filepath"
	"slices"
	"strings"
)

// maxLabel bounds class ids read from files, so that a corrupt label cannot
// make NumClasses absurdly large.
const maxLabel = 1<<20 - 1

// maxFeatures bounds the feature count read from attr_shape, so that a
// corrupt shape cannot make the per-feature arrays of the statistics and
// the first layer exhaust memory.
const maxFeatures = 1 << 24

// LoadNPZ reads a graph stored in the gnn-benchmark / Planetoid CSR .npz
// schema (members adj_data, adj_indices, adj_indptr, adj_shape, attr_data,
// attr_indices, attr_indptr, attr_shape and labels, each with the ".npy"
// suffix; class_names and the Planetoid idx_* keys are not read).
//
// The adjacency is built as PyTorch Geometric's read_npz builds it: every
// stored entry (i, j) is an edge whatever its value, self loops are
// dropped, the graph is made undirected (the Amazon files are stored
// asymmetric) and duplicates are merged; the result has sorted columns and
// all values 1. Features become a sparse CSR with the stored values, its
// rows' columns sorted and duplicates summed. NumClasses is the largest
// label plus one; Name is the file's base name without its extension.
//
// Every array is validated: a missing key, a dtype or shape that does not
// fit, truncated members, CSR arrays that disagree, negative or absurd
// labels (or labels beyond class_names when that key exists), non-finite
// values, a graph without nodes and features without columns are errors
// of the form "graphio: PATH: problem".
func LoadNPZ(path string) (*Graph, error) {
	g, err := loadNPZ(path)
	if err != nil {
		return nil, fmt.Errorf("graphio: %s: %w", path, err)
	}
	g.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return g, nil
}

func loadNPZ(path string) (*Graph, error) {
	a, err := openNPZ(path)
	if err != nil {
		return nil, err
	}
	defer a.Close()

	// The features are read and put in canonical order on a second
	// goroutine while this one reads the adjacency and the labels; the
	// errors are reported in the order a sequential read finds them.
	var (
		x, features *CSR
		xErr        error
		xDone       = make(chan struct{})
	)
	go func() {
		defer close(xDone)
		if x, xErr = readCSR(a, "attr"); xErr == nil && x.Cols > 0 {
			features = canonicalCSR(x)
		}
	}()
	defer func() { <-xDone }()

	adj, err := readCSR(a, "adj")
	if err != nil {
		return nil, err
	}
	if adj.Rows != adj.Cols {
		return nil, fmt.Errorf("adj_shape is %dx%d, want a square matrix", adj.Rows, adj.Cols)
	}
	if adj.Rows == 0 {
		return nil, fmt.Errorf("adj_shape is 0x0: the graph has no node")
	}
	n := adj.Rows
	sym := symmetrize(adj)
	<-xDone
	if xErr != nil {
		return nil, xErr
	}
	if x.Rows != n {
		return nil, fmt.Errorf("attr_shape has %d rows but adj_shape has %d nodes", x.Rows, n)
	}
	if x.Cols == 0 {
		return nil, fmt.Errorf("attr_shape is %dx0: the nodes have no feature", x.Rows)
	}
	if x.Cols > maxFeatures {
		return nil, fmt.Errorf("attr_shape is %dx%d: %d features, want at most %d", x.Rows, x.Cols, x.Cols, maxFeatures)
	}
	labels, err := a.ints("labels")
	if err != nil {
		return nil, err
	}
	if len(labels) != n {
		return nil, fmt.Errorf("labels has %d entries, want %d (one per node)", len(labels), n)
	}
	limit := maxLabel
	if a.has("class_names") {
		// npyio misdecodes the <U19 strings, but the header's shape is
		// reliable and bounds the labels.
		arr, err := a.header("class_names", false)
		if err == nil && len(arr.shape) == 1 {
			limit = arr.shape[0] - 1
		}
	}
	numClasses := 0
	for i, y := range labels {
		if y < 0 {
			return nil, fmt.Errorf("label %d of node %d is negative", y, i)
		}
		if y > limit {
			return nil, fmt.Errorf("label %d of node %d out of range [0,%d]", y, i, limit)
		}
		numClasses = max(numClasses, y+1)
	}
	if numClasses > n {
		return nil, moreClassesThanNodes(labels, n)
	}
	return &Graph{
		Adj:        sym,
		Features:   features,
		Labels:     labels,
		NumClasses: numClasses,
	}, nil
}

// moreClassesThanNodes reports the largest of labels when the class
// count it makes (largest + 1) is more than the n nodes: a class with no
// node, as a corrupt label makes.
func moreClassesThanNodes(labels []int, n int) error {
	i := 0
	for j, y := range labels {
		if y > labels[i] {
			i = j
		}
	}
	return fmt.Errorf("label %d of node %d makes %d classes for %d nodes; want labels 0..C-1 with C <= nodes", labels[i], i, labels[i]+1, n)
}

// checkNPYPreamble checks the fixed start of a .npy member (magic, version
// and header length) against the member's size before npyio reads it:
// npyio allocates whatever header length the file declares, up to 4 GiB.
func checkNPYPreamble(raw []byte) error {
	const magic = "\x93NUMPY"
	if len(raw) < len(magic)+4 || string(raw[:len(magic)]) != magic {
		return errors.New("not .npy data (no \\x93NUMPY magic and version)")
	}
	var n, start int
	switch major := raw[6]; major {
	case 1:
		n, start = int(binary.LittleEndian.Uint16(raw[8:10])), 10
	case 2, 3:
		if len(raw) < 12 {
			return fmt.Errorf("truncated: %d bytes", len(raw))
		}
		n, start = int(binary.LittleEndian.Uint32(raw[8:12])), 12
	default:
		return fmt.Errorf("unsupported .npy format version %d", major)
	}
	if n > len(raw)-start {
		return fmt.Errorf("declares a header of %d bytes, but the member has %d after the preamble (truncated or corrupt)", n, len(raw)-start)
	}
	return nil
}

// readCSR reads the members PREFIX_data, PREFIX_indices, PREFIX_indptr and
// PREFIX_shape into a validated CSR.
func readCSR(a *npzArchive, prefix string) (*CSR, error) {
	shape, err := a.ints(prefix + "_shape")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 {
		return nil, fmt.Errorf("%s_shape has %d entries, want 2", prefix, len(shape))
	}
	if shape[0] < 0 || shape[1] < 0 {
		return nil, fmt.Errorf("%s_shape %v is negative", prefix, shape)
	}
	indptr, err := a.ints(prefix + "_indptr")
	if err != nil {
		return nil, err
	}
	indices, err := a.ints(prefix + "_indices")
	if err != nil {
		return nil, err
	}
	data, err := a.floats(prefix + "_data")
	if err != nil {
		return nil, err
	}
	c := &CSR{Rows: shape[0], Cols: shape[1], Indptr: indptr, Indices: indices, Values: data}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s CSR arrays disagree: %w", prefix, err)
	}
	return c, nil
}

// symmetrize returns the undirected simple graph of the square pattern c:
// entry (i, j) of the result is 1 when i != j and (i, j) or (j, i) is stored
// in c; columns are sorted.
func symmetrize(c *CSR) *CSR {
	var src, dst []int32
	for i := range c.Rows {
		for _, j := range c.Indices[c.Indptr[i]:c.Indptr[i+1]] {
			if i != j {
				src, dst = append(src, int32(i)), append(dst, int32(j))
			}
		}
	}
	return undirectedCSR(c.Rows, src, dst)
}

// canonicalCSR sorts the columns of every row of c and sums duplicate
// entries, returning a new CSR (scipy's sum_duplicates). Explicit zeros are
// kept.
//
// A row without duplicates whose columns span few more than its entries
// (the bag-of-words rows of the Amazon sets, stored unsorted) is placed by
// its columns through a bit set of Cols bits, in time linear in the row
// and in Cols/64; other unsorted rows are sorted.
func canonicalCSR(c *CSR) *CSR {
	out := &CSR{Rows: c.Rows, Cols: c.Cols, Indptr: make([]int, c.Rows+1),
		Indices: make([]int, 0, c.NNZ()), Values: make([]float64, 0, c.NNZ())}
	var buf []csrEntry
	var set *columnSet
	for i := range c.Rows {
		cols, vals := c.Row(i)
		switch {
		case slices.IsSorted(cols) && !hasAdjacentDup(cols):
			out.Indices = append(out.Indices, cols...)
			out.Values = append(out.Values, vals...)
		case c.Cols <= 256*len(cols)+4096:
			if set == nil {
				set = newColumnSet(c.Cols)
			}
			if !set.place(out, cols, vals) {
				buf = sortRow(out, cols, vals, buf)
			}
		default:
			buf = sortRow(out, cols, vals, buf)
		}
		out.Indptr[i+1] = len(out.Indices)
	}
	return out
}

type csrEntry struct {
	j int
	v float64
}

// A columnSet places the entries of a row in the order of their columns:
// a bit per column and the value of each column present. Between rows
// its bits are all zero.
type columnSet struct {
	bits []uint64
	vals []float64
}

func newColumnSet(cols int) *columnSet {
	return &columnSet{bits: make([]uint64, (cols+63)/64), vals: make([]float64, cols)}
}

// place appends the entries of a row (columns cols, values vals) to out
// in the order of their columns and reports true; it appends nothing and
// reports false when a column repeats.
func (s *columnSet) place(out *CSR, cols []int, vals []float64) bool {
	lo, hi := len(s.bits), -1
	for k, j := range cols {
		w, b := j>>6, uint64(1)<<(j&63)
		if s.bits[w]&b != 0 {
			for _, j := range cols[:k] {
				s.bits[j>>6] = 0
			}
			return false
		}
		s.bits[w] |= b
		s.vals[j] = vals[k]
		lo, hi = min(lo, w), max(hi, w)
	}
	for w := lo; w <= hi; w++ {
		for x := s.bits[w]; x != 0; x &= x - 1 {
			j := w<<6 | bits.TrailingZeros64(x)
			out.Indices = append(out.Indices, j)
			out.Values = append(out.Values, s.vals[j])
		}
		s.bits[w] = 0
	}
	return true
}

// sortRow appends the entries of a row to out sorted by column, summing
// the entries of a repeated column, and returns buf for reuse.
func sortRow(out *CSR, cols []int, vals []float64, buf []csrEntry) []csrEntry {
	buf = buf[:0]
	for k, j := range cols {
		buf = append(buf, csrEntry{j, vals[k]})
	}
	slices.SortFunc(buf, func(a, b csrEntry) int { return cmp.Compare(a.j, b.j) })
	for k, e := range buf {
		if k > 0 && e.j == buf[k-1].j {
			out.Values[len(out.Values)-1] += e.v
			continue
		}
		out.Indices = append(out.Indices, e.j)
		out.Values = append(out.Values, e.v)
	}
	return buf
}

func hasAdjacentDup(s []int) bool {
	for k := 1; k < len(s); k++ {
		if s[k] == s[k-1] {
			return true
		}
	}
	return false
}
