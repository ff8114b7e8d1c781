package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// rowSumsRef is RowSums as its documentation states it, one element at a
// time in plain Go.
func rowSumsRef(dst []float64, stride, cols int, src []float64, terms []Term, n []int, zero bool) {
	for r, k := range n {
		row := dst[r*stride : r*stride+cols]
		for c := range row {
			v := row[c]
			if zero {
				v = 0
			}
			for _, t := range terms[:k] {
				v += float64(t.A * src[t.Off+c])
			}
			row[c] = v
		}
		terms = terms[k:]
	}
}

// rowSumsCase draws a random problem: up to 11 rows (every remainder of
// the groups of four), 1 to 40 columns (every tail of the strips of 16)
// or 256, term counts from 0 to 20 and rows of src that may end at its
// end, with zeros, negative zeros, infinities and NaNs among the values.
func rowSumsCase(rng *rand.Rand) (dst []float64, stride, cols int, src []float64, terms []Term, n []int) {
	cols = 1 + rng.IntN(40)
	if rng.IntN(8) == 0 {
		cols = 256
	}
	rows := rng.IntN(12)
	stride = cols + rng.IntN(3)
	srcRows := 1 + rng.IntN(30)
	srcStride := cols + rng.IntN(3)
	src = make([]float64, (srcRows-1)*srcStride+cols)
	fill := func(v []float64) {
		for i := range v {
			switch rng.IntN(40) {
			case 0:
				v[i] = 0
			case 1:
				v[i] = math.Copysign(0, -1)
			case 2:
				v[i] = math.Inf(1 - 2*rng.IntN(2))
			case 3:
				v[i] = math.NaN()
			default:
				v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
			}
		}
	}
	fill(src)
	dst = make([]float64, max(0, (rows-1)*stride+cols))
	fill(dst)
	n = make([]int, rows)
	for r := range n {
		n[r] = rng.IntN(21)
		if rng.IntN(4) == 0 {
			n[r] = rng.IntN(3)
		}
		for range n[r] {
			a := make([]float64, 1)
			fill(a)
			terms = append(terms, Term{Off: rng.IntN(srcRows) * srcStride, A: a[0]})
		}
	}
	return dst, stride, cols, src, terms, n
}

func firstDiff(a, b []float64) (int, bool) {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i, false
		}
	}
	return 0, len(a) == len(b)
}

// TestRowSums compares RowSums at every level with AddScaledN and
// ScaledSum called row by row at the same level, bit for bit (NaN
// payloads included), and the portable level with the plain loop (NaN
// payloads aside), on random shapes.
func TestRowSums(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, uint64(Current())))
		for it := range 3000 {
			dst, stride, cols, src, terms, n := rowSumsCase(rng)
			zero := rng.IntN(2) == 0
			got := append([]float64(nil), dst...)
			RowSums(got, stride, cols, src, terms, n, zero)

			perRow := append([]float64(nil), dst...)
			ts := terms
			for r, k := range n {
				row := perRow[r*stride : r*stride+cols]
				a := make([]float64, k)
				xs := make([][]float64, k)
				for i, term := range ts[:k] {
					a[i], xs[i] = term.A, src[term.Off:term.Off+cols]
				}
				if zero {
					ScaledSum(row, a, xs)
				} else {
					AddScaledN(row, a, xs)
				}
				ts = ts[k:]
			}
			if i, ok := firstDiff(got, perRow); !ok {
				t.Fatalf("case %d (rows %d, cols %d, stride %d, zero %v): element %d is %v, AddScaledN gives %v", it, len(n), cols, stride, zero, i, got[i], perRow[i])
			}
			if Current() == Portable {
				ref := append([]float64(nil), dst...)
				rowSumsRef(ref, stride, cols, src, terms, n, zero)
				for i := range got {
					if g, w := got[i], ref[i]; math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
						t.Fatalf("case %d: element %d is %v, the plain loop gives %v", it, i, g, w)
					}
				}
			}
			// Elements between the rows (stride > cols) are left alone.
			for r := 0; r+1 < len(n); r++ {
				for c := cols; c < stride; c++ {
					if i := r*stride + c; math.Float64bits(got[i]) != math.Float64bits(dst[i]) {
						t.Fatalf("case %d: element %d between rows was written", it, i)
					}
				}
			}
		}
	})
}

// TestRowSumsLevelsAgree compares the levels with each other: every level
// must give the portable bits, NaN payloads aside (the Go compiler may
// order a product's operands either way).
func TestRowSumsLevelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for it := range 500 {
		dst, stride, cols, src, terms, n := rowSumsCase(rng)
		zero := it%2 == 0
		var want []float64
		for _, l := range levels() {
			prev := Use(l)
			got := append([]float64(nil), dst...)
			RowSums(got, stride, cols, src, terms, n, zero)
			Use(prev)
			if want == nil {
				want = got
				continue
			}
			for i := range got {
				if g, w := got[i], want[i]; math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
					t.Fatalf("case %d: level %v gives %v at %d, portable %v", it, l, g, i, w)
				}
			}
		}
	}
}

func TestRowSumsPanics(t *testing.T) {
	src := make([]float64, 10)
	dst := make([]float64, 8)
	for _, c := range []struct {
		name  string
		f     func()
		inMsg string
	}{
		{"term past the end", func() { RowSums(dst, 4, 4, src, []Term{{Off: 7, A: 1}}, []int{1}, true) }, "src[7:11]"},
		{"negative offset", func() { RowSums(dst, 4, 4, src, []Term{{Off: -1, A: 1}}, []int{1}, true) }, "src[-1:3]"},
		{"too few terms", func() { RowSums(dst, 4, 4, src, []Term{{Off: 0, A: 1}}, []int{1, 1}, true) }, "2 terms, 1 given"},
		{"negative count", func() { RowSums(dst, 4, 4, src, nil, []int{-1}, true) }, "-1 terms"},
		{"dst too short", func() { RowSums(dst, 4, 4, src, nil, []int{0, 0, 0}, true) }, "3 rows need 12"},
		{"overlapping rows", func() { RowSums(dst, 2, 4, src, nil, []int{0, 0}, true) }, "stride 2 below 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg := fmt.Sprint(r); r == nil || !contains(msg, c.inMsg) {
					t.Fatalf("panic %v, want one mentioning %q", r, c.inMsg)
				}
			}()
			c.f()
		})
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestRowSumsAt compares RowSumsAt at every level with RowSums called for
// each row alone, bit for bit, with the rows of dst in a random order
// or in order, with random gaps.
func TestRowSumsAt(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, uint64(Current())))
		for it := range 2000 {
			_, _, cols, src, terms, n := rowSumsCase(rng)
			rows := len(n)
			slots := rows + rng.IntN(4)
			stride := cols + rng.IntN(3)
			dst := make([]float64, slots*stride+rng.IntN(3))
			for i := range dst {
				dst[i] = rng.NormFloat64()
			}
			off := make([]int, rows)
			perm := rng.Perm(slots)[:rows]
			if it%2 == 0 { // in order: runs of rows one stride apart
				slices.Sort(perm)
			}
			for r, s := range perm {
				off[r] = s * stride
			}
			zero := rng.IntN(2) == 0
			got := append([]float64(nil), dst...)
			RowSumsAt(got, off, cols, src, terms, n, zero)
			want := append([]float64(nil), dst...)
			ts := terms
			for r, o := range off {
				RowSums(want[o:o+cols], cols, cols, src, ts, n[r:r+1], zero)
				ts = ts[n[r]:]
			}
			if i, ok := firstDiff(got, want); !ok {
				t.Fatalf("case %d (rows %d, cols %d, zero %v): element %d is %v, row by row %v", it, rows, cols, zero, i, got[i], want[i])
			}
		}
	})
}

func TestRowSumsAtPanics(t *testing.T) {
	src := make([]float64, 10)
	dst := make([]float64, 8)
	for _, c := range []struct {
		name  string
		f     func()
		inMsg string
	}{
		{"row past the end", func() { RowSumsAt(dst, []int{5}, 4, src, nil, []int{0}, true) }, "dst[5:9]"},
		{"overlap", func() { RowSumsAt(dst, []int{0, 2}, 4, src, nil, []int{0, 0}, true) }, "rows 0 and 1 overlap"},
		{"counts", func() { RowSumsAt(dst, []int{0}, 4, src, nil, []int{0, 0}, true) }, "2 counts for 1 rows"},
		{"term past the end", func() { RowSumsAt(dst, []int{0}, 4, src, []Term{{Off: 7}}, []int{1}, true) }, "src[7:11]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg := fmt.Sprint(r); r == nil || !contains(msg, c.inMsg) {
					t.Fatalf("panic %v, want one mentioning %q", r, c.inMsg)
				}
			}()
			c.f()
		})
	}
}

// TestTermsInRange checks the bounds check of RowSums' and RowSums32's
// terms at every level: lists of every length up to 40 with one term out
// of range (just past the last row, far past it, negative) at every
// position, and none, and for Term32s a bound past what 32 bits hold;
// RowSums panics on one.
func TestTermsInRange(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(10, 11))
		const cols, srcLen = 5, 100
		last := srcLen - cols
		for n := 0; n <= 40; n++ {
			terms := make([]Term, n)
			terms32 := make([]Term32, n)
			for i := range terms {
				// The As' bits, negative ones and NaNs among them, lie
				// beside the Offs in the kernels' registers.
				off, a := rng.IntN(last+1), rng.NormFloat64()
				if i%7 == 3 {
					a = math.NaN()
				}
				terms[i], terms32[i] = Term{Off: off, A: a}, Term32{Off: int32(off), A: float32(a)}
			}
			if !termsInRange(terms, last) || !terms32InRange(terms32, last) || !terms32InRange(terms32, 1<<40) {
				t.Fatalf("%d terms in range reported out of range", n)
			}
			for i := 0; i < n; i++ {
				for _, bad := range []int{last + 1, 1 << 40, -1, -cols} {
					old := terms[i].Off
					terms[i].Off = bad
					if termsInRange(terms, last) {
						t.Fatalf("%d terms: Off %d at %d reported in range", n, bad, i)
					}
					terms[i].Off = old
				}
				for _, bad := range []int32{int32(last) + 1, MaxOff32, -1, -cols, math.MinInt32} {
					old := terms32[i].Off
					terms32[i].Off = bad
					if terms32InRange(terms32, last) || (bad < 0 && terms32InRange(terms32, 1<<40)) {
						t.Fatalf("%d Term32s: Off %d at %d reported in range", n, bad, i)
					}
					terms32[i].Off = old
				}
			}
		}
		defer func() {
			if recover() == nil {
				t.Error("RowSums with a term past the source did not panic")
			}
		}()
		dst := make([]float64, cols)
		RowSums(dst, cols, cols, make([]float64, srcLen), []Term{{Off: 3}, {Off: last + 1}}, []int{2}, true)
	})
}

// TestNonzeroTerms checks NonzeroTerms at every level against the
// definition: rows of every length up to 40 and a long one, with zeros,
// negative zeros, infinities and NaNs (payloads kept), with and without
// the slack past the row, and that it writes nothing past that slack.
func TestNonzeroTerms(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(12, 13))
		specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff8000000000123)}
		for _, n := range append(rangeInts(41), 256, 1433) {
			for _, slack := range []int{0, NonzeroTermsSlack} {
				x := make([]float64, n)
				for i := range x {
					switch rng.IntN(3) {
					case 0:
						x[i] = rng.NormFloat64()
					case 1:
						x[i] = specials[rng.IntN(len(specials))]
					}
				}
				stride := 1 + rng.IntN(300)
				dst := make([]Term, n+slack+1)
				guard := Term{Off: -7, A: 42}
				dst[n+slack] = guard
				k := NonzeroTerms(dst[:n+slack], x, stride)
				var want []Term
				for j, v := range x {
					if v != 0 {
						want = append(want, Term{Off: j * stride, A: v})
					}
				}
				if k != len(want) {
					t.Fatalf("n=%d slack=%d: %d terms, want %d", n, slack, k, len(want))
				}
				for i, w := range want {
					if g := dst[i]; g.Off != w.Off || math.Float64bits(g.A) != math.Float64bits(w.A) {
						t.Fatalf("n=%d slack=%d: term %d is %+v, want %+v", n, slack, i, g, w)
					}
				}
				if dst[n+slack] != guard {
					t.Fatalf("n=%d slack=%d: wrote past the slack", n, slack)
				}
			}
		}
	})
}

func rangeInts(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

// TestNonzeroTerms32 is TestNonzeroTerms for NonzeroTerms32.
func TestNonzeroTerms32(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(14, 15))
		specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), math.Float32frombits(0x7fc00123)}
		for _, n := range append(rangeInts(41), 256, 767) {
			for _, slack := range []int{0, NonzeroTermsSlack} {
				x := make([]float32, n)
				for i := range x {
					switch rng.IntN(3) {
					case 0:
						x[i] = float32(rng.NormFloat64())
					case 1:
						x[i] = specials[rng.IntN(len(specials))]
					}
				}
				stride := 1 + rng.IntN(300)
				dst := make([]Term32, n+slack+1)
				guard := Term32{Off: -7, A: 42}
				dst[n+slack] = guard
				k := NonzeroTerms32(dst[:n+slack], x, stride)
				var want []Term32
				for j, v := range x {
					if v != 0 {
						want = append(want, Term32{Off: int32(j * stride), A: v})
					}
				}
				if k != len(want) {
					t.Fatalf("n=%d slack=%d: %d terms, want %d", n, slack, k, len(want))
				}
				for i, w := range want {
					if g := dst[i]; g.Off != w.Off || math.Float32bits(g.A) != math.Float32bits(w.A) {
						t.Fatalf("n=%d slack=%d: term %d is %+v, want %+v", n, slack, i, g, w)
					}
				}
				if dst[n+slack] != guard {
					t.Fatalf("n=%d slack=%d: wrote past the slack", n, slack)
				}
			}
		}
	})
}

// TestRowSumsStride checks that RowSumsStride gives RowSums' bits (NaN
// payloads aside) at every level, on products wider than the AVX2
// strips take without the stride, from source rows a multiple of 1 KiB
// apart (row by row) and not (in strips), and on narrow ones.
func TestRowSumsStride(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(10, uint64(Current())))
		for it := range 60 {
			cols := []int{300, 517, 1024, 2048, 40}[it%5]
			srcStride := []int{cols, cols + 8, 1024 * (1 + cols/1024)}[it%3]
			srcRows := 1 + rng.IntN(20)
			src := make([]float64, (srcRows-1)*srcStride+cols)
			for i := range src {
				src[i] = rng.NormFloat64()
				if rng.IntN(50) == 0 {
					src[i] = []float64{math.NaN(), math.Inf(1), math.Copysign(0, -1), 0}[rng.IntN(4)]
				}
			}
			rows := 1 + rng.IntN(9)
			stride := cols + rng.IntN(3)
			n := make([]int, rows)
			var terms []Term
			for r := range n {
				n[r] = rng.IntN(12)
				for range n[r] {
					terms = append(terms, Term{Off: rng.IntN(srcRows) * srcStride, A: rng.NormFloat64()})
				}
			}
			dst := make([]float64, (rows-1)*stride+cols)
			for i := range dst {
				dst[i] = rng.NormFloat64()
			}
			zero := it%2 == 0
			got, want := slices.Clone(dst), slices.Clone(dst)
			RowSumsStride(got, stride, cols, src, srcStride, terms, n, zero)
			RowSums(want, stride, cols, src, terms, n, zero)
			for i := range got {
				if g, w := got[i], want[i]; math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
					t.Fatalf("case %d (%d columns, source rows %d apart): element %d is %v, RowSums gives %v", it, cols, srcStride, i, g, w)
				}
			}
		}
		defer func() {
			if r := fmt.Sprint(recover()); !contains(r, "vec: RowSumsStride: term 0 reads src[7:11]") {
				t.Errorf("panic %q, want one naming RowSumsStride and the term's row", r)
			}
		}()
		RowSumsStride(make([]float64, 4), 4, 4, make([]float64, 10), 4, []Term{{Off: 7, A: 1}}, []int{1}, true)
	})
}
