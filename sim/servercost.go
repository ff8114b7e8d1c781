package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/fedaux/fedaux/gnn"
)

// A ServerStep is one strategy's server similarity step on fixed uploads,
// as the paper's server-cost analysis (docs/method.md#server-cost) times it: from all
// uploads present to the K x K mixing weights or the clusters, the
// mixing itself excluded. Each call of Run redoes the whole step with the
// same code the engine runs in a round (MixSignatures), and returns the
// same Mixing.
type ServerStep struct {
	// Method names the step: "fedaux" (APVStep), or a method's own
	// steps (package methods: "fedpub-server", the K proxy forwards
	// charged to the server; "fedpub-client", the forwards left on the
	// clients, as FED-PUB's code runs them; "gcfl").
	Method string
	// Input is the footprint of the step's input in bytes: the K
	// signatures (APVs, functional embeddings or dW), or what else the
	// step reads (FED-PUB's models and proxy graph).
	Input int64
	// Run runs the step once.
	Run func() Mixing
}

// serverStep is the server's part of a round between the uploads and the
// mixing: the similarity view of every signature the updates carry, then
// the strategy's weights. Engine.Step and the ServerStep functions run it.
func serverStep(mix func(*RoundInput) Mixing, ups []*Update, knobs Knobs, round int) (map[Source][][]float64, Mixing) {
	vs := views(ups)
	return vs, mix(&RoundInput{Updates: ups, Views: vs, Knobs: knobs, Round: round})
}

// MixSignatures runs the server's part of a round as the engine does,
// on the uploads of one signature s (sigs[k] is client k's): the
// similarity view of s (RoundInput.Views), then mix, a Strategy's Mix, at
// the given knobs and round. The server-cost steps time it.
func MixSignatures(mix func(*RoundInput) Mixing, s Source, sigs [][]float64, knobs Knobs, round int) Mixing {
	ups := make([]*Update, len(sigs))
	for i, v := range sigs {
		ups[i] = &Update{ClientMetrics: ClientMetrics{ID: i}, Signatures: map[Source][]float64{s: v}}
	}
	_, m := serverStep(mix, ups, knobs, round)
	return m
}

func floatBytes(vs [][]float64) int64 {
	var n int64
	for _, v := range vs {
		n += int64(len(v)) * 8
	}
	return n
}

// APVStep is FedAux's server step (Eq. 3, 4): the cosine of the K APVs
// and the row softmax with temperature alpha.
func APVStep(apvs [][]float64, alpha float64) ServerStep {
	mix := func(in *RoundInput) Mixing { return SimilarityMixing(in, SourceAPV) }
	return ServerStep{Method: "fedaux", Input: floatBytes(apvs), Run: func() Mixing {
		return MixSignatures(mix, SourceAPV, apvs, Knobs{Alpha: alpha}, 1)
	}}
}

// ProxyGraph builds FED-PUB's proxy graph for a run of the given seed and
// feature dimension, as the engine does on first use: 5 disconnected
// Erdos-Renyi blocks of 100 nodes, p = 0.1, N(0, 1) features.
func ProxyGraph(seed uint64, features int) (*gnn.Input, error) {
	return proxyGraph(Stream(seed, "proxy", 0), 5, 100, 0.1, features)
}

// FunctionalSignature is the SourceFunctional signature of model m
// (FED-PUB's functional embedding): its last GCN layer's pre-ReLU output
// on the proxy graph (ProxyGraph) in evaluation mode, mean-pooled.
func FunctionalSignature(m *gnn.Model, proxy gnn.Input) []float64 {
	return MeanRows(m.EmbedPreReLU(proxy))
}

// clients returns the engine's in-process clients, in client order.
func (e *Engine) clients() ([]*Client, error) {
	out := make([]*Client, len(e.runners))
	for i, r := range e.runners {
		c, ok := r.(*Client)
		if !ok {
			return nil, fmt.Errorf("sim: client %d runs elsewhere", e.data.Clients[i].ID)
		}
		out[i] = c
	}
	return out, nil
}

// Uploads returns every client's upload of signature s in the last round
// (SourceAPV, or SourceUpdate for GCFL's dW), recomputed from its model as
// the round left it: bit for bit what the round's server received. Call
// it between rounds, with in-process clients and none absent.
func (e *Engine) Uploads(s Source) ([][]float64, error) {
	cs, err := e.clients()
	if err != nil {
		return nil, err
	}
	if len(e.reports) == 0 {
		return nil, errors.New("sim: no round has run")
	}
	out := make([][]float64, len(cs))
	for i, c := range cs {
		switch {
		case s == SourceUpdate && c.side.Update:
			out[i] = difference(flattenInto(nil, c.shared), c.start)
		case s == SourceAPV && c.model.Param("apv") != nil:
			out[i] = c.signatures([]Source{SourceAPV})[SourceAPV]
		default:
			return nil, fmt.Errorf("sim: client %d has no %s upload", c.ID, s)
		}
	}
	return out, nil
}

// Models returns the in-process clients' models as the last round left
// them, and FED-PUB's proxy graph (built if no round has used it). The
// models are the clients' own: use them between rounds only.
func (e *Engine) Models() ([]*gnn.Model, *gnn.Input, error) {
	cs, err := e.clients()
	if err != nil {
		return nil, nil, err
	}
	if err := e.ensureProxy([]Source{SourceFunctional}); err != nil {
		return nil, nil, err
	}
	ms := make([]*gnn.Model, len(cs))
	for i, c := range cs {
		ms[i] = c.model
	}
	return ms, e.proxy, nil
}

// ShapeUploads returns stand-in uploads of a dataset's shapes (features,
// classes) for k clients with hidden width hidden: k APVs, k GCFL updates
// of a plain GCN's shared parameters and k FED-PUB models, all drawn from
// seed. Server cost depends only on shapes, so these time the steps of a
// dataset too large to train (docs/method.md#server-cost).
func ShapeUploads(features, classes, hidden, k int, seed uint64) (apvs, dw [][]float64, models []*gnn.Model, err error) {
	cfg := DefaultConfig()
	cfg.Hidden = hidden
	base := gnn.Config{InFeatures: features, Hidden: hidden, Layers: cfg.Layers, Classes: classes, Score: cfg.Score, Sigma: cfg.Sigma, Dropout: cfg.Dropout}
	rng := Stream(seed, "shape", 0)
	for i := 0; i < k; i++ {
		aux := base
		aux.Masked, aux.Kernel = true, true // FedAux's client model, with the APV
		m, err := gnn.NewModel(aux, Stream(seed, "shape-aux", i))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("sim: %w", err)
		}
		apvs = append(apvs, normal(rng, len(m.Param("apv").Value)))
		pub := base
		pub.Masked = true // FED-PUB's MaskedGCN
		if m, err = gnn.NewModel(pub, Stream(seed, "shape-pub", i)); err != nil {
			return nil, nil, nil, fmt.Errorf("sim: %w", err)
		}
		models = append(models, m)
		plain := base // GCFL's plain GCN, all of whose parameters travel
		if m, err = gnn.NewModel(plain, Stream(seed, "shape-gcfl", i)); err != nil {
			return nil, nil, nil, fmt.Errorf("sim: %w", err)
		}
		var n int
		for _, p := range m.Params() {
			if !p.Personal {
				n += len(p.Value)
			}
		}
		dw = append(dw, normal(rng, n))
	}
	return apvs, dw, models, nil
}

func normal(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}
