package methods

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/sim"
)

// FedSage+ and its APV variant (docs/method.md#fedsage,
// docs/method.md#the-apv-variants).
const (
	// FedSagePlus is FedSage+: NeighGen rounds, then FedAvg of a GraphSAGE
	// classifier on the mended graphs.
	FedSagePlus sim.Algorithm = "fedsage_plus"
	// FedSageAPV is FedSage+APV: NeighGen unchanged; GraphSAGE + APV head,
	// FedAux's mixing instead of FedAvg.
	FedSageAPV sim.Algorithm = "fedsage_apv"
)

func fedSageMethods() []sim.Method {
	apvKnobs := []string{"alpha", "partners"}
	return []sim.Method{
		{Name: FedSagePlus, Display: "FedSage+", Settings: sageSettings, Check: checkSage,
			Describe: "FedSage+: NeighGen rounds (-gen_rounds) train missing-neighbour generators across clients, then FedAvg of GraphSAGE on the mended graphs",
			New:      func(c *sim.Config) (sim.Strategy, error) { return newFedSagePlus(c), nil }},
		{Name: FedSageAPV, Display: "FedSage+APV", Uses: apvKnobs, Settings: sageSettings, Check: checkSage,
			Describe: "FedSage+APV: FedSage+'s NeighGen rounds, then GraphSAGE + APV head mixed by softmax(alpha * APV cosine) instead of FedAvg",
			New:      func(c *sim.Config) (sim.Strategy, error) { return newFedSageAPV(c), nil }},
	}
}

// sageSettings are FedSage+'s and FedSage+APV's settings.
var sageSettings = []sim.Setting{
	{Key: "gen_rounds", Type: sim.Int, Default: strconv.Itoa(defaultGenRounds), Check: sim.AtLeast(0),
		Doc: "fedsage_plus, fedsage_apv: rounds of the generator phase (NeighGen and the local classifier), then FedAvg (fedsage_apv: APV mixing) on the mended graphs"},
	{Key: "gen_steps", Type: sim.Int, Default: "1",
		Doc: "fedsage_plus, fedsage_apv: Adam steps per generator round"},
}

// checkSage checks FedSage+'s and FedSage+APV's settings together.
func checkSage(c *sim.Config) error {
	if c.NumLayers() != 2 {
		return &sim.SettingError{Key: "layers", Value: strconv.Itoa(c.Layers), Want: "2 (" + string(c.Algo) + "'s GraphSAGE networks have two layers)"}
	}
	if n := c.Options.Int("gen_steps"); n < 1 {
		return &sim.SettingError{Key: "gen_steps", Value: strconv.Itoa(n), Want: ">= 1"}
	}
	return nil
}

// defaultGenRounds is FedSage+'s generator phase in OpenFGL
// (fedsage_plus_config.py, gen_rounds = 10), which docs/method.md#fedsage adopts.
const defaultGenRounds = 10

// The phases of FedSage+, as RoundReport.Phase names them.
const (
	PhaseNeighGen = "neighgen" // NeighGen and the local classifier train; no mixing
	PhaseFedAvg   = "fedavg"   // FedAvg of the classifier on the mended graphs
)

// fedSagePlus is FedSage+ (Zhang et al., "Subgraph Federated Learning
// with Missing Neighbor Generation", NeurIPS 2021) as docs/method.md#fedsage
// decides it for fedaux, following OpenFGL within the protocol's budget:
//
//   - Rounds 1..gen_rounds ("neighgen"): every client hides half of its
//     validation nodes, and trains its missing-neighbour generator
//     NeighGen and a local GraphSAGE classifier on the impaired graph,
//     GenSteps Adam steps a round, on
//
//     L_k = (a L^d + b L^f + c L^c + b sum_{j != k} L^f_{k<-j}) / M,
//     a = b = c = 1, M the number of clients,
//
//     the cross-client terms reaching only fGen_k, through the server
//     (see sageRelay). The server mixes nothing; each client's local
//     classifier is evaluated on its un-mended full graph.
//
//   - After round gen_rounds each client mends its full local graph with
//     its generator's predictions on the impaired graph, frees the
//     generator, and the server averages the classifiers.
//
//   - Rounds gen_rounds+1..T ("fedavg"): FedAvg of the classifier,
//     weighted by training-set size, Epochs steps a round on the mended
//     graphs, evaluated there.
//
// Its clients are sageClients, not the shared Client; the strategy
// builds them (RunnerBuilder).
type fedSagePlus struct {
	genRounds int
	// weights holds |Tr_k| of every client, set by BuildRunners.
	weights []float64
	// relay is the generator phase's server, around the clients
	// BuildRunners built.
	relay *sageRelay
}

func newFedSagePlus(c *sim.Config) sim.Strategy {
	return &fedSagePlus{genRounds: c.Options.Int("gen_rounds")}
}

func (*fedSagePlus) Name() sim.Algorithm { return FedSagePlus }

// Model leaves cfg as it is: the clients build their own models.
func (*fedSagePlus) Model(*gnn.Config) {}

// Shares reports true: sageClients send their whole classifier.
func (*fedSagePlus) Shares(*gnn.Param) bool { return true }

// Mix returns no mixing before round GenRounds and, from it on, FedAvg
// weights w_kl = |Tr_l| / sum_r |Tr_r| over the clients present.
func (f *fedSagePlus) Mix(in *sim.RoundInput) sim.Mixing {
	if in.Round < f.genRounds {
		return sim.Mixing{}
	}
	row := make([]float64, len(in.Updates))
	var sum float64
	for i, u := range in.Updates {
		row[i] = f.weights[u.ID]
		sum += row[i]
	}
	for i := range row {
		row[i] /= sum
	}
	w := make([][]float64, len(row))
	for i := range w {
		w[i] = row
	}
	return sim.Mixing{W: w}
}

// phase names round's phase.
func (f *fedSagePlus) Phase(round int) string {
	if round <= f.genRounds {
		return PhaseNeighGen
	}
	return PhaseFedAvg
}

// MarshalState returns nothing: the strategy's fields are settings and
// facts of the data, which New rebuilds.
func (*fedSagePlus) MarshalState() ([]byte, error) { return nil, nil }

// UnmarshalState accepts the empty state.
func (*fedSagePlus) UnmarshalState([]byte) error { return nil }

// BuildRunners builds one sageClient per subgraph around a shared relay.
func (f *fedSagePlus) BuildRunners(cfg *sim.Config, data *sim.Data) ([]sim.ClientRunner, error) {
	relay := &sageRelay{seed: cfg.Seed, genRounds: cfg.Options.Int("gen_rounds")}
	f.relay = relay
	f.weights = make([]float64, len(data.Clients))
	runners := make([]sim.ClientRunner, len(data.Clients))
	for i, c := range data.Clients {
		if c.ID != i {
			return nil, fmt.Errorf("fedsage_plus: client %d at position %d; want ids 0..K-1 in order", c.ID, i)
		}
		sc, err := newSageClient(c, data, cfg, relay)
		if err != nil {
			return nil, err
		}
		relay.clients = append(relay.clients, sc)
		f.weights[i] = float64(len(sc.train))
		runners[i] = sc
	}
	return runners, nil
}

// sageRequest is what client k sends, through the server, to every other
// client in a generator step: fGen_k's weights, the latent codes z_k of
// its training nodes and their predicted and true numbers of missing
// neighbours. No features leave a client.
type sageRequest struct {
	From, Round, Step int
	Gen               *sageScratch // fGen_k (read only; its gradients collect the answers), and room to work
	Z                 [][]float64
	Pred, True        []int
	Scale             float64 // b / M
}

// sageRelay is the server of FedSage+'s generator phase. Client k's
// request goes to every other client j, which returns the gradient
// of (b/M) L^f_{k<-j} with respect to fGen_k, computed on its own data;
// the server sums the answers for k, which adds the sum to its gradient
// before stepping. In process, the sum is formed in k's gradient buffers
// themselves, the answers added in client order.
//
// It also lends the float64 gradient buffers of the generators' float32
// output layers: a client needs one only while it steps, so there are as
// many as clients step at once, not one per client.
type sageRelay struct {
	seed      uint64
	genRounds int
	clients   []*sageClient

	mu   sync.Mutex
	free [][]float64
}

// exchange delivers req to every client but its sender, in client order,
// and returns the sum of their losses, added in that order, and whether
// fGen_k took part in any. The answers are computed a batch at a time
// (sageScratch).
func (r *sageRelay) exchange(req *sageRequest) (float64, bool) {
	var loss float64
	used := false
	finish := func() {
		for _, l := range req.Gen.finish(req) {
			loss += l
		}
	}
	for j, c := range r.clients {
		if j == req.From {
			continue
		}
		if u, ok := c.answer(req, len(r.clients)); ok {
			used = used || u
			if req.Gen.full() {
				finish()
			}
		}
	}
	finish()
	return loss, used
}

// gradBuffer returns a zeroed buffer of n entries.
func (r *sageRelay) gradBuffer(n int) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.free) > 0 {
		b := r.free[len(r.free)-1]
		r.free = r.free[:len(r.free)-1]
		if len(b) == n {
			clear(b)
			return b
		}
	}
	return make([]float64, n)
}

// release takes back a buffer for the next step of the generator phase.
// (Dropping them in the phase's last round instead made each of its
// steps allocate and map another: on CiteSeer 303 MB a step.)
func (r *sageRelay) release(b []float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.free = append(r.free, b)
}

// endGenPhase drops the buffers that release kept: the generator phase
// is over.
func (r *sageRelay) endGenPhase() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.free = nil
}

// graphNeighbours returns the neighbours of node i of g other than i.
func graphNeighbours(g *graphio.Graph, i int, buf []int) []int {
	buf = buf[:0]
	for k := g.Adj.Indptr[i]; k < g.Adj.Indptr[i+1]; k++ {
		if j := g.Adj.Indices[k]; j != i {
			buf = append(buf, j)
		}
	}
	return buf
}
