package sim

import (
	"math"

	"github.com/fedaux/fedaux/gnn"
	"gonum.org/v1/gonum/mat"
)

// FedGTA's settings (docs/method.md#fedgta). The defaults are OpenFGL's
// (fedgta_config.py: num_moments 10, moment_type hybrid, accept_alpha
// 0.5), used for Amazon-Computer, Amazon-Photo and ogbn-arxiv; the
// Cora, CiteSeer and PubMed presets set the authors' tuned values
// (xkLi-Allen/FedGTA config.py) in their scenario files. The label
// propagation constants are the authors' and OpenFGL's alike.
const (
	defaultGTAMoments = 10
	defaultGTAType    = MomentsHybrid
	defaultGTAEps     = 0.5

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

// fedGTA is FedGTA (Li et al., "FedGTA: Topology-aware Averaging for
// Federated Graph Learning", VLDB 2024) on the protocol's plain GCN, as
// docs/method.md#fedgta states it after the authors' code (xkLi-Allen/FedGTA).
//
// After local training each client k takes its evaluation-mode
// predictions Yhat = softmax(logits), propagates them on its graph with
// its training labels (gnn.LabelPropagation: K_lp = 5, alpha_lp = 0.5,
// tau = 20) into P and Ptilde, and sends, beside its parameters, the
// mixed moments of P over its nodes v (class by class, p = 1..q)
//
//	mu_p    = mean_v P_v^p,   kappa_p = mean_v (P_v - mu_1)^p,
//	m_k     = [mu_1 .. mu_q, kappa_1 .. kappa_q]   (hybrid)   or   [mu_1 .. mu_q]   (origin),
//
// as the SourceMoments signature, and its smoothing confidence
//
//	w_k = sum_v deg_v (C/e + sum_c Ptilde_vc ln(Ptilde_vc + 1e-8)),
//
// deg_v its local degree without the self loop. The server compares the
// moments, s_kl = cos(m_k, m_l), accepts S_k = {l : s_kl > eps} (k
// always), and sends client k alone
//
//	theta_k = sum_{l in S_k} w_l / (sum_{j in S_k} w_j) theta_l
//
// over all parameters (uniform over S_k when the w_j sum to 0).
type fedGTA struct {
	eps     float64
	moments int
	typ     MomentType
}

func newFedGTA(c *Config) Strategy {
	return fedGTA{eps: c.Options.Float("gta_eps"), moments: c.Options.Int("gta_moments"), typ: MomentType(c.Options.String("gta_type"))}
}

func (fedGTA) Name() Algorithm          { return FedGTA }
func (fedGTA) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = false, false }
func (fedGTA) Shares(p *gnn.Param) bool { return !p.Personal }

// ClientSide asks for the moments and the confidence.
func (f fedGTA) ClientSide() ClientSide {
	return ClientSide{GTA: &GTAClient{Moments: f.moments, Type: f.typ}}
}

// Mix returns the personalised weights over the accept sets.
func (f fedGTA) Mix(in *RoundInput) Mixing {
	sim := in.Views[SourceMoments]
	conf := make([]float64, len(in.Updates))
	for l, u := range in.Updates {
		conf[l] = u.Weight
	}
	return Mixing{W: acceptWeights(sim, conf, f.eps), Similarity: sim, Source: SourceMoments}
}

// acceptWeights returns W_kl = conf_l / sum_{j in S_k} conf_j for l in
// S_k = {l : sim_kl > eps} ∪ {k}, and 0 elsewhere; uniform over S_k when
// the confidences there sum to 0.
func acceptWeights(sim [][]float64, conf []float64, eps float64) [][]float64 {
	k := len(sim)
	w := make([][]float64, k)
	for i := range w {
		w[i] = make([]float64, k)
		var sum float64
		n := 0
		for l := range k {
			if l == i || sim[i][l] > eps {
				sum += conf[l]
				n++
			}
		}
		for l := range k {
			if l != i && !(sim[i][l] > eps) {
				continue
			}
			if sum > 0 {
				w[i][l] = conf[l] / sum
			} else {
				w[i][l] = 1 / float64(n)
			}
		}
	}
	return w
}

// GTAClient is what a FedGTA client computes after training: the first
// Moments moments of its label-propagated predictions, of type Type.
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
// (C values) .. mu_q, then, for hybrid, kappa_1 .. kappa_q (see fedGTA).
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

// validateGTA checks FedGTA's (and FedGTA+APV's) settings.
