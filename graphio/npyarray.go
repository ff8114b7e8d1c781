package graphio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/sbinet/npyio/npy"
	"github.com/sbinet/npyio/npz"
)

// maxNPYElems bounds the element count of one array so that a corrupt
// shape cannot overflow the size computation.
const maxNPYElems = 1 << 50

// npzArchive is an open .npz file whose members are read one at a time and
// checked against their own headers before any conversion.
type npzArchive struct {
	r    *npz.Reader
	keys map[string]string // key without ".npy" -> member name
}

// openNPZ opens path as a NumPy .npz archive. Errors are not prefixed with
// the path; callers wrap them.
func openNPZ(path string) (*npzArchive, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	r, err := npz.Open(path)
	if err != nil {
		return nil, fmt.Errorf("not a readable .npz (zip) archive: %w", err)
	}
	a := &npzArchive{r: r, keys: make(map[string]string)}
	for _, name := range r.Keys() {
		a.keys[strings.TrimSuffix(name, ".npy")] = name
	}
	return a, nil
}

// openNPZBytes opens data as a NumPy .npz archive.
func openNPZBytes(data []byte) (*npzArchive, error) {
	r, err := npz.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not a readable .npz (zip) archive: %w", err)
	}
	a := &npzArchive{r: r, keys: make(map[string]string)}
	for _, name := range r.Keys() {
		a.keys[strings.TrimSuffix(name, ".npy")] = name
	}
	return a, nil
}

func (a *npzArchive) Close() error { return a.r.Close() }

// has reports whether the archive holds key (with or without ".npy").
func (a *npzArchive) has(key string) bool {
	_, ok := a.keys[key]
	return ok
}

// npyArray is one decoded member: its header and its raw payload.
type npyArray struct {
	key   string
	dtype string
	shape []int
	n     int // number of elements
	kind  reflect.Kind
	rd    *npy.Reader
}

// header reads the member key and parses its header. With numeric set it
// also requires a numeric dtype whose size times the element count equals
// the payload size. npyio panics on some malformed headers; those panics
// become errors.
func (a *npzArchive) header(key string, numeric bool) (arr *npyArray, err error) {
	name, ok := a.keys[key]
	if !ok {
		return nil, fmt.Errorf("missing key %q (member %q)", key, key+".npy")
	}
	rc, err := a.r.Open(name)
	if err != nil {
		return nil, fmt.Errorf("key %q: %w", key, err)
	}
	// ReadAll reaches the end of the member, so archive/zip also checks
	// its CRC-32 and declared size.
	raw, err := io.ReadAll(rc)
	_ = rc.Close()
	if err != nil {
		return nil, fmt.Errorf("key %q: reading member: %w", key, err)
	}
	if err := checkNPYPreamble(raw); err != nil {
		return nil, fmt.Errorf("key %q: malformed .npy header: %w", key, err)
	}
	defer func() {
		if p := recover(); p != nil {
			arr, err = nil, fmt.Errorf("key %q: malformed .npy header (npyio: %v)", key, p)
		}
	}()
	br := bytes.NewReader(raw)
	rd, err := npy.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("key %q: malformed .npy header: %w", key, err)
	}
	h := rd.Header.Descr
	rt := npy.TypeFrom(h.Type)
	if rt == nil {
		return nil, fmt.Errorf("key %q: unsupported dtype %q", key, h.Type)
	}
	n := 1
	for _, d := range h.Shape {
		if d < 0 {
			return nil, fmt.Errorf("key %q: negative dimension in shape %v", key, h.Shape)
		}
		if d > 0 && n > maxNPYElems/d {
			return nil, fmt.Errorf("key %q: shape %v too large", key, h.Shape)
		}
		n *= d
	}
	arr = &npyArray{key: key, dtype: h.Type, shape: slices.Clone(h.Shape), n: n, kind: rt.Kind(), rd: rd}
	if !numeric {
		return arr, nil
	}
	switch rt.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
	default:
		return nil, fmt.Errorf("key %q: dtype %q is not numeric", key, h.Type)
	}
	if want, got := n*int(rt.Size()), br.Len(); want != got {
		return nil, fmt.Errorf("key %q: shape %v of dtype %q needs %d bytes of data, member has %d (truncated or corrupt)",
			key, h.Shape, h.Type, want, got)
	}
	if h.Fortran && len(h.Shape) > 1 {
		return nil, fmt.Errorf("key %q: Fortran-ordered arrays are not supported", key)
	}
	return arr, nil
}

// readNPY reads the payload of arr into a new slice of type T.
func readNPY[T any](arr *npyArray) (v []T, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("key %q: malformed .npy data: %v", arr.key, p)
		}
	}()
	v = make([]T, arr.n)
	if arr.n == 0 {
		return v, nil
	}
	if err := arr.rd.Read(&v); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("key %q: %w", arr.key, err)
	}
	return v, nil
}

func widenInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](arr *npyArray) ([]int, error) {
	v, err := readNPY[T](arr)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out, nil
}

// ints reads key as a 1-D integer array of any integer dtype.
func (a *npzArchive) ints(key string) ([]int, error) {
	v, shape, err := a.intsND(key)
	if err == nil && len(shape) != 1 {
		err = fmt.Errorf("key %q: shape %v, want a 1-D array", key, shape)
	}
	return v, err
}

// intsND reads key as an integer array of any integer dtype and any
// shape, in C order, and returns its shape.
func (a *npzArchive) intsND(key string) ([]int, []int, error) {
	arr, err := a.header(key, true)
	if err != nil {
		return nil, nil, err
	}
	v, err := arr.ints()
	return v, arr.shape, err
}

func (arr *npyArray) ints() ([]int, error) {
	key := arr.key
	switch arr.kind {
	case reflect.Int8:
		return widenInts[int8](arr)
	case reflect.Int16:
		return widenInts[int16](arr)
	case reflect.Int32:
		return widenInts[int32](arr)
	case reflect.Int64:
		return widenInts[int64](arr)
	case reflect.Uint8:
		return widenInts[uint8](arr)
	case reflect.Uint16:
		return widenInts[uint16](arr)
	case reflect.Uint32:
		return widenInts[uint32](arr)
	case reflect.Uint64:
		v, err := readNPY[uint64](arr)
		if err != nil {
			return nil, err
		}
		out := make([]int, len(v))
		for i, x := range v {
			if x > math.MaxInt64 {
				return nil, fmt.Errorf("key %q: value %d at %d overflows int", key, x, i)
			}
			out[i] = int(x)
		}
		return out, nil
	}
	return nil, fmt.Errorf("key %q: dtype %q, want an integer dtype", key, arr.dtype)
}

// floats reads key as a 1-D float32 or float64 array. Non-finite values are
// an error.
func (a *npzArchive) floats(key string) ([]float64, error) {
	v, shape, err := a.floatsND(key)
	if err == nil && len(shape) != 1 {
		err = fmt.Errorf("key %q: shape %v, want a 1-D array", key, shape)
	}
	return v, err
}

// floatsND reads key as a float32 or float64 array of any shape, in C
// order, and returns its shape. Non-finite values are an error.
func (a *npzArchive) floatsND(key string) ([]float64, []int, error) {
	arr, err := a.header(key, true)
	if err != nil {
		return nil, nil, err
	}
	v, err := arr.floats()
	return v, arr.shape, err
}

func (arr *npyArray) floats() ([]float64, error) {
	key := arr.key
	var out []float64
	var err error
	switch arr.kind {
	case reflect.Float32:
		v, err := readNPY[float32](arr)
		if err != nil {
			return nil, err
		}
		out = make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
	case reflect.Float64:
		out, err = readNPY[float64](arr)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("key %q: dtype %q, want float32 or float64", key, arr.dtype)
	}
	for i, x := range out {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("key %q: non-finite value %v at index %d", key, x, i)
		}
	}
	return out, nil
}
