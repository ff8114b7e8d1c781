package methods

import (
	"strconv"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// FedPub is FED-PUB (Baek et al., ICML 2023).
const FedPub sim.Algorithm = "fedpub"

func fedPubMethods() []sim.Method {
	return []sim.Method{
		{Name: FedPub, Display: "FED-PUB", Float32: true,
			Describe: "FED-PUB: MaskedGCN; server mixes by softmax(tau * cosine of functional embeddings of a proxy graph) (-tau)",
			Settings: []sim.Setting{{Key: "tau", Type: sim.Float, Default: strconv.FormatFloat(defaultTau, 'g', -1, 64), Check: sim.NonNegative, Live: true,
				Doc: "fedpub: server temperature tau of exp(tau * cosine) (FED-PUB's Cora scripts: 3)"}},
			New: func(c *sim.Config) (sim.Strategy, error) { return fedPub{tau: c.Options.Float("tau")}, nil }},
	}
}

// defaultTau is FED-PUB's server temperature: its Cora scripts
// (JinheonBaek/FED-PUB, scripts/disjoint.sh) pass --norm-scale 3.
const defaultTau = 3

// fedPub is FED-PUB (Baek et al., "Personalized Subgraph Federated
// Learning", ICML 2023) as docs/method.md#fed-pub describes it: clients train a
// MaskedGCN without kernel; each embeds the server's random proxy graph
// with its trained model (conv2 before ReLU, evaluation mode) and
// mean-pools it into a functional embedding (see sim.ProxyGraph and
// sim.FunctionalSignature); the server mixes every non-mask parameter with
//
//	w_kl = exp(tau cos(f_k, f_l)) / sum_r exp(tau cos(f_k, f_r)),
//
// self included (models/fedpub/server.py), and masks stay local. The
// reference client also adds an L1 penalty on the masks and a proximal
// term (--l1, --loc-l2); the paper leaves both out, and so does this.
type fedPub struct{ tau float64 }

func (fedPub) Name() sim.Algorithm      { return FedPub }
func (fedPub) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = true, false }
func (fedPub) Shares(p *gnn.Param) bool { return !p.Personal }
func (fedPub) Uses() []sim.Source       { return []sim.Source{sim.SourceFunctional} }
func (f fedPub) Mix(in *sim.RoundInput) sim.Mixing {
	s := in.Views[sim.SourceFunctional]
	return sim.Mixing{W: sim.SoftmaxRows(s, f.tau), Similarity: s, Source: sim.SourceFunctional}
}

// FedPubStep is FED-PUB's server step with temperature tau. With forwards
// (the paper's accounting) it runs the K evaluation-mode forwards of the
// proxy graph and mean-pools them (sim.FunctionalSignature) before the cosine
// and the row softmax; without, the embeddings are computed once here, as
// the clients would upload them, and Run times the cosine and softmax.
func FedPubStep(models []*gnn.Model, proxy *gnn.Input, tau float64, forwards bool) sim.ServerStep {
	st := fedPub{tau: tau}
	embed := func() [][]float64 {
		sigs := make([][]float64, len(models))
		for i, m := range models {
			sigs[i] = sim.FunctionalSignature(m, *proxy)
		}
		return sigs
	}
	if !forwards {
		sigs := embed()
		return sim.ServerStep{Method: "fedpub-client", Input: floatBytes(sigs), Run: func() sim.Mixing {
			return sim.MixSignatures(st.Mix, sim.SourceFunctional, sigs, sim.Knobs{}, 1)
		}}
	}
	input := proxyBytes(proxy)
	for _, m := range models {
		for _, p := range m.Params() {
			input += int64(len(p.Value)) * 8
		}
	}
	return sim.ServerStep{Method: "fedpub-server", Input: input, Run: func() sim.Mixing {
		return sim.MixSignatures(st.Mix, sim.SourceFunctional, embed(), sim.Knobs{}, 1)
	}}
}

// proxyBytes is the footprint of a proxy graph: its dense features and
// its normalised adjacency in CSR form.
func proxyBytes(in *gnn.Input) int64 {
	a := in.Prop.Matrix()
	n := int64(len(a.Indptr)+len(a.Indices)+len(a.Values)) * 8
	if in.X.Dense != nil {
		r, c := in.X.Dense.Dims()
		n += int64(r*c) * 8
	}
	return n
}

// floatBytes is the footprint of vectors of float64.
func floatBytes(vs [][]float64) int64 {
	var n int64
	for _, v := range vs {
		n += int64(len(v)) * 8
	}
	return n
}
