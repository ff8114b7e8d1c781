package sim

import (
	"math"

	"github.com/fedaux/fedaux/gnn"
	"gonum.org/v1/gonum/mat"
)

// FedGTA's label propagation (docs/method.md#fedgta): the authors'
// constants and OpenFGL's alike.
const (
	gtaLPSteps = 5   // K_lp
	gtaLPAlpha = 0.5 // alpha_lp
	gtaTau     = 20  // temperature of the smoothed predictions
)

// MomentType says which moments of its label-propagated predictions a
// FedGTA client sends.
type MomentType string

// The moment types (gm.py compute_moment of the authors' code).
const (
	// MomentsHybrid sends the raw moments mu_1..mu_q and the central
	// moments kappa_1..kappa_q.
	MomentsHybrid MomentType = "hybrid"
	// MomentsOrigin sends the raw moments mu_1..mu_q only.
	MomentsOrigin MomentType = "origin"
)

// MomentTypes lists the moment types.
func MomentTypes() []MomentType { return []MomentType{MomentsHybrid, MomentsOrigin} }

// ParseMomentType returns the moment type named s.
func ParseMomentType(s string) (MomentType, error) {
	return parseName("gta_type", s, MomentTypes(), joinOr(MomentTypes()))
}

func (t MomentType) String() string { return string(t) }

// MarshalText implements encoding.TextMarshaler.
func (t MomentType) MarshalText() ([]byte, error) { return []byte(t), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *MomentType) UnmarshalText(b []byte) error { return unmarshalName(t, b, ParseMomentType) }

// GTAClient is what a FedGTA client computes after training: the first
// Moments moments of its label-propagated predictions, of type Type (the
// SourceMoments signature: mu_1..mu_q, then for hybrid the central
// kappa_1..kappa_q, class by class), and its smoothing confidence
// (Update.Weight; see package methods' FedGTA).
type GTAClient struct {
	Moments int
	Type    MomentType
}

// gtaSignature computes the client's FedGTA signature from its
// evaluation-mode logits: the moments into up.Signatures and the
// confidence into up.Weight.
func (c *Client) gtaSignature(logits *mat.Dense, up *Update) error {
	g := c.side.GTA
	lp := gnn.LabelPropagation{Steps: gtaLPSteps, Alpha: gtaLPAlpha, Tau: gtaTau}
	p, pTau, err := lp.Run(c.input.Prop, gnn.Softmax(logits), c.labels, c.train)
	if err != nil {
		return err
	}
	up.Signatures[SourceMoments] = mixedMoments(p, g.Moments, g.Type)
	up.Weight = smoothingConfidence(pTau, localDegrees(c.data.Graph.Adj.Indptr, c.data.Graph.Adj.Indices))
	return nil
}

// mixedMoments returns the moments of the rows of p, class by class: mu_1
// (C values) .. mu_q, then, for hybrid, kappa_1 .. kappa_q (see GTAClient).
func mixedMoments(p *mat.Dense, q int, typ MomentType) []float64 {
	_, c := p.Dims()
	if typ != MomentsHybrid {
		return moments(p, q, nil)
	}
	raw := moments(p, q, nil)
	return append(raw, moments(p, q, raw[:c])...)
}

// moments returns mean_v (P_v - centre)^k, k = 1..q, class by class
// (centre nil: 0).
func moments(p *mat.Dense, q int, centre []float64) []float64 {
	n, c := p.Dims()
	out := make([]float64, q*c)
	pow := make([]float64, c)
	for i := range n {
		row := p.RawRowView(i)
		for j := range pow {
			pow[j] = 1
		}
		for k := range q {
			dst := out[k*c : (k+1)*c]
			for j, v := range row {
				if centre != nil {
					v -= centre[j]
				}
				pow[j] *= v
				dst[j] += pow[j]
			}
		}
	}
	for i := range out {
		out[i] /= float64(n)
	}
	return out
}

// smoothingConfidence returns sum_v deg_v (C/e + sum_c P_vc ln(P_vc + 1e-8))
// (the authors' info_entropy_rev).
func smoothingConfidence(p *mat.Dense, deg []float64) float64 {
	n, c := p.Dims()
	var w float64
	for i := range n {
		var s float64
		for _, v := range p.RawRowView(i) {
			s += v * math.Log(v+1e-8)
		}
		w += deg[i] * (float64(c)/math.E + s)
	}
	return w
}

// localDegrees returns each node's number of neighbours, self loop excluded.
func localDegrees(indptr, indices []int) []float64 {
	deg := make([]float64, len(indptr)-1)
	for i := range deg {
		for _, j := range indices[indptr[i]:indptr[i+1]] {
			if j != i {
				deg[i]++
			}
		}
	}
	return deg
}
