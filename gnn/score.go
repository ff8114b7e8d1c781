package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// ScoreKind selects how node embeddings are projected on the APV (Eq. 2).
type ScoreKind int

const (
	// Cosine (reference code, used for the published Cora-10 number):
	// s_i = <h_i, a> / (||h_i|| ||a||), a initialised U(0,1).
	Cosine ScoreKind = iota
	// MaxNorm (paper text): s_i = <h_i, a> / max_j ||h_j||, a
	// initialised N(0, I).
	MaxNorm
)

// scoreNames are the names of the score kinds, as flags and logs spell them.
var scoreNames = [...]string{Cosine: "cosine", MaxNorm: "maxnorm"}

// String returns "cosine" or "maxnorm".
func (k ScoreKind) String() string {
	if k < 0 || int(k) >= len(scoreNames) {
		return fmt.Sprintf("ScoreKind(%d)", int(k))
	}
	return scoreNames[k]
}

// ParseScoreKind returns the score kind named s ("cosine" or "maxnorm").
func ParseScoreKind(s string) (ScoreKind, error) {
	for k, name := range scoreNames {
		if s == name {
			return ScoreKind(k), nil
		}
	}
	return 0, fmt.Errorf("gnn: unknown score %q (have cosine, maxnorm)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (k ScoreKind) MarshalText() ([]byte, error) {
	if k < 0 || int(k) >= len(scoreNames) {
		return nil, fmt.Errorf("gnn: invalid score kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *ScoreKind) UnmarshalText(b []byte) error {
	v, err := ParseScoreKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// normEps guards the norms in the score denominators.
const normEps = 1e-8

// Score projects node embeddings on the auxiliary projection vector
// (APV) a (Eq. 2). With Cosine,
//
//	s_i = <h_i, a> / (max(||h_i||, eps) max(||a||, eps)),
//
// so an all-zero h_i scores 0. With MaxNorm,
//
//	s_i = <h_i, a> / max(max_j ||h_j||, eps),
//
// and the gradient through the max goes to the first row of largest
// norm, as autograd's argmax does. Gradients flow into h and into a.
type Score struct {
	Kind ScoreKind
	APV  *Param // 1 x d, named "apv"

	h     *mat.Dense
	s     []float64
	norms []float64 // ||h_i||
	anorm float64   // ||a||
	imax  int       // MaxNorm: row of largest norm
	denom float64   // MaxNorm: max(max_j ||h_j||, eps)
	dh    buffer
}

// NewScore returns a score layer for d-dimensional embeddings with its
// APV drawn from rng: U(0,1) per coordinate for Cosine, N(0,1) for
// MaxNorm (nil rng: zero, see NewModel).
func NewScore(kind ScoreKind, d int, rng *rand.Rand) *Score {
	a := newParam("apv", 1, d, false)
	if rng == nil {
		return &Score{Kind: kind, APV: a}
	}
	for i := range a.Value {
		if kind == MaxNorm {
			a.Value[i] = rng.NormFloat64()
		} else {
			a.Value[i] = rng.Float64()
		}
	}
	return &Score{Kind: kind, APV: a}
}

// Forward returns the scores of the rows of h (Eq. 2). The slice belongs
// to the layer and is overwritten by its next call.
func (sc *Score) Forward(h *mat.Dense) []float64 {
	n, d := h.Dims()
	if d != sc.APV.Cols {
		panic(fmt.Sprintf("gnn: score forward: embeddings have %d columns, APV has %d", d, sc.APV.Cols))
	}
	sc.h = h
	sc.s = grow(sc.s, n)
	sc.norms = grow(sc.norms, n)
	a := sc.APV.Value
	sc.anorm = math.Sqrt(dot(a, a))
	raw := h.RawMatrix()
	sc.imax, sc.denom = scoreRows(sc.Kind, raw.Data, raw.Stride, n, d, a, sc.anorm, sc.norms, sc.s, dot, math.Sqrt, normEps)
	return sc.s
}

// scoreRows sets norms[i] to ||h_i|| and s[i] to the score of row i of
// h (the n rows of d elements from h[i*stride]) on the APV a of norm
// anorm (Eq. 2, as Score documents for kind), and returns the first row
// of largest norm and MaxNorm's denominator; dot, sqrt and eps are those
// of the precision (Score.Forward's float64, the float32 head's float32).
func scoreRows[T float32 | float64](kind ScoreKind, h []T, stride, n, d int, a []T, anorm T, norms, s []T, dot func(x, y []T) T, sqrt func(T) T, eps T) (imax int, denom T) {
	for i := 0; i < n; i++ {
		row := h[i*stride : i*stride+d]
		norms[i] = sqrt(dot(row, row))
		s[i] = dot(row, a)
		if norms[i] > norms[imax] {
			imax = i
		}
	}
	switch kind {
	case Cosine:
		na := max(anorm, eps)
		for i := range s {
			s[i] /= max(norms[i], eps) * na
		}
	case MaxNorm:
		denom = max(norms[imax], eps)
		for i := range s {
			s[i] /= denom
		}
	default:
		panic(fmt.Sprintf("gnn: invalid score kind %d", int(kind)))
	}
	return imax, denom
}

// Backward takes dL/ds, adds dL/da to the APV gradient and returns dL/dh.
func (sc *Score) Backward(ds []float64) *mat.Dense {
	n, d := sc.h.Dims()
	dh := sc.dh.get(n, d)
	hr, dr := sc.h.RawMatrix(), dh.RawMatrix()
	a, ga := sc.APV.Value, sc.APV.Grad
	switch sc.Kind {
	case Cosine:
		// ds_i/dh_i = a/(|h_i| |a|) - s_i h_i/|h_i|^2,
		// ds_i/da   = h_i/(|h_i| |a|) - s_i a/|a|^2 (norm terms vanish below eps).
		na := max(sc.anorm, normEps)
		var gs float64 // sum_i g_i s_i
		for i := 0; i < n; i++ {
			h := hr.Data[i*hr.Stride : i*hr.Stride+d]
			out := dr.Data[i*dr.Stride : i*dr.Stride+d]
			g := ds[i]
			nh := max(sc.norms[i], normEps)
			c := g / (nh * na)
			for j := range out {
				out[j] = c * a[j]
			}
			if sc.norms[i] > normEps {
				axpy(out, -g*sc.s[i]/(sc.norms[i]*sc.norms[i]), h)
			}
			axpy(ga, c, h)
			gs += g * sc.s[i]
		}
		if sc.anorm > normEps {
			axpy(ga, -gs/(sc.anorm*sc.anorm), a)
		}
	case MaxNorm:
		// s_i = <h_i, a>/m, m = |h_imax|: ds_i/dh_i = a/m, ds_i/da = h_i/m,
		// ds_i/dm = -s_i/m, dm/dh_imax = h_imax/m.
		inv := 1 / sc.denom
		var gs float64
		for i := 0; i < n; i++ {
			h := hr.Data[i*hr.Stride : i*hr.Stride+d]
			out := dr.Data[i*dr.Stride : i*dr.Stride+d]
			g := ds[i]
			for j := range out {
				out[j] = g * inv * a[j]
			}
			axpy(ga, g*inv, h)
			gs += g * sc.s[i]
		}
		if sc.norms[sc.imax] > normEps {
			k := sc.imax
			axpy(dr.Data[k*dr.Stride:k*dr.Stride+d], -gs*inv*inv, hr.Data[k*hr.Stride:k*hr.Stride+d])
		}
	}
	return dh
}
