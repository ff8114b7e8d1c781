package methods

import (
	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// FedGNN is FedGNN-NC (docs/method.md#fedgnn): graph expansion through
// the server, LDP, FedAvg.
const FedGNN sim.Algorithm = "fedgnn"

// FedGNN's local differential privacy (docs/method.md#fedgnn;
// FedPerGNN's const.py: CLIP 0.1, EPS 1).
const (
	ldpClip = 0.1 // delta: L2 bound of each parameter tensor's gradient
	ldpEps  = 1.0 // privacy budget epsilon of the Laplace noise
)

func fedGNNMethods() []sim.Method {
	return []sim.Method{
		{Name: FedGNN, Display: "FedGNN",
			Describe: "FedGNN-NC: plain GCN on the graph expanded with cut-edge neighbours' embeddings relayed by the server; LDP; FedAvg by training-set size",
			Settings: []sim.Setting{{Key: "fedgnn_expansion", Type: sim.OnOff, Default: "on",
				Doc: "fedgnn: on: graph expansion of layer 2 with cut-edge neighbours' embeddings through the server (none with one layer); off: FedAvg with LDP only"}},
			New: func(c *sim.Config) (sim.Strategy, error) { return newFedGNN(c), nil }},
	}
}

// fedGNN is FedGNN (Wu et al., "A federated graph neural network
// framework for privacy-preserving personalization", Nature
// Communications 2022) carried over to subgraph node classification
// (FedGNN-NC, docs/method.md#fedgnn; every step below is our inference, no
// public implementation exists for this task).
//
// Expansion. Before each round every client computes its first-layer
// embeddings H1 = relu(A_hat X W1) with the global parameters, in
// evaluation mode, and sends the server, acting as the third party, the
// triples (HMAC(id_v), h1_v, deg_v) of its boundary nodes v (those with a
// cut edge; deg_v counts local and cut edges) and the HMAC-signed ids of
// its cut-edge neighbours. The HMAC key is the clients' own (drawn from
// the run seed), so the server matches tags without learning ids. It
// returns to each client the embeddings and degrees of the neighbours it
// asked for that some client sent; node u of the client keeps the first
// first 100 of them, R(u) (the engine's cap). The client then trains on its graph expanded
// at the second layer (gnn.Expansion):
//
//	h2_u = sum_{v in N(u) ∪ {u}} h1_v W2 / sqrt(d_u d_v) + sum_{r in R(u)} h1_r W2 / sqrt(d_u d_r),
//
// d_u = 1 + |N(u)| + |R(u)|, d_r = 1 + deg_r, the remote h1_r constants;
// it evaluates on the same expanded graph.
//
// LDP. Before each Adam step every parameter tensor's gradient g is
// clipped to ||g||_2 <= delta = 0.1; after the step every parameter
// receives Laplace(0, lambda) noise, lambda = lr 2 delta / (sqrt(|Tr_k|)
// epsilon), epsilon = 1, drawn from the client's own random stream.
//
// Server. FedAvg weighted by training-set size: every client starts the
// next round from sum_l |Tr_l| theta_l / sum_l |Tr_l|.
//
// Without expansion (fedgnn_expansion off, or a one-layer model, which has
// no second layer to expand) FedGNN is FedAvg with LDP.
// FedGNN's pseudo-interacted items have no counterpart in node
// classification and are left out.
type fedGNN struct {
	expansion bool
	lr        float64
}

// newFedGNN returns FedGNN's strategy. The expansion feeds the second
// layer: a one-layer model has none to expand and runs without it.
func newFedGNN(c *sim.Config) fedGNN {
	return fedGNN{expansion: c.Options.On("fedgnn_expansion") && c.NumLayers() >= 2, lr: c.LR}
}

func (fedGNN) Name() sim.Algorithm      { return FedGNN }
func (fedGNN) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = false, false }
func (fedGNN) Shares(p *gnn.Param) bool { return !p.Personal }

// ClientSide asks for LDP and, when on, the expansion.
func (f fedGNN) ClientSide() sim.ClientSide {
	return sim.ClientSide{LDP: &sim.LDP{Clip: ldpClip, Eps: ldpEps, LR: f.lr}, Expansion: f.expansion}
}

// Mix returns FedAvg's weights by training-set size, W_kl = |Tr_l| / sum_j |Tr_j|.
func (fedGNN) Mix(in *sim.RoundInput) sim.Mixing {
	var total float64
	for _, u := range in.Updates {
		total += float64(u.Train)
	}
	w := make([][]float64, len(in.Updates))
	for k := range w {
		w[k] = make([]float64, len(in.Updates))
		for l, u := range in.Updates {
			w[k][l] = float64(u.Train) / total
		}
	}
	return sim.Mixing{W: w}
}

// Relay is the server's part of the expansion: it matches the tags the
// clients ask for with those others sent (see fedGNN) and returns, per
// client (nil for a client that sent nothing), what it found.
func (fedGNN) Relay(bs []*sim.Boundary) []*sim.Remote {
	type node struct {
		emb []float64
		deg float64
	}
	index := map[sim.NodeTag]node{}
	for _, b := range bs {
		if b == nil {
			continue
		}
		for i, t := range b.Tags {
			index[t] = node{b.Embeddings[i], b.Degrees[i]}
		}
	}
	out := make([]*sim.Remote, len(bs))
	for k, b := range bs {
		if b == nil {
			continue
		}
		r := &sim.Remote{}
		for _, t := range b.Wants {
			if n, ok := index[t]; ok {
				r.Tags = append(r.Tags, t)
				r.Embeddings = append(r.Embeddings, n.emb)
				r.Degrees = append(r.Degrees, n.deg)
			}
		}
		out[k] = r
	}
	return out
}
