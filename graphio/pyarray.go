package graphio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// pyArray is a NumPy array read from a pickle: its shape, in C order, and
// its elements converted to float64 (every dtype the Planetoid files use
// converts exactly).
type pyArray struct {
	shape []int
	data  []float64
}

// asNDArray interprets v as a pickled numpy.ndarray
// (numpy.core.multiarray._reconstruct with the ndarray's BUILD state
// (version, shape, dtype, is_fortran, raw bytes)).
func asNDArray(v any) (*pyArray, error) {
	c, ok := v.(*pyCall)
	if !ok || c.fn.name != "_reconstruct" || (c.fn.module != "numpy.core.multiarray" && c.fn.module != "numpy._core.multiarray") {
		return nil, fmt.Errorf("a %s, want a numpy array", pyName(v))
	}
	st, ok := c.state.(pyTuple)
	if !ok || len(st) != 5 {
		return nil, errors.New("numpy array: state is not (version, shape, dtype, fortran, data)")
	}
	shapeT, ok := st[1].(pyTuple)
	if !ok || len(shapeT) > 2 {
		return nil, errors.New("numpy array: shape is not a tuple of at most 2 ints")
	}
	size := 1
	shape := make([]int, len(shapeT))
	for i, s := range shapeT {
		n, ok := s.(int64)
		if !ok || n < 0 || n > math.MaxInt32 {
			return nil, errors.New("numpy array: shape holds a negative, huge or non-integer size")
		}
		shape[i] = int(n)
		if size > math.MaxInt32/max(1, int(n)) {
			return nil, errors.New("numpy array: shape too large")
		}
		size *= int(n)
	}
	kind, width, err := asDType(st[2])
	if err != nil {
		return nil, err
	}
	fortran, ok := st[3].(bool)
	if !ok {
		return nil, errors.New("numpy array: fortran flag is not a bool")
	}
	raw, ok := st[4].(string)
	if !ok {
		return nil, fmt.Errorf("numpy array: data is a %s, want raw bytes (object arrays are not read)", pyName(st[4]))
	}
	if len(raw) != size*width {
		return nil, fmt.Errorf("numpy array: %d bytes of data, want %d for shape %v of %d-byte elements", len(raw), size*width, shape, width)
	}
	out := make([]float64, size)
	b := []byte(raw)
	for i := range out {
		e := b[i*width : (i+1)*width]
		var x float64
		switch kind {
		case 'f':
			if width == 4 {
				x = float64(math.Float32frombits(binary.LittleEndian.Uint32(e)))
			} else {
				x = math.Float64frombits(binary.LittleEndian.Uint64(e))
			}
		case 'i':
			switch width {
			case 1:
				x = float64(int8(e[0]))
			case 2:
				x = float64(int16(binary.LittleEndian.Uint16(e)))
			case 4:
				x = float64(int32(binary.LittleEndian.Uint32(e)))
			case 8:
				x = float64(int64(binary.LittleEndian.Uint64(e)))
			}
		case 'u', 'b':
			switch width {
			case 1:
				x = float64(e[0])
			case 2:
				x = float64(binary.LittleEndian.Uint16(e))
			case 4:
				x = float64(binary.LittleEndian.Uint32(e))
			case 8:
				x = float64(binary.LittleEndian.Uint64(e))
			}
		}
		out[i] = x
	}
	if fortran && len(shape) == 2 && size > 0 {
		r, cols := shape[0], shape[1]
		t := make([]float64, size)
		for i := range r {
			for j := range cols {
				t[i*cols+j] = out[j*r+i]
			}
		}
		out = t
	}
	return &pyArray{shape: shape, data: out}, nil
}

// asDType interprets v as a pickled numpy.dtype of a little-endian (or
// byte-order-free) bool, integer or float, and returns its kind ('b',
// 'i', 'u' or 'f') and width in bytes.
func asDType(v any) (kind byte, width int, err error) {
	c, ok := v.(*pyCall)
	if !ok || c.fn.module != "numpy" || c.fn.name != "dtype" || len(c.args) < 1 {
		return 0, 0, fmt.Errorf("numpy array: dtype is a %s", pyName(v))
	}
	code, ok := c.args[0].(string)
	if !ok || len(code) != 2 {
		return 0, 0, errors.New("numpy array: dtype code is not a 2-character string")
	}
	kind, width = code[0], int(code[1]-'0')
	switch {
	case kind == 'f' && (width == 4 || width == 8):
	case (kind == 'i' || kind == 'u') && (width == 1 || width == 2 || width == 4 || width == 8):
	case kind == 'b' && width == 1:
	default:
		return 0, 0, fmt.Errorf("numpy array: dtype %q, want a bool, integer or float", code)
	}
	if st, ok := c.state.(pyTuple); ok && len(st) > 1 {
		if order, ok := st[1].(string); ok && order == ">" && width > 1 {
			return 0, 0, fmt.Errorf("numpy array: big-endian dtype %q", code)
		}
	}
	return kind, width, nil
}

// asCSRMatrix interprets v as a pickled scipy.sparse.csr_matrix (NEWOBJ of
// the class, with its __dict__ as BUILD state: _shape, indptr, indices,
// data).
func asCSRMatrix(v any) (*CSR, error) {
	c, ok := v.(*pyCall)
	if !ok || c.fn.name != "csr_matrix" {
		return nil, fmt.Errorf("a %s, want a scipy.sparse.csr_matrix", pyName(v))
	}
	d, ok := c.state.(*pyDict)
	if !ok {
		return nil, errors.New("csr_matrix: state is not a dict")
	}
	get := func(key string) any {
		for i, k := range d.keys {
			if s, ok := k.(string); ok && s == key {
				return d.values[i]
			}
		}
		return nil
	}
	shapeT, ok := get("_shape").(pyTuple)
	if !ok || len(shapeT) != 2 {
		return nil, errors.New("csr_matrix: _shape is not a pair")
	}
	var shape [2]int
	for i, s := range shapeT {
		n, ok := s.(int64)
		if !ok || n < 0 || n > math.MaxInt32 {
			return nil, errors.New("csr_matrix: _shape holds a negative, huge or non-integer size")
		}
		shape[i] = int(n)
	}
	arrays := map[string]*pyArray{}
	for _, key := range []string{"indptr", "indices", "data"} {
		a, err := asNDArray(get(key))
		if err != nil {
			return nil, fmt.Errorf("csr_matrix %s: %w", key, err)
		}
		if len(a.shape) != 1 {
			return nil, fmt.Errorf("csr_matrix %s: %d dimensions, want 1", key, len(a.shape))
		}
		arrays[key] = a
	}
	m := &CSR{Rows: shape[0], Cols: shape[1], Values: arrays["data"].data}
	var err error
	if m.Indptr, err = floatsToInts(arrays["indptr"].data); err != nil {
		return nil, fmt.Errorf("csr_matrix indptr: %w", err)
	}
	if m.Indices, err = floatsToInts(arrays["indices"].data); err != nil {
		return nil, fmt.Errorf("csr_matrix indices: %w", err)
	}
	for k, x := range m.Values {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("csr_matrix data: entry %d is %g", k, x)
		}
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("csr_matrix: %w", err)
	}
	return m, nil
}

// floatsToInts converts integral values to ints.
func floatsToInts(xs []float64) ([]int, error) {
	out := make([]int, len(xs))
	for i, x := range xs {
		if x != math.Trunc(x) || math.Abs(x) > math.MaxInt32 {
			return nil, fmt.Errorf("entry %d is %g, want an integer", i, x)
		}
		out[i] = int(x)
	}
	return out, nil
}

// asAdjacency interprets v as a pickled dict (or
// collections.defaultdict) from node ids to lists of neighbour ids.
func asAdjacency(v any) (keys []int, lists [][]int, err error) {
	var d *pyDict
	switch t := v.(type) {
	case *pyDict:
		d = t
	case *pyCall:
		if t.fn.name != "defaultdict" {
			return nil, nil, fmt.Errorf("a %s, want a dict of lists", pyName(v))
		}
		d = t.dict
		if d == nil {
			d = &pyDict{}
		}
	default:
		return nil, nil, fmt.Errorf("a %s, want a dict of lists", pyName(v))
	}
	for i, k := range d.keys {
		key, ok := k.(int64)
		if !ok {
			return nil, nil, fmt.Errorf("key %d is a %s, want an int", i, pyName(k))
		}
		l, ok := d.values[i].(*pyList)
		if !ok {
			return nil, nil, fmt.Errorf("value of key %d is a %s, want a list", key, pyName(d.values[i]))
		}
		nb := make([]int, len(l.items))
		for j, x := range l.items {
			n, ok := x.(int64)
			if !ok || n < 0 || n > math.MaxInt32 {
				return nil, nil, fmt.Errorf("neighbour %d of node %d is not a node id", j, key)
			}
			nb[j] = int(n)
		}
		if key < 0 || key > math.MaxInt32 {
			return nil, nil, fmt.Errorf("key %d is not a node id", key)
		}
		keys = append(keys, int(key))
		lists = append(lists, nb)
	}
	return keys, lists, nil
}
