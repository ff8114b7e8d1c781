package methods

import (
	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// FedPubAPV is FED-PUB+APV, the transfer table's APV variant of FED-PUB.
const FedPubAPV sim.Algorithm = "fedpub_apv"

func fedPubAPVMethods() []sim.Method {
	return []sim.Method{
		{
			Name: FedPubAPV, Display: "FED-PUB+APV", Uses: []string{"alpha", "partners"}, Float32: true,
			Describe: "FED-PUB+APV: FED-PUB's MaskedGCN + APV head; server mixes by softmax(alpha * APV cosine), no proxy graph (docs/method.md#the-apv-variants; FedAux's algorithm)",
			New:      func(*sim.Config) (sim.Strategy, error) { return fedPubAPV{}, nil },
		},
	}
}

// fedPubAPV is FED-PUB+APV: FED-PUB's client (the MaskedGCN, masks
// personal and pruned below 1e-3 at evaluation) with the APV head; the
// server drops the proxy graph and the functional embeddings and mixes
// every non-mask parameter, the APV included, with
//
//	w_kl = exp(alpha cos(a_k, a_l)) / sum_r exp(alpha cos(a_k, a_r)),
//
// self included (alpha per client under auto alpha, as FedAux's).
//
// FED-PUB's scripts give the client an L1 of 1e-3 on the masks and a
// loc_l2 of 1e-3 (--l1 and --loc-l2). The reference client
// (JinheonBaek/FED-PUB, models/fedpub/client.py) adds both to its loss
// through model.state_dict(), whose tensors are detached, so they change
// the logged loss and no gradient; the 1e-3 that acts is l1 as the
// pruning threshold of the masks, which the MaskedGCN here has. fedpub
// leaves both terms out (fedpub.go), and so does this: the
// client is fedpub's, with the head.
//
// The result is FedAux's algorithm, whose client is FED-PUB's MaskedGCN
// with the APV head and whose server is FED-PUB's with the APV in place
// of the proxy graph (docs/method.md#the-client-model and
// docs/method.md#server-aggregation): a fedpub_apv run equals a fedaux
// run at -sim apv -apv_mix on, bit for bit (TestFedPubAPVIsFedAux). It is kept as a name of its own for the
// transfer table.
type fedPubAPV struct{}

func (fedPubAPV) Name() sim.Algorithm               { return FedPubAPV }
func (fedPubAPV) Model(cfg *gnn.Config)             { cfg.Masked, cfg.Kernel = true, true }
func (fedPubAPV) Uses() []sim.Source                { return []sim.Source{sim.SourceAPV} }
func (fedPubAPV) Shares(p *gnn.Param) bool          { return sim.SharesAPV(p, true) }
func (fedPubAPV) Mix(in *sim.RoundInput) sim.Mixing { return sim.SimilarityMixing(in, sim.SourceAPV) }
