package graphio

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// OGB raw file names (ogbn-arxiv layout).
const (
	ogbEdgeFile  = "edge.csv.gz"
	ogbFeatFile  = "node-feat.csv.gz"
	ogbLabelFile = "node-label.csv.gz"
	ogbCountFile = "num-node-list.csv.gz"
)

// ogbMaxLabel bounds class ids read from OGB label files.
const ogbMaxLabel = 1<<20 - 1

// ogbMaxLine bounds the length of one CSV line.
const ogbMaxLine = 1 << 24

// IsOGB reports whether dir holds an OGB dataset in its raw CSV layout,
// as LoadOGB looks for it: an edge.csv.gz in dir/raw or in dir. An empty
// directory (what a failed download leaves) is not one.
func IsOGB(dir string) bool {
	_, ok := ogbRaw(dir)
	return ok
}

// ogbRaw returns the directory of dir's OGB raw files: dir/raw when it
// holds the edge file, else dir when it does; ok is false when neither.
func ogbRaw(dir string) (raw string, ok bool) {
	for _, d := range []string{filepath.Join(dir, "raw"), dir} {
		if fi, err := os.Stat(filepath.Join(d, ogbEdgeFile)); err == nil && !fi.IsDir() {
			return d, true
		}
	}
	return "", false
}

// LoadOGB reads an OGB node-property-prediction dataset in its raw CSV
// layout (ogbn-arxiv): edge.csv.gz (one "src,dst" row per directed edge),
// node-feat.csv.gz (one row of F comma-separated floats per node) and
// node-label.csv.gz (one integer class per node), all gzipped, without
// headers. The files are looked for in dir/raw, else in dir. When
// num-node-list.csv.gz is present its count must equal the number of
// feature rows; node_year.csv.gz and other files are ignored.
//
// The graph is built as the reference code builds ogbn-arxiv: every edge
// is made undirected, self loops are dropped and duplicates merged (sorted
// columns, values 1); the features are dense (Graph.Dense) and not
// normalised. The largest connected component is not taken here (see
// LargestComponent). NumClasses is the largest label plus one; Name is the
// base name of dir (of its parent when dir ends in "raw").
//
// Errors name the file and, for content problems, the line: a wrong column
// count, a non-numeric or NaN/Inf feature, a negative or absurd label, an
// edge endpoint outside [0, N), a row-count mismatch between the feature
// and label files, an empty file, or a truncated or corrupt gzip stream.
func LoadOGB(dir string) (*Graph, error) {
	raw, ok := ogbRaw(dir)
	if !ok {
		return nil, fmt.Errorf("graphio: LoadOGB: no %s in %s or %s", ogbEdgeFile, filepath.Join(dir, "raw"), dir)
	}
	var feat []float64
	var n, f int
	featPath := filepath.Join(raw, ogbFeatFile)
	err := readGzip(featPath, func(r io.Reader) (err error) {
		feat, n, f, err = parseOGBFeatures(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	var labels []int
	labelPath := filepath.Join(raw, ogbLabelFile)
	if err := readGzip(labelPath, func(r io.Reader) (err error) {
		labels, err = parseOGBLabels(r)
		return err
	}); err != nil {
		return nil, err
	}
	if len(labels) != n {
		return nil, fmt.Errorf("graphio: %s has %d rows but %s has %d", labelPath, len(labels), featPath, n)
	}
	countPath := filepath.Join(raw, ogbCountFile)
	if _, err := os.Stat(countPath); err == nil {
		var counts []int
		if err := readGzip(countPath, func(r io.Reader) (err error) {
			counts, err = parseOGBInts(r, math.MaxInt32)
			return err
		}); err != nil {
			return nil, err
		}
		if len(counts) != 1 || counts[0] != n {
			return nil, fmt.Errorf("graphio: %s lists %v nodes, but %s has %d rows", countPath, counts, featPath, n)
		}
	}
	var adj *CSR
	if err := readGzip(filepath.Join(raw, ogbEdgeFile), func(r io.Reader) (err error) {
		adj, err = parseOGBEdges(r, n)
		return err
	}); err != nil {
		return nil, err
	}
	name := filepath.Base(filepath.Clean(dir))
	if name == "raw" {
		name = filepath.Base(filepath.Dir(filepath.Clean(dir)))
	}
	return ogbGraph(name, adj, feat, n, f, labels), nil
}

// ogbGraph assembles the graph; n must be positive.
func ogbGraph(name string, adj *CSR, feat []float64, n, f int, labels []int) *Graph {
	return &Graph{Name: name, Adj: adj, Dense: mat.NewDense(n, f, feat),
		Labels: labels, NumClasses: slices.Max(labels) + 1}
}

// readGzip opens path, decompresses it and hands the stream to parse.
// Errors are prefixed with "graphio: PATH: "; a stream that ends early or
// fails its checksum is reported as truncated or corrupt.
func readGzip(path string, parse func(io.Reader) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("graphio: %w", err)
	}
	defer fh.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(fh, 1<<16))
	if err != nil {
		switch {
		case errors.Is(err, io.EOF):
			err = errors.New("empty file, not a gzip stream")
		case errors.Is(err, gzip.ErrHeader):
			err = fmt.Errorf("not a gzip stream: %w", err)
		default:
			err = gzipError(err)
		}
		return fmt.Errorf("graphio: %s: %w", path, err)
	}
	defer zr.Close()
	if err := parse(zr); err != nil {
		return fmt.Errorf("graphio: %s: %w", path, err)
	}
	// Read to the end so that the gzip trailer (CRC and size) is checked.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return fmt.Errorf("graphio: %s: %w", path, gzipError(err))
	}
	return nil
}

// gzipError turns the errors of a gzip stream that ends early into a
// readable message.
func gzipError(err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("truncated gzip stream: %w", err)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("corrupt gzip stream: %w", err)
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return fmt.Errorf("corrupt gzip stream: %w", err)
	}
	return err
}

// scanCSV calls fn for every line of r with its 1-based number and its
// comma-separated fields (trimmed of spaces; the slices are only valid
// during the call). A final line without a newline is read; an empty line
// is an error.
func scanCSV(r io.Reader, fn func(line int, fields [][]byte) error) error {
	// A stream that fails mid-line hands the scanner a partial last line;
	// the read error, not that line's content, is then the one to report.
	er := &errReader{r: r}
	sc := bufio.NewScanner(er)
	sc.Buffer(make([]byte, 0, 1<<16), ogbMaxLine)
	var fields [][]byte
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			return fmt.Errorf("line %d: empty line", line)
		}
		fields = fields[:0]
		for {
			i := bytes.IndexByte(text, ',')
			if i < 0 {
				fields = append(fields, bytes.TrimSpace(text))
				break
			}
			fields = append(fields, bytes.TrimSpace(text[:i]))
			text = text[i+1:]
		}
		if err := fn(line, fields); err != nil {
			if er.err != nil {
				return fmt.Errorf("after line %d: %w", line-1, gzipError(er.err))
			}
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("line %d: longer than %d bytes", line+1, ogbMaxLine)
		}
		return fmt.Errorf("after line %d: %w", line, gzipError(err))
	}
	return nil
}

// errReader remembers the first error other than io.EOF of its reader.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// parseOGBFeatures reads node-feat rows: every row has the same number
// f >= 1 of finite floats. It returns them row-major with the row count.
func parseOGBFeatures(r io.Reader) (feat []float64, n, f int, err error) {
	err = scanCSV(r, func(line int, fields [][]byte) error {
		if line == 1 {
			f = len(fields)
		} else if len(fields) != f {
			return fmt.Errorf("%d columns, want %d (as on line 1)", len(fields), f)
		}
		for c, s := range fields {
			v, err := strconv.ParseFloat(string(s), 64)
			if err != nil {
				return fmt.Errorf("column %d: %q is not a number", c+1, s)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("column %d: feature %q is not finite", c+1, s)
			}
			feat = append(feat, v)
		}
		n++
		return nil
	})
	if err == nil && n == 0 {
		err = errors.New("no rows")
	}
	return feat, n, f, err
}

// parseOGBLabels reads one integer in [0, ogbMaxLabel] per row.
func parseOGBLabels(r io.Reader) ([]int, error) { return parseOGBInts(r, ogbMaxLabel) }

// parseOGBInts reads one integer in [0, limit] per row.
func parseOGBInts(r io.Reader, limit int) ([]int, error) {
	var out []int
	err := scanCSV(r, func(_ int, fields [][]byte) error {
		if len(fields) != 1 {
			return fmt.Errorf("%d columns, want 1", len(fields))
		}
		v, err := strconv.Atoi(string(fields[0]))
		if err != nil {
			return fmt.Errorf("%q is not an integer", fields[0])
		}
		if v < 0 {
			return fmt.Errorf("negative value %d", v)
		}
		if v > limit {
			return fmt.Errorf("value %d above the limit %d", v, limit)
		}
		out = append(out, v)
		return nil
	})
	if err == nil && len(out) == 0 {
		err = errors.New("no rows")
	}
	return out, err
}

// parseOGBEdges reads "src,dst" rows with endpoints in [0, n) and returns
// the undirected adjacency without self loops or duplicates. An edge file
// without rows gives a graph without edges.
func parseOGBEdges(r io.Reader, n int) (*CSR, error) {
	var src, dst []int32
	err := scanCSV(r, func(_ int, fields [][]byte) error {
		if len(fields) != 2 {
			return fmt.Errorf("%d columns, want 2", len(fields))
		}
		var e [2]int32
		for c, s := range fields {
			v, err := strconv.Atoi(string(s))
			if err != nil {
				return fmt.Errorf("column %d: %q is not an integer", c+1, s)
			}
			if v < 0 || v >= n {
				return fmt.Errorf("column %d: endpoint %d outside [0,%d)", c+1, v, n)
			}
			e[c] = int32(v)
		}
		if e[0] != e[1] {
			src, dst = append(src, e[0]), append(dst, e[1])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return undirectedCSR(n, src, dst), nil
}

// undirectedCSR returns the symmetric adjacency of the edges (src[e],
// dst[e]) (no self loops among them), duplicates merged, columns sorted,
// values 1.
func undirectedCSR(n int, src, dst []int32) *CSR {
	ptr := make([]int, n+1)
	for e := range src {
		ptr[src[e]+1]++
		ptr[dst[e]+1]++
	}
	for i := range n {
		ptr[i+1] += ptr[i]
	}
	idx := make([]int, ptr[n])
	next := slices.Clone(ptr[:n])
	for e := range src {
		u, v := int(src[e]), int(dst[e])
		idx[next[u]] = v
		next[u]++
		idx[next[v]] = u
		next[v]++
	}
	out := make([]int, n+1)
	w := 0
	for i := range n {
		row := idx[ptr[i]:ptr[i+1]]
		slices.Sort(row)
		for k, j := range row {
			if k == 0 || j != row[k-1] {
				idx[w] = j
				w++
			}
		}
		out[i+1] = w
	}
	idx = slices.Clip(idx[:w])
	vals := make([]float64, w)
	for k := range vals {
		vals[k] = 1
	}
	return &CSR{Rows: n, Cols: n, Indptr: out, Indices: idx, Values: vals}
}
