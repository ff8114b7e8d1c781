package methods

import (
	"math"
	"strconv"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// FedGTA and its APV variant (docs/method.md#fedgta,
// docs/method.md#the-apv-variants).
const (
	FedGTA    sim.Algorithm = "fedgta"     // label-propagation moments, personalised by accept set and confidence
	FedGTAAPV sim.Algorithm = "fedgta_apv" // GCN + APV head; w_kl proportional to 1[l in S_k] w_l exp(alpha * APV cosine)
)

func fedGTAMethods() []sim.Method {
	return []sim.Method{
		{Name: FedGTA, Display: "FedGTA", Settings: gtaSettings, Float32: true,
			Describe: "FedGTA: plain GCN; label-propagation moments and smoothing confidence; each client mixes the clients whose moment cosine > -gta_eps, weighted by confidence",
			New:      func(c *sim.Config) (sim.Strategy, error) { return newFedGTA(c), nil }},
		{Name: FedGTAAPV, Display: "FedGTA+APV", Uses: []string{"alpha"}, Float32: true,
			Settings: append(gtaSettings[:len(gtaSettings):len(gtaSettings)], sim.Setting{
				Key: "gta_accept", Type: sim.Choice, Default: string(acceptMoments), Choices: []string{string(acceptMoments), string(acceptAPV)},
				Doc: "fedgta_apv: the accept set S_k: moments (FedGTA's: moment cosine > gta_eps) or apv (ablation: APV cosine > gta_eps)"}),
			Describe: "FedGTA+APV: GCN + APV head; client k mixes its accept set (-gta_accept) weighted by confidence * exp(alpha * APV cosine)",
			New:      func(c *sim.Config) (sim.Strategy, error) { return newFedGTAAPV(c), nil }},
	}
}

// FedGTA's settings (docs/method.md#fedgta). The defaults are OpenFGL's
// (fedgta_config.py: num_moments 10, moment_type hybrid, accept_alpha
// 0.5), used for Amazon-Computer, Amazon-Photo and ogbn-arxiv; the
// Cora, CiteSeer and PubMed presets set the authors' tuned values
// (xkLi-Allen/FedGTA config.py) in their scenario files.
const (
	defaultGTAMoments = 10
	defaultGTAType    = sim.MomentsHybrid
	defaultGTAEps     = 0.5
)

// gtaSettings are FedGTA's and FedGTA+APV's settings.
var gtaSettings = []sim.Setting{
	{Key: "gta_moments", Type: sim.Int, Default: strconv.Itoa(defaultGTAMoments),
		Check: func(v string) string {
			if n, _ := strconv.Atoi(v); n < 0 {
				return ">= 1 (or 0 for the default)"
			}
			return ""
		},
		Normalize: func(v string) string {
			if v == "0" { // a configuration from before FedGTA, such as an older checkpoint's
				return strconv.Itoa(defaultGTAMoments)
			}
			return v
		},
		Doc: "fedgta, fedgta_apv: number of moments q of the label-propagated predictions (authors: Cora 6, CiteSeer 20, PubMed 13; OpenFGL 10)"},
	{Key: "gta_type", Type: sim.Choice, Default: string(defaultGTAType), Choices: []string{string(sim.MomentsHybrid), string(sim.MomentsOrigin)},
		Doc: "fedgta, fedgta_apv: moments hybrid (raw and central) or origin (raw only)"},
	{Key: "gta_eps", Type: sim.Float, Default: strconv.FormatFloat(defaultGTAEps, 'g', -1, 64), Check: sim.Finite, Live: true,
		Doc: "fedgta, fedgta_apv: accept threshold: client k mixes the clients whose moment cosine exceeds it (authors: Cora 0.5, CiteSeer 0.6, PubMed 0.65)"},
}

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
// as the sim.SourceMoments signature, and its smoothing confidence
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
	typ     sim.MomentType
}

func newFedGTA(c *sim.Config) fedGTA {
	return fedGTA{eps: c.Options.Float("gta_eps"), moments: c.Options.Int("gta_moments"), typ: sim.MomentType(c.Options.String("gta_type"))}
}

func (fedGTA) Name() sim.Algorithm      { return FedGTA }
func (fedGTA) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = false, false }
func (fedGTA) Shares(p *gnn.Param) bool { return !p.Personal }

// ClientSide asks for the moments and the confidence.
func (f fedGTA) ClientSide() sim.ClientSide {
	return sim.ClientSide{GTA: &sim.GTAClient{Moments: f.moments, Type: f.typ}}
}

// Mix returns the personalised weights over the accept sets.
func (f fedGTA) Mix(in *sim.RoundInput) sim.Mixing {
	cos := in.Views[sim.SourceMoments]
	conf := make([]float64, len(in.Updates))
	for l, u := range in.Updates {
		conf[l] = u.Weight
	}
	return sim.Mixing{W: acceptWeights(cos, conf, f.eps), Similarity: cos, Source: sim.SourceMoments}
}

// acceptWeights returns W_kl = conf_l / sum_{j in S_k} conf_j for l in
// S_k = {l : cos_kl > eps} ∪ {k}, and 0 elsewhere; uniform over S_k when
// the confidences there sum to 0.
func acceptWeights(cos [][]float64, conf []float64, eps float64) [][]float64 {
	k := len(cos)
	w := make([][]float64, k)
	for i := range w {
		w[i] = make([]float64, k)
		var sum float64
		n := 0
		for l := range k {
			if l == i || cos[i][l] > eps {
				sum += conf[l]
				n++
			}
		}
		for l := range k {
			if l != i && !(cos[i][l] > eps) {
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

// gtaAccept says how FedGTA+APV's server builds client k's accept set
// S_k (-gta_accept).
type gtaAccept string

// The accept sets.
const (
	// acceptMoments is FedGTA's: S_k = {l : cos(m_k, m_l) > eps}, m the
	// moments of the label-propagated predictions.
	acceptMoments gtaAccept = "moments"
	// acceptAPV (ablation) is S_k = {l : cos(a_k, a_l) > eps}.
	acceptAPV gtaAccept = "apv"
)

// fedGTAAPV is FedGTA+APV: FedGTA (see fedGTA) whose GCN gains the APV
// head, trained jointly with the rest; label propagation, moments and
// smoothing confidence are computed as before, on the new model's
// evaluation predictions. The server weights
//
//	w_kl = 1[l in S_k] w_l exp(alpha cos(a_k, a_l)) / sum_{j in S_k} w_j exp(alpha cos(a_k, a_j)),
//
// S_k = {k} ∪ {l : cos(m_k, m_l) > eps} as FedGTA's (accept moments) or
// {k} ∪ {l : cos(a_k, a_l) > eps} (accept apv, the ablation), w_l the
// confidence, and mixes every parameter, the APV included (FedGTA mixes
// all parameters, FedAux the APV too). Where the confidences in S_k sum
// to 0 (FedGTA then takes uniform weights) the confidence drops out:
// softmax(alpha cos(a_k, .)) over S_k. At alpha = 0 the weights are
// FedGTA's.
type fedGTAAPV struct {
	fedGTA
	accept gtaAccept
}

func newFedGTAAPV(c *sim.Config) fedGTAAPV {
	return fedGTAAPV{fedGTA: newFedGTA(c), accept: gtaAccept(c.Options.String("gta_accept"))}
}

func (fedGTAAPV) Name() sim.Algorithm      { return FedGTAAPV }
func (fedGTAAPV) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = false, true }
func (fedGTAAPV) Shares(p *gnn.Param) bool { return !p.Personal }
func (fedGTAAPV) Uses() []sim.Source       { return []sim.Source{sim.SourceAPV} }

// Mix returns the personalised weights over the accept sets; the
// similarity it reports is the APV's (the moments' is a view beside it).
func (f fedGTAAPV) Mix(in *sim.RoundInput) sim.Mixing {
	cos := in.Views[sim.SourceAPV]
	accept := in.Views[sim.SourceMoments]
	if f.accept == acceptAPV {
		accept = cos
	}
	conf := make([]float64, len(in.Updates))
	for l, u := range in.Updates {
		conf[l] = u.Weight
	}
	return sim.Mixing{W: apvAcceptWeights(accept, cos, conf, f.eps, in.Knobs.Alpha), Similarity: cos, Source: sim.SourceAPV}
}

// apvAcceptWeights returns W_kl = conf_l e_kl / sum_{j in S_k} conf_j e_kj
// for l in S_k = {k} ∪ {l : accept_kl > eps} and 0 elsewhere, with e_kl =
// exp(alpha cos_kl - max_{j in S_k} alpha cos_kj); e_kl / sum_{j in S_k}
// e_kj when the conf_l e_kl there sum to 0. At alpha = 0 it is
// acceptWeights, bit for bit.
func apvAcceptWeights(accept, cos [][]float64, conf []float64, eps, alpha float64) [][]float64 {
	k := len(cos)
	w := make([][]float64, k)
	for i := range w {
		w[i] = make([]float64, k)
		in := func(l int) bool { return l == i || accept[i][l] > eps }
		hi := math.Inf(-1)
		for l := range k {
			if in(l) {
				hi = math.Max(hi, alpha*cos[i][l])
			}
		}
		e := make([]float64, k)
		var sum, plain float64
		for l := range k {
			if in(l) {
				e[l] = math.Exp(alpha*cos[i][l] - hi)
				w[i][l] = conf[l] * e[l]
				sum += w[i][l]
				plain += e[l]
			}
		}
		for l := range k {
			switch {
			case !in(l):
			case sum > 0:
				w[i][l] /= sum
			default:
				w[i][l] = e[l] / plain
			}
		}
	}
	return w
}
