package graphio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// PlanetoidParts are the eight raw files of a Planetoid dataset, as
// ind.<name>.<part> (kimiyoung/planetoid, data/).
var PlanetoidParts = []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"}

// maxPlanetoidFile bounds the size of a raw file read into memory (the
// largest published one, ind.pubmed.allx, has 7.6 MB).
const maxPlanetoidFile = 1 << 30

// LoadPlanetoid reads the Planetoid raw files ind.<name>.{x, y, tx, ty,
// allx, ally, graph, test.index} in dir (Python 2 pickles of SciPy CSR
// matrices, NumPy one-hot label arrays and a dict of adjacency lists, and
// a text file of test node ids) and builds the graph as PyTorch
// Geometric's read_planetoid_data does:
//
//   - features vstack(allx, tx) and labels argmax(vstack(ally, ty)) (the
//     first maximum; an all-zero row gives 0), then row test_index[i]
//     takes row sorted(test_index)[i];
//   - when the test ids leave gaps (CiteSeer's 15 isolated test-range
//     nodes), tx and ty are first padded with zero rows at the missing
//     ids, so those nodes get all-zero features and label 0;
//   - edges are every (key, neighbour) pair of the graph file, self loops
//     dropped, duplicates merged, made undirected (the published files are
//     already undirected, so this adds no edge to Cora or CiteSeer).
//
// The result equals cora.npz and citeseer.npz (as LoadNPZ reads them)
// node for node. Name is name. Errors name the file and the problem; a
// malformed pickle is an error, never a panic.
func LoadPlanetoid(dir, name string) (*Graph, error) {
	g, err := loadPlanetoid(dir, name)
	if err != nil {
		return nil, fmt.Errorf("graphio: planetoid %s in %s: %w", name, dir, err)
	}
	g.Name = name
	return g, nil
}

// PlanetoidFile returns the path of one raw file of a Planetoid dataset.
func PlanetoidFile(dir, name, part string) string {
	return filepath.Join(dir, "ind."+name+"."+part)
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPlanetoidFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxPlanetoidFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxPlanetoidFile)
	}
	return b, nil
}

func loadPlanetoid(dir, name string) (*Graph, error) {
	mats := map[string]*CSR{}
	for _, part := range []string{"allx", "tx"} {
		p := PlanetoidFile(dir, name, part)
		b, err := readBounded(p)
		if err != nil {
			return nil, err
		}
		m, err := parsePlanetoidMatrix(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		mats[part] = m
	}
	labels := map[string][]int{}
	var classes int
	for _, part := range []string{"ally", "ty"} {
		p := PlanetoidFile(dir, name, part)
		b, err := readBounded(p)
		if err != nil {
			return nil, err
		}
		y, c, err := parsePlanetoidLabels(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if classes != 0 && c != classes {
			return nil, fmt.Errorf("%s: %d classes, but ally has %d", p, c, classes)
		}
		labels[part], classes = y, c
	}
	p := PlanetoidFile(dir, name, "test.index")
	b, err := readBounded(p)
	if err != nil {
		return nil, err
	}
	test, err := parseIndexFile(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	p = PlanetoidFile(dir, name, "graph")
	if b, err = readBounded(p); err != nil {
		return nil, err
	}
	keys, lists, err := parsePlanetoidGraph(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return assemblePlanetoid(mats["allx"], mats["tx"], labels["ally"], labels["ty"], classes, test, keys, lists)
}

// parsePlanetoidMatrix reads a pickled csr_matrix (x, tx, allx).
func parsePlanetoidMatrix(b []byte) (*CSR, error) {
	v, err := unpickle(b)
	if err != nil {
		return nil, err
	}
	return asCSRMatrix(v)
}

// parsePlanetoidLabels reads a pickled one-hot label array (y, ty, ally)
// and returns each row's first largest column and the number of columns.
func parsePlanetoidLabels(b []byte) ([]int, int, error) {
	v, err := unpickle(b)
	if err != nil {
		return nil, 0, err
	}
	a, err := asNDArray(v)
	if err != nil {
		return nil, 0, err
	}
	if len(a.shape) != 2 || a.shape[1] < 1 {
		return nil, 0, fmt.Errorf("label array of shape %v, want rows x classes", a.shape)
	}
	rows, c := a.shape[0], a.shape[1]
	y := make([]int, rows)
	for i := range rows {
		row := a.data[i*c : (i+1)*c]
		for j, x := range row {
			if x > row[y[i]] {
				y[i] = j
			}
		}
	}
	return y, c, nil
}

// parsePlanetoidGraph reads the pickled dict of adjacency lists.
func parsePlanetoidGraph(b []byte) ([]int, [][]int, error) {
	v, err := unpickle(b)
	if err != nil {
		return nil, nil, err
	}
	return asAdjacency(v)
}

// parseIndexFile reads one non-negative integer a line.
func parseIndexFile(b []byte) ([]int, error) {
	var out []int
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 1<<31-1 {
			return nil, fmt.Errorf("line %d: %q is not a node id", line, s)
		}
		out = append(out, n)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no node id")
	}
	return out, nil
}

// assemblePlanetoid builds the graph from the parsed parts (see
// LoadPlanetoid).
func assemblePlanetoid(allx, tx *CSR, ally, ty []int, classes int, test, keys []int, lists [][]int) (*Graph, error) {
	switch {
	case allx.Cols != tx.Cols:
		return nil, fmt.Errorf("allx has %d feature columns, tx %d", allx.Cols, tx.Cols)
	case allx.Cols == 0:
		return nil, fmt.Errorf("allx has no feature column")
	case len(ally) != allx.Rows:
		return nil, fmt.Errorf("ally has %d rows, allx %d", len(ally), allx.Rows)
	case len(ty) != tx.Rows:
		return nil, fmt.Errorf("ty has %d rows, tx %d", len(ty), tx.Rows)
	}
	sorted := slices.Clone(test)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return nil, fmt.Errorf("test.index lists node %d twice", sorted[i])
		}
	}
	lo, hi := sorted[0], sorted[len(sorted)-1]
	if lo != allx.Rows {
		return nil, fmt.Errorf("test.index starts at node %d, want %d (the rows of allx)", lo, allx.Rows)
	}
	if len(test) != tx.Rows {
		return nil, fmt.Errorf("test.index lists %d nodes, tx has %d rows", len(test), tx.Rows)
	}
	// The test range lo..hi, with tx's rows at the listed ids (in sorted
	// order) and zero rows at the gaps.
	span := hi - lo + 1
	rowOf := make([]int, span) // tx row of test-range slot, or -1
	for i := range rowOf {
		rowOf[i] = -1
	}
	for r, id := range sorted {
		rowOf[id-lo] = r
	}
	n := allx.Rows + span
	// Before the permutation, node v < lo is allx row v, node lo+s is slot
	// s. After it, node test[i] takes the row of node sorted[i].
	src := make([]int, n)
	for v := range src {
		src[v] = v
	}
	for i, id := range test {
		src[id] = sorted[i]
	}
	x := &CSR{Rows: n, Cols: allx.Cols, Indptr: make([]int, n+1)}
	labels := make([]int, n)
	for v := range n {
		var cols []int
		var vals []float64
		u := src[v]
		if u < lo {
			cols, vals = allx.Row(u)
			labels[v] = ally[u]
		} else if r := rowOf[u-lo]; r >= 0 {
			cols, vals = tx.Row(r)
			labels[v] = ty[r]
		}
		x.Indices = append(x.Indices, cols...)
		x.Values = append(x.Values, vals...)
		x.Indptr[v+1] = len(x.Indices)
	}
	var s, d []int32
	for i, k := range keys {
		if k >= n {
			return nil, fmt.Errorf("graph: node %d out of range [0,%d)", k, n)
		}
		for _, j := range lists[i] {
			if j >= n {
				return nil, fmt.Errorf("graph: neighbour %d of node %d out of range [0,%d)", j, k, n)
			}
			if j != k {
				s, d = append(s, int32(k)), append(d, int32(j))
			}
		}
	}
	return &Graph{
		Adj:        undirectedCSR(n, s, d),
		Features:   canonicalCSR(x),
		Labels:     labels,
		NumClasses: classes,
	}, nil
}
