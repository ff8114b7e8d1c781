package graphio

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/internal/datadir"
)

// TestPlanetoidEqualsNPZ reads the Planetoid raw files of Cora and
// CiteSeer and checks that graph, features and labels equal cora.npz and
// citeseer.npz node for node.
func TestPlanetoidEqualsNPZ(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edges    int // undirected
		isolated int
		zeroRows int // nodes with an all-zero feature row
	}{
		{"cora", 5278, 0, 0},
		{"citeseer", 4552, 48, 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Dir(datadir.File(t, filepath.Join("raw", "planetoid", "ind."+tc.name+".graph")))
			raw, err := LoadPlanetoid(dir, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			want := loadTestDataset(t, tc.name)
			if raw.N() != want.N() || raw.NumClasses != want.NumClasses || raw.NumFeatures() != want.NumFeatures() {
				t.Fatalf("%d nodes, %d classes, %d features; npz has %d, %d, %d",
					raw.N(), raw.NumClasses, raw.NumFeatures(), want.N(), want.NumClasses, want.NumFeatures())
			}
			if raw.NumEdges() != tc.edges {
				t.Errorf("%d undirected edges, want %d", raw.NumEdges(), tc.edges)
			}
			if !slices.Equal(raw.Labels, want.Labels) {
				for i := range raw.Labels {
					if raw.Labels[i] != want.Labels[i] {
						t.Fatalf("label of node %d is %d, npz has %d", i, raw.Labels[i], want.Labels[i])
					}
				}
			}
			for _, p := range [][2]*CSR{{raw.Adj, want.Adj}, {raw.Features, want.Features}} {
				a, b := p[0], p[1]
				if !slices.Equal(a.Indptr, b.Indptr) || !slices.Equal(a.Indices, b.Indices) || !slices.Equal(a.Values, b.Values) {
					for i := range a.Rows {
						ca, va := a.Row(i)
						cb, vb := b.Row(i)
						if !slices.Equal(ca, cb) || !slices.Equal(va, vb) {
							t.Fatalf("row %d differs: %v %v, npz %v %v", i, ca, va, cb, vb)
						}
					}
					t.Fatal("CSR arrays differ")
				}
			}
			iso, zero := 0, 0
			for i := range raw.N() {
				if raw.Adj.Indptr[i+1] == raw.Adj.Indptr[i] {
					iso++
				}
				if raw.Features.Indptr[i+1] == raw.Features.Indptr[i] {
					zero++
				}
			}
			if iso != tc.isolated || zero != tc.zeroRows {
				t.Errorf("%d isolated nodes and %d zero feature rows, want %d and %d", iso, zero, tc.isolated, tc.zeroRows)
			}
		})
	}
}

// TestPlanetoidErrors checks that broken raw files give errors that name
// the file.
func TestPlanetoidErrors(t *testing.T) {
	src := filepath.Dir(datadir.File(t, filepath.Join("raw", "planetoid", "ind.cora.graph")))
	copyAll := func(t *testing.T) string {
		dir := t.TempDir()
		for _, part := range PlanetoidParts {
			b, err := os.ReadFile(PlanetoidFile(src, "cora", part))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(PlanetoidFile(dir, "cora", part), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, tc := range []struct {
		part   string
		mutate func([]byte) []byte
		want   string
	}{
		{"allx", func(b []byte) []byte { return b[:len(b)/2] }, "ind.cora.allx: pickle"},
		{"ty", func(b []byte) []byte { return append(b[:len(b)-1:len(b)-1], 'x', '.') }, "ind.cora.ty"},
		{"graph", func([]byte) []byte { return []byte("\x80\x02}q\x01(K\x00]q\x02M\x10'aK\x01]q\x03u.") }, "neighbour 10000 of node 0 out of range"},
		{"test.index", func([]byte) []byte { return []byte("1708\nx\n") }, `line 2: "x" is not a node id`},
		{"test.index", func([]byte) []byte { return []byte("1708\n1709\n") }, "test.index lists 2 nodes, tx has 1000 rows"},
		{"tx", nil, "ind.cora.tx: no such file"},
	} {
		t.Run(tc.part, func(t *testing.T) {
			dir := copyAll(t)
			p := PlanetoidFile(dir, "cora", tc.part)
			if tc.mutate == nil {
				os.Remove(p)
			} else {
				b, _ := os.ReadFile(p)
				if err := os.WriteFile(p, tc.mutate(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := LoadPlanetoid(dir, "cora")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
