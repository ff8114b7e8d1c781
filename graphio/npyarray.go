package graphio

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/sbinet/npyio/npy"
)

// maxNPYElems bounds the element count of one array so that a corrupt
// shape cannot overflow the size computation.
const maxNPYElems = 1 << 50

// npzArchive is an open .npz file whose members are read one at a time and
// checked against their own headers before any conversion.
type npzArchive struct {
	z    *zip.Reader
	c    io.Closer            // the file, or nil
	keys map[string]*zip.File // key without ".npy" -> member
}

// openNPZ opens path as a NumPy .npz archive. Errors are not prefixed with
// the path; callers wrap them.
func openNPZ(path string) (*npzArchive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		var a *npzArchive
		if a, err = newNPZ(f, st.Size()); err == nil {
			a.c = f
			return a, nil
		}
	}
	_ = f.Close()
	return nil, err
}

// openNPZBytes opens data as a NumPy .npz archive.
func openNPZBytes(data []byte) (*npzArchive, error) {
	return newNPZ(bytes.NewReader(data), int64(len(data)))
}

func newNPZ(r io.ReaderAt, size int64) (*npzArchive, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a readable .npz (zip) archive: %w", err)
	}
	a := &npzArchive{z: z, keys: make(map[string]*zip.File)}
	for _, f := range z.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := a.keys[key]; !dup { // the first member of a name, as npyio
			a.keys[key] = f
		}
	}
	return a, nil
}

func (a *npzArchive) Close() error {
	if a.c == nil {
		return nil
	}
	return a.c.Close()
}

// has reports whether the archive holds key (with or without ".npy").
func (a *npzArchive) has(key string) bool {
	_, ok := a.keys[key]
	return ok
}

// npyArray is one decoded member: its header and its raw payload.
type npyArray struct {
	key     string
	dtype   string
	shape   []int
	n       int // number of elements
	kind    reflect.Kind
	payload []byte // the data after the header
}

// order returns the byte order of arr's dtype: '>' big-endian, '='
// native, '<' and '|' (one-byte types) little-endian.
func (arr *npyArray) order() binary.ByteOrder {
	switch arr.dtype[0] {
	case '>':
		return binary.BigEndian
	case '=':
		return binary.NativeEndian
	}
	return binary.LittleEndian
}

// header reads the member key and parses its header. With numeric set it
// also requires a numeric dtype whose size times the element count equals
// the payload size. npyio panics on some malformed headers; those panics
// become errors.
func (a *npzArchive) header(key string, numeric bool) (arr *npyArray, err error) {
	f, ok := a.keys[key]
	if !ok {
		return nil, fmt.Errorf("missing key %q (member %q)", key, key+".npy")
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("key %q: %w", key, err)
	}
	// Reading to the end of the member makes archive/zip check its CRC-32
	// and declared size. The declared size sizes the buffer, within what
	// the stored bytes can hold, so that a corrupt size allocates nothing
	// absurd.
	hint := min(f.UncompressedSize64, f.CompressedSize64, 1<<31)
	if f.Method != zip.Store {
		hint = min(f.UncompressedSize64, 16*f.CompressedSize64, 1<<31)
	}
	buf := bytes.NewBuffer(make([]byte, 0, hint+bytes.MinRead))
	_, err = buf.ReadFrom(rc)
	_ = rc.Close()
	if err != nil {
		return nil, fmt.Errorf("key %q: reading member: %w", key, err)
	}
	raw := buf.Bytes()
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
	arr = &npyArray{key: key, dtype: h.Type, shape: slices.Clone(h.Shape), n: n, kind: rt.Kind(),
		payload: raw[len(raw)-br.Len():]}
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

// readNPY decodes the payload of arr, in its byte order, into a new
// slice of T, the Go type of its numeric dtype.
func readNPY[T any](arr *npyArray) ([]T, error) {
	v := make([]T, arr.n)
	if _, err := binary.Decode(arr.payload, arr.order(), v); err != nil {
		return nil, fmt.Errorf("key %q: malformed .npy data: %w", arr.key, err)
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
