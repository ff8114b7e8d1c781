package graphio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
)

// npzMember is one array of a test .npz: either a Go value written by npyio or
// raw .npy bytes.
type npzMember struct {
	name string
	val  any
	raw  []byte
}

// npyBytes encodes v as a .npy file with npyio.
func npyBytes(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := npy.Write(&buf, v); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// rawNPY builds a version 1.0 .npy file with the given header dictionary
// fields and payload, without checking that they agree.
func rawNPY(descr, shape string, payload []byte) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	for (10+len(dict)+1)%64 != 0 {
		dict += " "
	}
	dict += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	_ = binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
	b.WriteString(dict)
	b.Write(payload)
	return b.Bytes()
}

// writeNPZ writes members to a new file in a temporary directory, stored
// (uncompressed) when store is set, and returns its path.
func writeNPZ(t *testing.T, name string, store bool, ms []npzMember) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, npzBytes(t, store, ms), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// smallGraphMembers is a 3-node graph stored like the raw Amazon files: the
// adjacency holds (0,1) twice, (2,2) and (2,0), so the loaded graph must
// have exactly the undirected edges 0-1 and 0-2. Feature row 0 is
// unsorted, row 1 has a duplicate column.
func smallGraphMembers() []npzMember {
	return []npzMember{
		{name: "adj_data.npy", val: []float32{1, 1, 1, 1}},
		{name: "adj_indices.npy", val: []int32{1, 1, 2, 0}},
		{name: "adj_indptr.npy", val: []int32{0, 2, 2, 4}},
		{name: "adj_shape.npy", val: []int64{3, 3}},
		{name: "attr_data.npy", val: []float32{1, 2, 1, 1, 3}},
		{name: "attr_indices.npy", val: []int32{2, 0, 1, 1, 3}},
		{name: "attr_indptr.npy", val: []int32{0, 2, 4, 5}},
		{name: "attr_shape.npy", val: []int64{3, 4}},
		{name: "labels.npy", val: []int64{0, 2, 1}},
	}
}

// replaceMember returns ms with the member name replaced by m (or removed when m is
// nil).
func replaceMember(ms []npzMember, name string, m *npzMember) []npzMember {
	out := []npzMember{}
	for _, x := range ms {
		if x.name != name {
			out = append(out, x)
		} else if m != nil {
			out = append(out, *m)
		}
	}
	return out
}

func TestLoadNPZSmall(t *testing.T) {
	for _, store := range []bool{false, true} {
		path := writeNPZ(t, "tiny.graph.npz", store, smallGraphMembers())
		g, err := LoadNPZ(path)
		if err != nil {
			t.Fatal(err)
		}
		checkGraphInvariants(t, g)
		if g.Name != "tiny.graph" || g.NumClasses != 3 || g.NumFeatures() != 4 {
			t.Errorf("Name %q NumClasses %d NumFeatures %d", g.Name, g.NumClasses, g.NumFeatures())
		}
		if !slices.Equal(g.Adj.Indptr, []int{0, 2, 3, 4}) || !slices.Equal(g.Adj.Indices, []int{1, 2, 0, 0}) {
			t.Errorf("adjacency %v %v, want edges 0-1 and 0-2", g.Adj.Indptr, g.Adj.Indices)
		}
		x := g.Features
		if !slices.Equal(x.Indices, []int{0, 2, 1, 3}) || !slices.Equal(x.Values, []float64{2, 1, 2, 3}) ||
			!slices.Equal(x.Indptr, []int{0, 2, 3, 4}) {
			t.Errorf("features %v %v %v", x.Indptr, x.Indices, x.Values)
		}
		RowNormalize(g)
		if !slices.Equal(x.Values, []float64{2.0 / 3, 1.0 / 3, 1, 1}) {
			t.Errorf("normalised features %v", x.Values)
		}
	}
}

func TestLoadNPZBadInput(t *testing.T) {
	good := smallGraphMembers()
	nan := float32(math.NaN())
	cases := []struct {
		name    string
		members []npzMember
		want    string // substring of the error
	}{
		{"missing labels", replaceMember(good, "labels.npy", nil), `missing key "labels"`},
		{"missing adj_indptr", replaceMember(good, "adj_indptr.npy", nil), `missing key "adj_indptr"`},
		{"indptr end disagrees", replaceMember(good, "adj_indptr.npy", &npzMember{name: "adj_indptr.npy", val: []int32{0, 2, 2, 3}}),
			"adj CSR arrays disagree"},
		{"indptr not monotone", replaceMember(good, "attr_indptr.npy", &npzMember{name: "attr_indptr.npy", val: []int32{0, 3, 2, 5}}),
			"attr CSR arrays disagree"},
		{"column out of range", replaceMember(good, "adj_indices.npy", &npzMember{name: "adj_indices.npy", val: []int32{1, 1, 3, 0}}),
			"column index 3"},
		{"data length", replaceMember(good, "adj_data.npy", &npzMember{name: "adj_data.npy", val: []float32{1, 1, 1}}),
			"adj CSR arrays disagree"},
		{"negative label", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy", val: []int64{0, -1, 1}}),
			"label -1 of node 1 is negative"},
		{"absurd label", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy", val: []int64{0, 1 << 40, 1}}),
			"out of range"},
		{"more classes than nodes", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy", val: []int64{0, 5, 1}}),
			"label 5 of node 1 makes 6 classes for 3 nodes"},
		{"absurd feature count", replaceMember(good, "attr_shape.npy", &npzMember{name: "attr_shape.npy", val: []int64{3, 1 << 40}}),
			"attr_shape is 3x1099511627776: 1099511627776 features, want at most 16777216"},
		{"label beyond class_names", append(slices.Clone(good),
			npzMember{name: "class_names.npy", raw: rawNPY("<U3", "(2,)", make([]byte, 24))}), "label 2 of node 1 out of range [0,1]"},
		{"labels length", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy", val: []int64{0, 1}}),
			"labels has 2 entries, want 3"},
		{"labels 2-D", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy",
			raw: rawNPY("<i8", "(3, 1)", make([]byte, 24))}), "want a 1-D array"},
		{"labels float", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy", val: []float64{0, 1, 2}}),
			"want an integer dtype"},
		{"NaN feature", replaceMember(good, "attr_data.npy", &npzMember{name: "attr_data.npy", val: []float32{1, nan, 1, 1, 3}}),
			"non-finite value NaN at index 1"},
		{"Inf adjacency value", replaceMember(good, "adj_data.npy", &npzMember{name: "adj_data.npy",
			val: []float64{1, math.Inf(1), 1, 1}}), "non-finite"},
		{"feature rows", replaceMember(good, "attr_shape.npy", &npzMember{name: "attr_shape.npy", val: []int64{4, 4}}),
			"attr CSR arrays disagree"},
		{"feature rows vs nodes", replaceMember(replaceMember(good, "attr_shape.npy", &npzMember{name: "attr_shape.npy", val: []int64{2, 4}}),
			"attr_indptr.npy", &npzMember{name: "attr_indptr.npy", val: []int32{0, 2, 5}}), "attr_shape has 2 rows but adj_shape has 3 nodes"},
		{"adj not square", replaceMember(good, "adj_shape.npy", &npzMember{name: "adj_shape.npy", val: []int64{3, 4}}),
			"want a square matrix"},
		{"adj_shape length", replaceMember(good, "adj_shape.npy", &npzMember{name: "adj_shape.npy", val: []int64{3, 3, 1}}),
			"adj_shape has 3 entries"},
		{"negative shape", replaceMember(good, "attr_shape.npy", &npzMember{name: "attr_shape.npy", val: []int64{3, -4}}),
			"negative"},
		{"header without newline", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy",
			raw: []byte("\x93NUMPY\x01\x00\x04\x00{'de")}), `key "labels": malformed`},
		{"not npy", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy", raw: []byte("hello, world")}),
			`key "labels": malformed .npy header`},
		{"empty npzMember", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy", raw: []byte{}}), `key "labels"`},
		{"payload short", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy",
			raw: rawNPY("<i8", "(3,)", make([]byte, 16))}), "needs 24 bytes of data, member has 16"},
		{"huge shape", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy",
			raw: rawNPY("<i8", "(1000000000000,)", make([]byte, 16))}), "truncated or corrupt"},
		{"overflowing shape", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy",
			raw: rawNPY("<i8", "(4611686018427387904, 4)", make([]byte, 16))}), "too large"},
		{"unknown dtype", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy",
			raw: rawNPY("<x9", "(3,)", make([]byte, 24))}), `key "labels"`},
		{"empty dtype", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy",
			raw: rawNPY("", "(3,)", make([]byte, 24))}), `key "labels"`},
		{"string dtype", replaceMember(good, "labels.npy", &npzMember{name: "labels.npy",
			raw: rawNPY("<U2", "(3,)", make([]byte, 24))}), "not numeric"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeNPZ(t, "bad.npz", false, c.members)
			wantErr(t, path, c.want, func() error { _, err := LoadNPZ(path); return err })
		})
	}
}

// wantErr runs f and checks that its error names path and contains want.
func wantErr(t *testing.T, path, want string, f func() error) {
	t.Helper()
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("panic: %v", p)
			}
		}()
		err = f()
	}()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	msg := err.Error()
	t.Log(msg)
	if !strings.HasPrefix(msg, "graphio: "+path+": ") {
		t.Errorf("error %q does not start with %q", msg, "graphio: "+path+": ")
	}
	if !strings.Contains(msg, want) {
		t.Errorf("error %q does not contain %q", msg, want)
	}
}

func TestLoadNPZCorruptFile(t *testing.T) {
	good := writeNPZ(t, "good.npz", true, smallGraphMembers())
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Flip a byte inside the labels payload (stored, so the CRC catches it).
	flipped := slices.Clone(data)
	labels := npyBytes(t, []int64{0, 2, 1})
	at := bytes.Index(flipped, labels)
	if at < 0 {
		t.Fatal("labels payload not found")
	}
	flipped[at+len(labels)-1] ^= 0xff

	cases := []struct {
		name, path, want string
	}{
		{"missing file", filepath.Join(dir, "nope.npz"), "no such file"},
		{"empty file", write("empty.npz", nil), "not a readable .npz"},
		{"text file", write("text.npz", []byte("this is not a zip archive\n")), "not a readable .npz"},
		{"truncated", write("trunc.npz", data[:len(data)/2]), "not a readable .npz"},
		{"truncated tail", write("tail.npz", data[:len(data)-10]), "not a readable .npz"},
		{"bad checksum", write("crc.npz", flipped), "checksum"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantErr(t, c.path, c.want, func() error { _, err := LoadNPZ(c.path); return err })
		})
	}
}

// TestNPYDecodeOrders checks the direct little-endian decoding of numeric
// members against npyio's, for every integer and float dtype in both byte
// orders (big-endian members take npyio's path), with extreme values.
func TestNPYDecodeOrders(t *testing.T) {
	vals := []int64{0, 1, -1, 127, -128, 255, 32767, -32768, 65535, 1<<31 - 1, -1 << 31, 1<<32 - 1, 1 << 40, -1 << 50}
	fvals := []float64{0, math.Copysign(0, -1), 1.5, -2.25, 1e-300, 3.4e38, 1.17549435e-38, -7}
	for _, typ := range []string{"i1", "u1", "i2", "u2", "i4", "u4", "i8", "f4", "f8"} {
		size := int(typ[1] - '0')
		for _, order := range []string{"<", ">", "|"} {
			if (order == "|") != (size == 1) {
				continue
			}
			var payload []byte
			var want []float64
			n := len(vals)
			if typ[0] == 'f' {
				n = len(fvals)
			}
			for i := range n {
				b := make([]byte, 8)
				var w float64
				switch {
				case typ == "f4":
					w = float64(float32(fvals[i]))
					binary.LittleEndian.PutUint32(b, math.Float32bits(float32(w)))
				case typ == "f8":
					w = fvals[i]
					binary.LittleEndian.PutUint64(b, math.Float64bits(w))
				default:
					u := uint64(vals[i]) & (1<<(8*size) - 1)
					if size == 8 {
						u = uint64(vals[i])
					}
					binary.LittleEndian.PutUint64(b, u)
					w = float64(u)
					if typ[0] == 'i' && size < 8 && u >= 1<<(8*size-1) {
						w = float64(int64(u) - 1<<(8*size))
					} else if typ[0] == 'i' {
						w = float64(int64(u))
					}
				}
				b = b[:size]
				if order == ">" {
					slices.Reverse(b)
				}
				payload = append(payload, b...)
				want = append(want, w)
			}
			path := writeNPZ(t, "d.npz", true, []npzMember{
				{name: "x.npy", raw: rawNPY(order+typ, fmt.Sprintf("(%d,)", n), payload)}})
			a, err := openNPZ(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []float64
			if typ[0] == 'f' {
				got, err = a.floats("x")
			} else {
				var ints []int
				ints, err = a.ints("x")
				for _, v := range ints {
					got = append(got, float64(v))
				}
			}
			a.Close()
			if err != nil {
				t.Fatalf("%s%s: %v", order, typ, err)
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s%s element %d: %v, want %v", order, typ, i, got[i], want[i])
				}
			}
		}
	}
}
