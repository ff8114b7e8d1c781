package sim

import "github.com/fedaux/fedaux/gnn"

// defaultTau is FED-PUB's server temperature: its Cora scripts
// (JinheonBaek/FED-PUB, scripts/disjoint.sh) pass --norm-scale 3.
const defaultTau = 3

// fedPub is FED-PUB (Baek et al., "Personalized Subgraph Federated
// Learning", ICML 2023) as docs/method.md#fed-pub describes it: clients train a
// MaskedGCN without kernel; each embeds the server's random proxy graph
// with its trained model (conv2 before ReLU, evaluation mode) and
// mean-pools it into a functional embedding (see proxyGraph and
// signatures); the server mixes every non-mask parameter with
//
//	w_kl = exp(tau cos(f_k, f_l)) / sum_r exp(tau cos(f_k, f_r)),
//
// self included (models/fedpub/server.py), and masks stay local. The
// reference client also adds an L1 penalty on the masks and a proximal
// term (--l1, --loc-l2); the paper leaves both out, and so does this.
type fedPub struct{ tau float64 }

func (fedPub) Name() Algorithm          { return "fedpub" }
func (fedPub) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = true, false }
func (fedPub) Shares(p *gnn.Param) bool { return !p.Personal }
func (fedPub) Uses() []Source           { return []Source{SourceFunctional} }
func (f fedPub) Mix(in *RoundInput) Mixing {
	sim := in.Views[SourceFunctional]
	return Mixing{W: softmaxRows(sim, f.tau), Similarity: sim, Source: SourceFunctional}
}
