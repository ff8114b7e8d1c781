package sim

import (
	"math"

	"github.com/fedaux/fedaux/gnn"
)

// The APV transferability variants (docs/method.md#the-apv-variants, "Transferability of
// APV"): FED-PUB, FedGTA and FedSage+, each with FedAux's APV head on its
// client model (a in R^d, sigma the run's, the kernel aggregate z of the
// embeddings h, the classifier on [h || z]) and the APV cosine in its
// server's weights, alpha the run's (default 10). Everything else is the
// plain method's, so that a table of "method vs method+APV" measures the
// APV: the same backbone, optimiser, schedule, presets and seeds, and at
// equal seeds the same initial backbone weights (the head's extra weights
// and the APV are drawn after them, or from a stream of their own).

// GTAAccept says how FedGTA+APV's server builds client k's accept set S_k.
type GTAAccept string

// The accept sets.
const (
	// AcceptMoments is FedGTA's: S_k = {l : cos(m_k, m_l) > eps}, m the
	// moments of the label-propagated predictions.
	AcceptMoments GTAAccept = "moments"
	// AcceptAPV (ablation) is S_k = {l : cos(a_k, a_l) > eps}.
	AcceptAPV GTAAccept = "apv"
)

// GTAAccepts lists the accept sets.
func GTAAccepts() []GTAAccept { return []GTAAccept{AcceptMoments, AcceptAPV} }

// ParseGTAAccept returns the accept set named s.
func ParseGTAAccept(s string) (GTAAccept, error) {
	return parseName("gta_accept", s, GTAAccepts(), joinOr(GTAAccepts()))
}

func (a GTAAccept) String() string { return string(a) }

// MarshalText implements encoding.TextMarshaler.
func (a GTAAccept) MarshalText() ([]byte, error) { return []byte(a), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *GTAAccept) UnmarshalText(b []byte) error { return unmarshalName(a, b, ParseGTAAccept) }

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
	accept GTAAccept
}

func newFedGTAAPV(c *Config) Strategy {
	return fedGTAAPV{fedGTA: newFedGTA(c).(fedGTA), accept: GTAAccept(c.Options.String("gta_accept"))}
}

func (fedGTAAPV) Name() Algorithm          { return FedGTAAPV }
func (fedGTAAPV) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = false, true }
func (fedGTAAPV) Shares(p *gnn.Param) bool { return !p.Personal }
func (fedGTAAPV) Uses() []Source           { return []Source{SourceAPV} }

// Mix returns the personalised weights over the accept sets; the
// similarity it reports is the APV's (the moments' is a view beside it).
func (f fedGTAAPV) Mix(in *RoundInput) Mixing {
	sim := in.Views[SourceAPV]
	accept := in.Views[SourceMoments]
	if f.accept == AcceptAPV {
		accept = sim
	}
	conf := make([]float64, len(in.Updates))
	for l, u := range in.Updates {
		conf[l] = u.Weight
	}
	return Mixing{W: apvAcceptWeights(accept, sim, conf, f.eps, in.Knobs.Alpha), Similarity: sim, Source: SourceAPV}
}

// apvAcceptWeights returns W_kl = conf_l e_kl / sum_{j in S_k} conf_j e_kj
// for l in S_k = {k} ∪ {l : accept_kl > eps} and 0 elsewhere, with e_kl =
// exp(alpha sim_kl - max_{j in S_k} alpha sim_kj); e_kl / sum_{j in S_k}
// e_kj when the conf_l e_kl there sum to 0. At alpha = 0 it is
// acceptWeights, bit for bit.
func apvAcceptWeights(accept, sim [][]float64, conf []float64, eps, alpha float64) [][]float64 {
	k := len(sim)
	w := make([][]float64, k)
	for i := range w {
		w[i] = make([]float64, k)
		in := func(l int) bool { return l == i || accept[i][l] > eps }
		hi := math.Inf(-1)
		for l := range k {
			if in(l) {
				hi = math.Max(hi, alpha*sim[i][l])
			}
		}
		e := make([]float64, k)
		var sum, plain float64
		for l := range k {
			if in(l) {
				e[l] = math.Exp(alpha*sim[i][l] - hi)
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

// fedSageAPV is FedSage+APV: FedSage+ (see fedSagePlus) whose GraphSAGE
// classifier gains the APV head (gnn.SAGEAPVNet: the second layer reads
// [h || z], h the first layer's output), and whose FedAvg is replaced by
// FedAux's personalised aggregation: from the last generator round on,
// client k receives theta_k = sum_l w_kl theta_l with w_kl =
// softmax_l(alpha cos(a_k, a_l)), over the whole classifier, the APV
// included (Eq. 3, 4, 6).
//
// NeighGen, its losses, the hidden nodes, the cross-client relay, the
// mending and the schedule are FedSage+'s. The classifier is one network
// through both phases, as FedSage+'s (and OpenFGL's) is: it trains
// locally as the "local classifier" of the generator phase, so it has the
// head there too, and its L^c reaches fGen through it. At equal seeds it
// starts from FedSage+'s first layer and h rows, and NeighGen from
// FedSage+'s initialisation: the head's z rows and the APV come from a
// stream of their own ("init-apv").
type fedSageAPV struct{ *fedSagePlus }

func newFedSageAPV(c *Config) Strategy {
	return fedSageAPV{&fedSagePlus{genRounds: c.Options.Int("gen_rounds")}}
}

func (fedSageAPV) Name() Algorithm { return FedSageAPV }

// Model marks the clients as having an APV (their own models are built by
// the runners).
func (fedSageAPV) Model(cfg *gnn.Config) { cfg.Kernel = true }
func (fedSageAPV) Uses() []Source        { return []Source{SourceAPV} }

// PhaseAPVMix names FedSage+APV's rounds after the generator phase
// (RoundReport.Phase), where FedSage+ has PhaseFedAvg.
const PhaseAPVMix = "apv-mix"

func (f fedSageAPV) Phase(round int) string {
	if round <= f.genRounds {
		return PhaseNeighGen
	}
	return PhaseAPVMix
}

// Mix returns no mixing before round gen_rounds and FedAux's weights
// (with auto alpha when on) from it on.
func (f fedSageAPV) Mix(in *RoundInput) Mixing {
	if in.Round < f.genRounds {
		return Mixing{}
	}
	return SimilarityMixing(in, SourceAPV)
}
