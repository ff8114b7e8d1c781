package methods

import (
	"fmt"
	"math/rand/v2"
	"runtime"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
	"gonum.org/v1/gonum/mat"
)

// sageClassifier is a FedSage+ client's classifier: FedSage+'s GraphSAGE
// (plainSAGE) or FedSage+APV's, with the APV head (gnn.SAGEAPVNet).
type sageClassifier interface {
	Forward(adj *gnn.MeanAdj, x gnn.Features, extra *mat.Dense, train bool, rng *rand.Rand) (*mat.Dense, error)
	Backward(dOut *mat.Dense, needExtra bool) *mat.Dense
	Params() []*gnn.Param
	Hidden() *mat.Dense
}

// plainSAGE is FedSage+'s classifier, whose forward pass cannot fail.
type plainSAGE struct{ *gnn.SAGENet }

func (p plainSAGE) Forward(adj *gnn.MeanAdj, x gnn.Features, extra *mat.Dense, train bool, rng *rand.Rand) (*mat.Dense, error) {
	return p.SAGENet.Forward(adj, x, extra, train, rng), nil
}

// newSageHead widens net, the classifier a FedSage+ client of n nodes
// draws, into FedSage+APV's: the head's own weights and the APV come from
// the "init-apv" stream, shared by all clients (see fedSageAPV). Its
// kernel transform is chosen as the engine chooses a FedAux client's,
// from the client's size and the cores the worker pool leaves idle (the
// transform's result does not depend on them).
func newSageHead(net *gnn.SAGENet, cfg *sim.Config, n, clients int) *gnn.SAGEAPVNet {
	inner := max(1, runtime.GOMAXPROCS(0)/min(cfg.NumWorkers(), clients))
	return gnn.NewSAGEAPVNet(net, cfg.Score, cfg.Sigma, sim.ChooseGauss(cfg.Kernel, n, inner), sim.Stream(cfg.Seed, "init-apv", 0))
}

// headSignatures adds to up, after the round's evaluation forward pass,
// the signatures msg asks for that a FedSage+APV client can give (the
// APV, its change over the round, and pc1 of the embeddings of every row
// the kernel reads, generated ones included) and its alignment.
func (c *sageClient) headSignatures(msg *sim.Message, up *sim.Update) {
	sim.HeadSignatures(msg, up, c.head.Score.APV.Value, c.apvStart, c.apvInit, c.head.Hidden())
}

// LateSignatures computes, between rounds, what headSignatures and the
// mean embedding give after round round's evaluation (sim.LateSigner): that forward pass is
// run again on the graph it read (the full graph up to the generator
// phase's last round, whose evaluation precedes the mending; the mended
// graph after it). It draws nothing and reads only the parameters,
// unchanged since.
func (c *sageClient) LateSignatures(round int, sigs []sim.Source, embedding bool) (*sim.Update, error) {
	up := &sim.Update{ClientMetrics: sim.ClientMetrics{ID: c.ID}}
	if c.head == nil && !embedding {
		return up, nil // FedSage+'s clients give no signature
	}
	g := c.full
	if c.mend != nil && round > c.genRounds {
		g = c.mend.graph
	}
	if _, err := c.cls.Forward(g.adj, g.x, g.extra, false, nil); err != nil {
		return nil, fmt.Errorf("client %d: %w", c.ID, err)
	}
	if embedding {
		up.Embedding = sim.MeanRows(sageRowsOf(c.cls.Hidden(), len(c.labels)))
	}
	if c.head != nil {
		c.headSignatures(&sim.Message{Signatures: sigs}, up)
	}
	return up, nil
}

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

func newFedSageAPV(c *sim.Config) sim.Strategy {
	return fedSageAPV{&fedSagePlus{genRounds: c.Options.Int("gen_rounds")}}
}

func (fedSageAPV) Name() sim.Algorithm { return FedSageAPV }

// Model marks the clients as having an APV (their own models are built by
// the runners).
func (fedSageAPV) Model(cfg *gnn.Config) { cfg.Kernel = true }
func (fedSageAPV) Uses() []sim.Source    { return []sim.Source{sim.SourceAPV} }

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
func (f fedSageAPV) Mix(in *sim.RoundInput) sim.Mixing {
	if in.Round < f.genRounds {
		return sim.Mixing{}
	}
	return sim.SimilarityMixing(in, sim.SourceAPV)
}
