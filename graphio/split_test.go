package graphio

import (
	"math"
	"slices"
	"testing"
)

func TestSplitSizes(t *testing.T) {
	// Expected values are Python 3's round(n * frac) (halves to even).
	cases := []struct {
		n                 int
		trainF, testF     float64
		wantTrn, wantTest int
	}{
		{2485, DefaultTrainFrac, DefaultTestFrac, 497, 994},
		{2120, DefaultTrainFrac, DefaultTestFrac, 424, 848},
		{13381, DefaultTrainFrac, DefaultTestFrac, 2676, 5352},
		{7487, DefaultTrainFrac, DefaultTestFrac, 1497, 2995},
		{169343, ArxivTrainFrac, ArxivTestFrac, 8467, 80438},
		{20, ArxivTrainFrac, ArxivTestFrac, 1, 10},  // 9.5 -> 10
		{60, ArxivTrainFrac, ArxivTestFrac, 3, 28},  // 28.5 -> 28
		{100, ArxivTrainFrac, ArxivTestFrac, 5, 48}, // 47.5 -> 48
		{140, ArxivTrainFrac, ArxivTestFrac, 7, 66}, // 66.5 -> 66
		{2485, 0.5, 0, 1242, 0},                     // 1242.5 -> 1242
		{7, 0.5, 0, 4, 0},                           // 3.5 -> 4
		{9, 0.5, 0, 4, 0},                           // 4.5 -> 4
		{0, DefaultTrainFrac, DefaultTestFrac, 0, 0},
	}
	for _, c := range cases {
		tr, te := SplitSizes(c.n, c.trainF, c.testF)
		if tr != c.wantTrn || te != c.wantTest {
			t.Errorf("SplitSizes(%d, %v, %v) = %d, %d; want %d, %d", c.n, c.trainF, c.testF, tr, te, c.wantTrn, c.wantTest)
		}
	}
	if DefaultTestFrac != (1-DefaultTrainFrac)/2 || ArxivTestFrac != (1-ArxivTrainFrac)/2 {
		t.Error("test fractions differ from the reference's (1 - train)/2")
	}
}

func TestSplitRandom(t *testing.T) {
	const n = 2485
	perm := Permutation(n, 1234)
	roles, err := SplitRandom(n, perm, DefaultTrainFrac, DefaultTestFrac)
	if err != nil {
		t.Fatal(err)
	}
	if tr, va, te := CountRoles(roles); tr != 497 || va != 994 || te != 994 {
		t.Errorf("train/val/test = %d/%d/%d, want 497/994/994", tr, va, te)
	}
	// The order is train, test, val along the permutation.
	for k, u := range perm {
		want := Val
		if k < 497 {
			want = Train
		} else if k < 497+994 {
			want = Test
		}
		if roles[u] != want {
			t.Fatalf("perm position %d (node %d) has role %d, want %d", k, u, roles[u], want)
		}
	}
	again, err := SplitSeeded(n, 1234, DefaultTrainFrac, DefaultTestFrac)
	if err != nil || !slices.Equal(again, roles) {
		t.Errorf("SplitSeeded differs from SplitRandom(Permutation) (err %v)", err)
	}
	other, _ := SplitSeeded(n, 1235, DefaultTrainFrac, DefaultTestFrac)
	if slices.Equal(other, roles) {
		t.Error("seeds 1234 and 1235 gave the same split")
	}
	sorted := slices.Clone(perm)
	slices.Sort(sorted)
	for i, v := range sorted {
		if v != i {
			t.Fatal("Permutation is not a permutation")
		}
	}
	if !slices.Equal(Permutation(n, 1234), perm) {
		t.Error("Permutation is not deterministic")
	}
}

func TestSplitRandomErrors(t *testing.T) {
	cases := []struct {
		name          string
		n             int
		perm          []int
		trainF, testF float64
	}{
		{"short perm", 3, []int{0, 1}, 0.2, 0.4},
		{"repeat", 3, []int{0, 1, 1}, 0.2, 0.4},
		{"out of range", 3, []int{0, 1, 3}, 0.2, 0.4},
		{"negative fraction", 3, []int{0, 1, 2}, -0.2, 0.4},
		{"NaN fraction", 3, []int{0, 1, 2}, 0.2, math.NaN()},
		{"too large", 4, []int{0, 1, 2, 3}, 0.7, 0.7},
	}
	for _, c := range cases {
		if _, err := SplitRandom(c.n, c.perm, c.trainF, c.testF); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestSplitRoles(t *testing.T) {
	roles := []Role{Test, Train, Val, Train, Test, Role(9)}
	tr, va, te := SplitRoles(roles)
	if !slices.Equal(tr, []int{1, 3}) || !slices.Equal(va, []int{2}) || !slices.Equal(te, []int{0, 4}) {
		t.Errorf("SplitRoles = %v, %v, %v; want [1 3], [2], [0 4]", tr, va, te)
	}
}
