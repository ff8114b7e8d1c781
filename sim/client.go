package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// Message is what the server sends a client at the start of a round.
type Message struct {
	Round int
	// Shared holds the client's personalised shared parameters (Eq. 6),
	// flattened in the client's layout; nil means keep its own.
	Shared []float64
	Sigma  float64
	// Remote holds, for FedGNN's expansion, the embeddings of the
	// client's cut-edge neighbours that the server relayed; nil otherwise.
	Remote *Remote
	// Signatures lists the signatures the client reports (Update.Signatures)
	// beside those its strategy's client side adds (GCFL's update), and
	// Embedding asks for its mean embedding (Update.Embedding).
	Signatures []Source
	Embedding  bool
	// Alignment asks for the client's alignment (Update.Alignment).
	Alignment bool
	// Probe, when not nil, asks for the client's probe (Update.Probe).
	Probe *ProbeRequest
	// Extra is what the strategy's Broadcast returned for the client
	// (SCAFFOLD's server control variate); nil when none. The client
	// reads it only.
	Extra []float64
}

// Update is what a client reports after a round: its metrics (the round
// report's, Absent left unset), its shared parameters and its signatures
// (the APV, which FedAux's server compares, and the other sources of
// Sources).
type Update struct {
	ClientMetrics
	Shared     []float64
	Signatures map[Source][]float64
	Embedding  []float64 // mean-pooled eval embedding when asked; for display only, never used by a strategy

	// Train is the number of training nodes (FedGNN weights by it).
	Train int
	// Weight is the client's own aggregation weight when its strategy
	// asks for one (FedGTA's smoothing confidence); 0 otherwise.
	Weight float64
	// Extra is what the client's ClientHook uploads beside its
	// parameters (SCAFFOLD's control variate change); nil when none.
	Extra []float64
}

// A ClientRunner runs one client's part of a round. The in-process Client
// is one; executors in other processes can be others.
type ClientRunner interface {
	Round(ctx context.Context, msg *Message) (*Update, error)
}

// Client is one in-process client: its subgraph, its model, its optimiser
// state and its own dropout stream. It shares no mutable state with other
// clients.
type Client struct {
	ID     int
	data   *graphio.Client
	input  gnn.Input
	metric Metric // how val and test nodes are scored
	labels []int
	train  []int
	val    []int
	test   []int
	model  *gnn.Model
	opt    *gnn.Adam
	rng    *rand.Rand
	pcg    *rand.PCG    // rng's source, saved by checkpoints
	hooks  *FaultHooks  // injected faults (tests); nil means none
	dl     *mat.Dense   // gradient of the loss in the logits
	shared []*gnn.Param // parameters that travel, in layout order
	epochs int
	proxy  *gnn.Input // FED-PUB's proxy graph, shared read-only; nil until the functional signature is asked for
	upBuf  []float64  // the shared parameters of the last update
	// params is the storage of the shared parameters: each one's Value
	// is a slice of it, in layout order (bind), so that the client can
	// take the server's mixed vector as its parameters (take).
	params []float64
	side   ClientSide // what the strategy asks beyond the shared loop
	hook   ClientHook // the strategy's own code in the client; nil: none
	start  []float64  // shared parameters at the round's start (when side needs them)
	cut    *cutTags   // FedGNN: the client's boundary, signed; nil without expansion
	// apvStart is the APV the client started its last round with.
	apvStart []float64
	// apvInit is the APV the run started from (the initial model's), for
	// the alignment's control; nil without an APV.
	apvInit []float64
	// scratch holds the engine's scratch memory, one gnn.Scratch per
	// client that may train at once; a round borrows one for the model's
	// activations and gradients. nil: the model keeps its own.
	scratch chan *gnn.Scratch
	// probeOn holds the probe targets by graph, probeN their number
	// (Engine.SetProbeTargets); nil: every node of the client's graph.
	probeOn []probeGroup
	probeN  int
}

// newClient builds client c with a model whose parameters are copied from
// init. side is what the strategy asks of its clients (clientSide) and
// shares[k] whether it shares init's k-th parameter (Strategy.Shares):
// both asked of the strategy once, so that clients may be built on
// several goroutines. The client's hook (ClientHooker) is left to the
// caller.
func newClient(c *graphio.Client, mcfg gnn.Config, init *gnn.Model, side ClientSide, shares []bool, cfg *Config) (*Client, error) {
	model, err := gnn.NewModel(mcfg, nil) // its values are init's (CopyFrom below)
	if err != nil {
		return nil, fmt.Errorf("client %d: %w", c.ID, err)
	}
	prop, err := gnn.NewPropagator(ToGNN(c.Graph.Adj))
	if err != nil {
		return nil, fmt.Errorf("client %d: %w", c.ID, err)
	}
	src := rand.NewPCG(cfg.Seed, StreamKey("dropout", c.ID)) // Stream(cfg.Seed, "dropout", c.ID)
	cl := &Client{
		ID:     c.ID,
		data:   c,
		input:  gnn.Input{Prop: prop, X: Features(c.Graph)},
		dl:     mat.NewDense(c.Graph.N(), mcfg.Classes, nil),
		labels: c.Graph.Labels,
		model:  model,
		opt:    gnn.NewAdam(model.Params(), cfg.LR, cfg.WD),
		rng:    rand.New(src),
		pcg:    src,
		epochs: cfg.Epochs,
		side:   side,
	}
	if cl.train, cl.val, cl.test, err = SplitRoles(c); err != nil {
		return nil, err
	}
	if cl.side.Expansion {
		cl.cut = signCut(c, cfg.Seed)
	}
	if apv := init.Param("apv"); apv != nil {
		cl.apvInit = slices.Clone(apv.Value)
	}
	if len(shares) != len(model.Params()) {
		return nil, fmt.Errorf("client %d: %d parameters, the initial model has %d", c.ID, len(model.Params()), len(shares))
	}
	for k, p := range model.Params() {
		if shares[k] {
			cl.shared = append(cl.shared, p)
		}
	}
	// The shared parameters move to one array, then every parameter is
	// set from init: one copy.
	cl.params = make([]float64, cl.sharedLen())
	cl.bind()
	if err := model.CopyFrom(init); err != nil {
		return nil, fmt.Errorf("client %d: %w", c.ID, err)
	}
	cl.upBuf = make([]float64, 0, len(cl.params)) // flatten fills it without growing
	return cl, nil
}

// bind makes each shared parameter's Value the slice of c.params that
// holds it.
func (c *Client) bind() {
	off := 0
	for _, p := range c.shared {
		n := len(p.Value)
		p.Value = c.params[off : off+n : off+n]
		off += n
	}
}

// ToGNN returns a graphio sparse matrix as package gnn's, sharing its
// arrays.
func ToGNN(c *graphio.CSR) *gnn.CSR {
	return &gnn.CSR{Rows: c.Rows, Cols: c.Cols, Indptr: c.Indptr, Indices: c.Indices, Values: c.Values}
}

// Features returns g's node features as package gnn reads them.
func Features(g *graphio.Graph) gnn.Features {
	if g.Dense != nil {
		return gnn.Features{Dense: g.Dense}
	}
	return gnn.Features{Sparse: ToGNN(g.Features)}
}

// Round loads the server's message, trains Q local epochs (one full-batch
// Adam step each), evaluates on the client's validation and test nodes in
// evaluation mode and returns the update.
func (c *Client) Round(ctx context.Context, msg *Message) (*Update, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer c.borrow()()
	if msg.Shared != nil {
		c.take(msg.Shared)
	}
	if c.side.Expansion {
		if err := c.expand(msg.Remote); err != nil {
			return nil, err
		}
	}
	c.model.SetSigma(msg.Sigma)
	if apv := c.model.Param("apv"); apv != nil {
		c.apvStart = append(c.apvStart[:0], apv.Value...) // for apv-delta, now or later (Engine.Complete)
	}
	if c.side.needsStart() {
		c.start = flattenInto(c.start, c.shared)
	}
	if c.hook != nil {
		if err := c.hook.Start(msg, c.shared); err != nil {
			return nil, fmt.Errorf("client %d: %w", c.ID, err)
		}
	}
	var loss float64
	var logits *mat.Dense // the evaluation's, when the last step gives it
	for e := 0; e < c.epochs; e++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		plain := c.plainStep()
		if !plain {
			c.model.ZeroGrad()
		}
		out, err := c.model.Forward(c.input, true, c.rng)
		if err != nil {
			return nil, fmt.Errorf("client %d: %w", c.ID, err)
		}
		loss = gnn.SoftmaxCrossEntropy(out, c.labels, c.train, c.dl)
		if plain {
			// Nothing reads or changes the gradients between the
			// backward pass and the step: the model fuses them, and
			// the last step with the evaluation.
			if logits, err = c.fusedStep(msg.Round, e+1, loss, e == c.epochs-1); err != nil {
				return nil, err
			}
			continue
		}
		c.model.Backward(c.dl)
		if c.side.ProxMu > 0 {
			proximal(c.shared, c.start, c.side.ProxMu) // FedProx; TrainLoss stays the cross-entropy
		}
		if c.hook != nil {
			c.hook.Gradient(c.shared)
		}
		if err := c.checkEpoch(msg.Round, e+1, loss); err != nil {
			return nil, err
		}
		if c.side.LDP != nil {
			c.side.LDP.clip(c.model.Params())
		}
		c.opt.Step()
		if c.side.LDP != nil {
			c.side.LDP.noise(c.model.Params(), len(c.train), c.rng)
		}
	}
	if logits == nil {
		var err error
		if logits, err = c.model.Forward(c.input, false, nil); err != nil {
			return nil, fmt.Errorf("client %d: %w", c.ID, err)
		}
	}
	shared, bad := c.flatten()
	up := &Update{
		ClientMetrics: ClientMetrics{
			ID:        c.ID,
			Nodes:     len(c.labels),
			TrainLoss: loss,
			ValAcc:    c.metric.Score(logits, c.labels, c.val),
			TestAcc:   c.metric.Score(logits, c.labels, c.test),
		},
		Train:  len(c.train),
		Shared: shared,
	}
	if msg.Embedding {
		up.Embedding = MeanRows(c.model.Embeddings())
	}
	if msg.Alignment { // before the signatures, which may overwrite the embeddings
		c.alignment(up)
	}
	up.Signatures = c.signatures(msg.Signatures)
	if c.side.GTA != nil {
		if err := c.gtaSignature(logits, up); err != nil {
			return nil, fmt.Errorf("client %d: %w", c.ID, err)
		}
	}
	if c.side.Update {
		up.Signatures[SourceUpdate] = difference(up.Shared, c.start)
	}
	if c.hook != nil {
		if err := c.hook.Finish(up, c.shared); err != nil {
			return nil, fmt.Errorf("client %d: %w", c.ID, err)
		}
		bad = vec.FirstNonFinite(up.Shared) // the hook may have changed it
	}
	if bad >= 0 {
		return nil, fmt.Errorf("client %d: parameter entry %d is %v after training", c.ID, bad, up.Shared[bad])
	}
	if msg.Probe != nil { // last: it overwrites the model's buffers
		var err error
		if up.Probe, err = c.probe(msg.Probe.Descriptor, up); err != nil {
			return nil, err
		}
	}
	return up, nil
}

// borrow lends the model one of the engine's scratch memories (see
// gnn.Scratch), waiting for one to be free, and returns the function that
// gives it back. Without scratch memory the model keeps its own.
func (c *Client) borrow() (giveBack func()) {
	if c.scratch == nil {
		return func() {}
	}
	s := <-c.scratch
	c.model.Borrow(s)
	return func() {
		c.model.Return(s)
		c.scratch <- s
	}
}

// flatten copies the shared parameters into one vector in layout order.
// The vector is the client's own and is overwritten next round. The
// server may overwrite it before: it mixes the updates in place, so the
// vector comes back as the client's next message.
//
// bad is the index of its first NaN or infinite entry, -1 if none
// (flattenChecked).
func (c *Client) flatten() (v []float64, bad int) {
	c.upBuf, bad = flattenChecked(c.upBuf, c.shared)
	return c.upBuf, bad
}

// take sets the shared parameters from the round's message. When the
// message is the client's last update, which the server mixed in place
// (the engine's mix), the client takes that vector as its parameters'
// storage and keeps the one it had for its next update, instead of
// copying: the parameters get the same values either way, and a
// float32 Cora-10 round spends 4.7-5.7 % less CPU (docs/performance.md,
// session 16). The message's vector is then the client's parameters,
// changed by the round's training.
func (c *Client) take(v []float64) {
	if len(v) == 0 || len(v) != len(c.params) || &v[0] != &c.upBuf[:1][0] {
		c.load(v)
		return
	}
	c.params, c.upBuf = v[:len(v):len(v)], c.params[:0]
	c.bind()
}

// load copies a vector in layout order into the shared parameters.
func (c *Client) load(v []float64) {
	off := 0
	for _, p := range c.shared {
		off += copy(p.Value, v[off:off+len(p.Value)])
	}
}

// SplitRoles returns the local indices of a client's training, validation
// and test nodes. A client without a node of each role is an error: it
// could not train, or its accuracy would be taken over no node and count
// as 0 in the mean over clients.
func SplitRoles(c *graphio.Client) (train, val, test []int, err error) {
	train, val, test = graphio.SplitRoles(c.Roles)
	// A scenario's split has keys train and test; the rest validates.
	for _, r := range []struct {
		nodes      []int
		name, hint string
	}{{train, "training", "raise split.train"}, {val, "validation", "lower split.train or split.test (the rest validates)"}, {test, "test", "raise split.test"}} {
		if len(r.nodes) == 0 {
			return nil, nil, nil, fmt.Errorf("client %d has no %s node (of its %d nodes %d train, %d val, %d test); %s, or make the clients fewer or larger",
				c.ID, r.name, len(c.Roles), len(train), len(val), len(test), r.hint)
		}
	}
	return train, val, test, nil
}
