package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/internal/cputime"
	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// TestSumCompressedBlocksKeepBits checks that summing by blocks of the
// source rows gives every element the bits of the one-call sum
// (vec.RowSums over each row's terms in order), at every vector level,
// on shapes that block (many entries a row, the source rows past a
// multiple of the block and at one) and shapes that do not, with zeros,
// negative zeros, infinities and NaNs among the values and the source,
// empty rows, and rows given out of order.
func TestSumCompressedBlocksKeepBits(t *testing.T) {
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e308}
	forLevels(t, func(t *testing.T) {
		level := vec.Current()
		rng := rand.New(rand.NewPCG(21, 22))
		for _, s := range []struct {
			rows, srcRows, cols int
			density             float64
		}{
			{40, 767, 37, 0.35}, {130, 300, 8, 0.9}, {17, 129, 64, 1}, {50, 1024, 5, 0.2},
			{30, 1433, 33, 0.012}, {9, 128, 16, 1}, {64, 2000, 40, 0.5},
		} {
			name := fmt.Sprintf("%v/%dx%dx%d@%v", level, s.rows, s.srcRows, s.cols, s.density)
			srcStride := s.cols + rng.IntN(3)
			src := make([]float64, s.srcRows*srcStride)
			for i := range src {
				src[i] = rng.NormFloat64()
				if rng.IntN(200) == 0 {
					src[i] = specials[rng.IntN(len(specials))]
				}
			}
			ptr := []int{0}
			var idx []int
			var val []float64
			for r := 0; r < s.rows; r++ {
				if r%11 != 5 { // every eleventh row is empty
					for j := 0; j < s.srcRows; j++ {
						if rng.Float64() < s.density {
							v := rng.NormFloat64()
							if rng.IntN(100) == 0 {
								v = specials[rng.IntN(len(specials))]
							}
							idx, val = append(idx, j), append(val, v)
						}
					}
				}
				ptr = append(ptr, len(idx))
			}
			rows := rng.Perm(s.rows)
			dstStride := s.cols + 1
			got := make([]float64, len(rows)*dstStride)
			want := make([]float64, len(rows)*dstStride)
			for i := range got {
				got[i], want[i] = float64(i), float64(i) // the gaps between rows must stay
			}
			var b terms
			var plan blockPlan
			plan.make(ptr, idx, rows, s.srcRows, &b.pos)
			b.sumCompressed(got, dstStride, s.cols, src, srcStride, s.srcRows, ptr, idx, val, rows, &plan)
			for q, r := range rows {
				var ts []vec.Term
				for k := ptr[r]; k < ptr[r+1]; k++ {
					ts = append(ts, vec.Term{Off: idx[k] * srcStride, A: val[k]})
				}
				vec.RowSums(want[q*dstStride:], dstStride, s.cols, src, ts, []int{len(ts)}, true)
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s: element %d (row %d, column %d) is %v (%#x), want %v (%#x)", name, i, i/dstStride, i%dstStride,
						got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
		}
	})
}

// TestSumCompressedBlocks checks which shapes are summed by blocks: the
// Amazon sets' first layer (about 270 of 767 features a node) and its
// backward (about 480 of 1375 nodes a feature) are, Cora's (18 of 1433)
// is not.
func TestSumCompressedBlocks(t *testing.T) {
	for _, c := range []struct {
		perRow, srcRows int
		blocks          int
	}{{270, 767, 6}, {480, 1375, 11}, {18, 1433, 1}, {100, 1000, 2}, {40, 128, 1}} {
		if got := sourceBlocks(c.perRow*10, 10, c.srcRows); got != c.blocks {
			t.Errorf("%d terms a row over %d source rows: %d blocks, want %d", c.perRow, c.srcRows, got, c.blocks)
		}
	}
}

// sourceBlocks returns the number of blocks sumCompressed sums in.
func sourceBlocks(total, rows, srcRows int) int {
	shift := blockShiftFor(total, rows, srcRows)
	return (srcRows + 1<<shift - 1) >> shift
}

// TestByColumns checks byColumns against the definition: destination row
// j lists, in the order of i, the entries x_ij that are not zero (NaN
// kept, both zeros dropped), each naming the source row (off+i)*stride,
// on blocks whose stride is wider than their columns, with empty columns
// and an empty block.
func TestByColumns(t *testing.T) {
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN()}
	rng := rand.New(rand.NewPCG(23, 24))
	for _, s := range []struct{ rows, cols, xStride, off, stride int }{
		{0, 5, 5, 0, 3}, {1, 1, 1, 0, 1}, {7, 3, 5, 2, 11}, {256, 256, 256, 512, 256}, {33, 40, 41, 1, 7},
	} {
		x := make([]float64, s.rows*s.xStride)
		for i := range x {
			switch rng.IntN(4) {
			case 0:
				x[i] = rng.NormFloat64()
			case 1:
				x[i] = specials[rng.IntN(len(specials))]
			}
		}
		if s.cols > 2 { // an empty column
			for i := 0; i < s.rows; i++ {
				x[i*s.xStride+1] = 0
			}
		}
		var b terms
		b.byColumns(x, s.rows, s.cols, s.xStride, s.off, s.stride)
		if len(b.n) != s.cols {
			t.Fatalf("%+v: %d rows of terms, want %d", s, len(b.n), s.cols)
		}
		k := 0
		for j := 0; j < s.cols; j++ {
			var want []vec.Term
			for i := 0; i < s.rows; i++ {
				if v := x[i*s.xStride+j]; v != 0 {
					want = append(want, vec.Term{Off: (s.off + i) * s.stride, A: v})
				}
			}
			if b.n[j] != len(want) {
				t.Fatalf("%+v: column %d has %d terms, want %d", s, j, b.n[j], len(want))
			}
			for q, w := range want {
				got := b.t[k+q]
				if got.Off != w.Off || math.Float64bits(got.A) != math.Float64bits(w.A) {
					t.Fatalf("%+v: column %d term %d is %+v, want %+v", s, j, q, got, w)
				}
			}
			k += len(want)
		}
		if len(b.t) != k {
			t.Errorf("%+v: %d terms, want %d", s, len(b.t), k)
		}
	}
}

// TestDenseColumnTerms checks the float32 column terms against the
// definition, as TestByColumns does for float64.
func TestDenseColumnTerms(t *testing.T) {
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.NaN())}
	rng := rand.New(rand.NewPCG(25, 26))
	var b terms32
	for _, s := range []struct{ rows, cols, stride int }{{0, 4, 4}, {1, 1, 1}, {9, 5, 13}, {300, 256, 256}, {2, 70, 3}} {
		x := make([]float32, s.rows*s.cols)
		for i := range x {
			switch rng.IntN(3) {
			case 0:
				x[i] = float32(rng.NormFloat64())
			case 1:
				x[i] = specials[rng.IntN(len(specials))]
			}
		}
		b.denseColumnTerms(x, s.rows, s.cols, s.stride)
		k := 0
		for j := 0; j < s.cols; j++ {
			var want []vec.Term32
			for i := 0; i < s.rows; i++ {
				if v := x[i*s.cols+j]; v != 0 {
					want = append(want, vec.Term32{Off: int32(i * s.stride), A: v})
				}
			}
			if b.n[j] != len(want) {
				t.Fatalf("%+v: column %d has %d terms, want %d", s, j, b.n[j], len(want))
			}
			for q, w := range want {
				if got := b.t[k+q]; got.Off != w.Off || math.Float32bits(got.A) != math.Float32bits(w.A) {
					t.Fatalf("%+v: column %d term %d is %+v, want %+v", s, j, q, got, w)
				}
			}
			k += len(want)
		}
		if len(b.t) != k {
			t.Errorf("%+v: %d terms, want %d", s, len(b.t), k)
		}
	}
}

// TestCSCBuildBlocked checks that building the columns of a CSR with
// sorted rows by blocks of cscBlock columns gives what the plain counting
// sort gives, on widths below, at and past a block and with empty rows
// and columns.
func TestCSCBuildBlocked(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for _, s := range []struct{ rows, cols, nnz int }{{5, 3, 2}, {40, 128, 30}, {60, 129, 50}, {200, 767, 270}, {30, 1433, 18}} {
		x := randSparse(rng, s.rows, s.cols, s.nnz)
		if s.rows > 3 { // an empty row
			x = CSRFromDense(withZeroRow(x.Dense(), 2))
		}
		if !increasing(x.Indptr, x.Indices, x.Rows) {
			t.Fatalf("%+v: rows not sorted", s)
		}
		var blocked, plain cscMatrix
		blocked.build(x, true)
		plain.build(x, false)
		if !slices.Equal(blocked.ptr, plain.ptr) || !slices.Equal(blocked.idx, plain.idx) ||
			!slices.Equal(blocked.val, plain.val) || !slices.Equal(blocked.nonEmpty, plain.nonEmpty) {
			t.Errorf("%+v: blocked build differs from the plain one", s)
		}
	}
}

// withZeroRow returns m with row i set to zero.
func withZeroRow(m *mat.Dense, i int) *mat.Dense {
	_, c := m.Dims()
	for j := 0; j < c; j++ {
		m.Set(i, j, 0)
	}
	return m
}

// BenchmarkCSCBuild times the columns of an Amazon-Computer-10 client's
// features (1375 x 767, about 270 entries a row), built once a round,
// by blocks of columns and by the plain counting sort.
func BenchmarkCSCBuild(b *testing.B) {
	x := randSparse(rand.New(rand.NewPCG(5, 6)), 1375, 767, 320)
	for _, blocked := range []bool{false, true} {
		b.Run(fmt.Sprintf("blocked=%v", blocked), func(b *testing.B) {
			var t cscMatrix
			stop := cputime.Start(b)
			for b.Loop() {
				t.build(x, blocked)
			}
			stop()
		})
	}
}
