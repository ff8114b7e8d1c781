package sim

import (
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
