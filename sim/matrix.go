package sim

import (
	"fmt"
	"slices"
)

// MatrixKind says what a round matrix's entries are, and so its natural range.
type MatrixKind int

// The kinds of round matrices.
const (
	KindCosine    MatrixKind = iota // cosine similarities, in [-1, 1]
	KindAbsCosine                   // absolute cosines (pc1), in [0, 1]
	KindWeights                     // row-stochastic mixing weights, in [0, 1]
)

var kindNames = [...]string{KindCosine: "cosine", KindAbsCosine: "abs-cosine", KindWeights: "weights"}

func (k MatrixKind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("MatrixKind(%d)", int(k))
	}
	return kindNames[k]
}

// MarshalText implements encoding.TextMarshaler.
func (k MatrixKind) MarshalText() ([]byte, error) {
	if k < 0 || int(k) >= len(kindNames) {
		return nil, fmt.Errorf("sim: invalid matrix kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// SourceKind returns the kind of the similarity matrix of a signature:
// pc1 is compared by absolute cosine (an eigenvector's sign is
// arbitrary), every other signature by cosine.
func SourceKind(s Source) MatrixKind {
	if s == SourcePC1 {
		return KindAbsCosine
	}
	return KindCosine
}

// Names of the round matrices that are not similarity views.
const (
	MatrixWeights     = "weights"
	MatrixGroundTruth = "ground_truth"
	// MatrixSimilarity names the strategy's similarity when it is none
	// of the views.
	MatrixSimilarity = "similarity"
)

// A Matrix is one K x K matrix of a round, named.
type Matrix struct {
	// Name is a similarity source (a view), MatrixWeights,
	// MatrixGroundTruth or MatrixSimilarity.
	Name string
	Kind MatrixKind
	M    [][]float64
	// SetWeights marks the similarity the round's weights were derived from.
	SetWeights bool
}

// Matrices returns the round's matrices in display order: the similarity
// of every signature computed (Sources order, then any other), the
// strategy's similarity when it is none of them, the mixing weights and
// the ground truth; those the round lacks are left out. The engine builds
// the list once per round; it and its matrices are the report's own.
func (r *RoundReport) Matrices() []Matrix {
	if r.matrices == nil {
		r.buildMatrices()
	}
	return r.matrices
}

// Matrix returns the round's matrix with the given name.
func (r *RoundReport) Matrix(name string) (Matrix, bool) {
	for _, m := range r.Matrices() {
		if m.Name == name {
			return m, true
		}
	}
	return Matrix{}, false
}

// buildMatrices lists the round's matrices (see Matrices).
func (r *RoundReport) buildMatrices() {
	var names []Source
	for s := range r.Views {
		names = append(names, s)
	}
	rank := func(s Source) int {
		if i := slices.Index(Sources(), s); i >= 0 {
			return i
		}
		return len(Sources())
	}
	slices.SortFunc(names, func(a, b Source) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return compareStrings(string(a), string(b))
	})
	out := []Matrix{}
	found := false
	for _, s := range names {
		set := r.WeightsFrom != "" && s == r.WeightsFrom
		found = found || set
		out = append(out, Matrix{Name: string(s), Kind: SourceKind(s), M: r.Views[s], SetWeights: set})
	}
	if !found && len(r.Similarity) > 0 {
		out = append(out, Matrix{Name: MatrixSimilarity, Kind: KindCosine, M: r.Similarity, SetWeights: true})
	}
	if len(r.Weights) > 0 {
		out = append(out, Matrix{Name: MatrixWeights, Kind: KindWeights, M: r.Weights})
	}
	if len(r.GroundTruth) > 0 {
		out = append(out, Matrix{Name: MatrixGroundTruth, Kind: KindCosine, M: r.GroundTruth})
	}
	r.matrices = out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
