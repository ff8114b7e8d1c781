package graphio

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// denseFeatureFraction is the share of non-zero features above which a
// heterophilous graph keeps its features dense.
const denseFeatureFraction = 0.5

// LoadHeterophilous reads a graph in the schema of Platonov et al.'s
// heterophilous benchmark (yandex-research/heterophilous-graphs,
// data/NAME.npz): node_features float [N, F], node_labels int [N] and
// edges int [E, 2]. The edges are made undirected, self loops dropped and
// duplicates merged, as the paper's models treat them. Features stay as
// stored (no normalisation), sparse unless more than half are non-zero.
// The file's ten fixed splits (train_masks, val_masks, test_masks) are not
// read: fedaux draws its own split before partitioning. Errors are of the
// form "graphio: PATH: problem".
func LoadHeterophilous(path string) (*Graph, error) {
	g, err := loadHeterophilous(path)
	if err != nil {
		return nil, fmt.Errorf("graphio: %s: %w", path, err)
	}
	g.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return g, nil
}

// IsHeterophilous reports whether the .npz file at path is in the
// heterophilous schema (it has node_features and edges).
func IsHeterophilous(path string) bool {
	a, err := openNPZ(path)
	if err != nil {
		return false
	}
	defer a.Close()
	return a.has("node_features") && a.has("edges")
}

func loadHeterophilous(path string) (*Graph, error) {
	a, err := openNPZ(path)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	x, xs, err := a.floatsND("node_features")
	if err != nil {
		return nil, err
	}
	if len(xs) != 2 || xs[0] == 0 || xs[1] == 0 {
		return nil, fmt.Errorf("node_features has shape %v, want nodes x features, both > 0", xs)
	}
	n, f := xs[0], xs[1]
	labels, err := a.ints("node_labels")
	if err != nil {
		return nil, err
	}
	if len(labels) != n {
		return nil, fmt.Errorf("node_labels has %d entries, want %d (one per node)", len(labels), n)
	}
	classes := 0
	for i, y := range labels {
		if y < 0 || y > maxLabel {
			return nil, fmt.Errorf("label %d of node %d out of range [0,%d]", y, i, maxLabel)
		}
		classes = max(classes, y+1)
	}
	if classes < 2 {
		return nil, fmt.Errorf("node_labels has %d class, want at least 2", classes)
	}
	if classes > n {
		return nil, moreClassesThanNodes(labels, n)
	}
	e, es, err := a.intsND("edges")
	if err != nil {
		return nil, err
	}
	if len(es) != 2 || es[1] != 2 {
		return nil, fmt.Errorf("edges has shape %v, want E x 2", es)
	}
	var src, dst []int32
	for k := 0; k < len(e); k += 2 {
		u, v := e[k], e[k+1]
		if u < 0 || u >= n || v < 0 || v >= n {
			return nil, fmt.Errorf("edge %d (%d, %d) has a node out of range [0,%d)", k/2, u, v, n)
		}
		if u != v {
			src, dst = append(src, int32(u)), append(dst, int32(v))
		}
	}
	g := &Graph{Adj: undirectedCSR(n, src, dst), Labels: labels, NumClasses: classes}
	nnz := 0
	for _, v := range x {
		if v != 0 {
			nnz++
		}
	}
	if float64(nnz) > denseFeatureFraction*float64(len(x)) {
		g.Dense = mat.NewDense(n, f, x)
		return g, nil
	}
	c := &CSR{Rows: n, Cols: f, Indptr: make([]int, n+1), Indices: make([]int, 0, nnz), Values: make([]float64, 0, nnz)}
	for i := range n {
		for j, v := range x[i*f : (i+1)*f] {
			if v != 0 {
				c.Indices = append(c.Indices, j)
				c.Values = append(c.Values, v)
			}
		}
		c.Indptr[i+1] = len(c.Indices)
	}
	g.Features = c
	return g, nil
}

// Load reads the graph at path in whichever format it is: an OGB raw-CSV
// directory (LoadOGB), the prefix DIR/ind.NAME of the Planetoid raw files
// (LoadPlanetoid), a .npz in the heterophilous schema
// (LoadHeterophilous) or in the gnn-benchmark schema (LoadNPZ).
func Load(path string) (*Graph, error) {
	if dir, name, ok := PlanetoidPrefix(path); ok {
		return LoadPlanetoid(dir, name)
	}
	if isDir(path) {
		return LoadOGB(path)
	}
	if IsHeterophilous(path) {
		return LoadHeterophilous(path)
	}
	return LoadNPZ(path)
}

// PlanetoidPrefix reports whether path names Planetoid raw files by their
// common prefix DIR/ind.NAME, and returns DIR and NAME.
func PlanetoidPrefix(path string) (dir, name string, ok bool) {
	base := filepath.Base(path)
	name, ok = strings.CutPrefix(base, "ind.")
	if !ok || name == "" || strings.Contains(name, ".") {
		return "", "", false
	}
	return filepath.Dir(path), name, true
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
