package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/fedaux/fedaux/gnn"
)

// WantProbe, given to Engine.Want, asks for every client's probe
// (ClientMetrics.Probe) in the rounds after: what an honest-but-curious
// server that keeps the client's uploads computes for candidate nodes
// from the client's model of the round (docs/method.md#membership-inference, "Membership
// inference attack"). It is not a matrix: Offered does not list it and
// WantAll does not include it.
const WantProbe = "probe"

// A Descriptor names what a client uploads beside its parameters that a
// probe projects node embeddings on (ProbeRow.Projection).
type Descriptor string

// The descriptors, by what the strategy's clients upload (docs/method.md#membership-inference).
const (
	// DescriptorNone: nothing beyond the parameters (FedAvg, FedProx,
	// FedPer, GCFL); the projection is 0.
	DescriptorNone Descriptor = "none"
	// DescriptorAPV: the APV a_k (FedAux and every model with one); the
	// projection is <h_v / max_u ||h_u||, a_k / ||a_k||>.
	DescriptorAPV Descriptor = "apv"
	// DescriptorFunctional: FED-PUB's functional embedding e_k; the
	// projection is cos(h_v, e_k).
	DescriptorFunctional Descriptor = "functional"
	// DescriptorMoments: FedGTA's moments m_k; the projection is
	// <softmax_v, mu_1(m_k)>, mu_1 the moments' first C entries.
	DescriptorMoments Descriptor = "moments"
	// DescriptorBoundary: FedGNN's boundary embeddings; the projection is
	// the largest cosine between v's first-layer embedding and the
	// embeddings the client uploaded for its expansion in the round.
	DescriptorBoundary Descriptor = "boundary"
)

// Descriptors lists the descriptors.
func Descriptors() []Descriptor {
	return []Descriptor{DescriptorNone, DescriptorAPV, DescriptorFunctional, DescriptorMoments, DescriptorBoundary}
}

// ParseDescriptor returns the descriptor named s.
func ParseDescriptor(s string) (Descriptor, error) {
	return parseName("descriptor", s, Descriptors(), joinOr(Descriptors()))
}

func (d Descriptor) String() string { return string(d) }

// MarshalText implements encoding.TextMarshaler.
func (d Descriptor) MarshalText() ([]byte, error) { return []byte(d), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Descriptor) UnmarshalText(b []byte) error { return unmarshalName(d, b, ParseDescriptor) }

// A NodeRef names a node: Client is a client's position in Data.Clients,
// Node the node's local index in that client's graph.
type NodeRef struct {
	Client, Node int
}

// A ProbeRow is what a probe says of one candidate node v: client k's
// model of the round (the parameters it uploaded after local training,
// its masks included) run in evaluation mode on v's client's graph (k's
// own graph as it trains on it: FedGNN's expanded; another client's
// graph alone), h_v the last GCN layer's output (Eq. 1).
type ProbeRow struct {
	// Projection is h_v's projection on the client's descriptor (see
	// Descriptor).
	Projection float64
	// Loss is the cross-entropy of v's label (natural log).
	Loss float64
	// Top holds the three largest softmax probabilities, largest first
	// (0 beyond the number of classes), and Entropy the softmax's
	// entropy (natural log).
	Top     [3]float64
	Entropy float64
	// Norm is ||h_v||; APVCos is cos(h_v, a_k), 0 without an APV.
	Norm, APVCos float64
}

// A Probe is one client's probe in one round: a row per target node (see
// Engine.SetProbeTargets; by default every node of the client's graph,
// in local order).
type Probe struct {
	Descriptor Descriptor
	Rows       []ProbeRow
}

// ProbeRequest asks a client for its probe after the round's training.
type ProbeRequest struct {
	Descriptor Descriptor
}

// descriptor returns the descriptor of the engine's strategy: the APV
// when the model has one, else what the strategy's server compares
// (FED-PUB's functional embedding, FedGTA's moments) or relays
// (FedGNN's boundary embeddings).
func (e *Engine) descriptor() Descriptor {
	side := clientSide(e.strategy)
	var uses []Source
	if u, ok := e.strategy.(ViewUser); ok {
		uses = u.Uses()
	}
	switch {
	case e.kernel:
		return DescriptorAPV
	case slices.Contains(uses, SourceFunctional):
		return DescriptorFunctional
	case side.GTA != nil:
		return DescriptorMoments
	case side.Expansion:
		return DescriptorBoundary
	}
	return DescriptorNone
}

// probeGroup is a set of a client's probe targets on one graph.
type probeGroup struct {
	own    bool      // the client's own graph (its input as it trains)
	input  gnn.Input // another client's graph, without expansion
	labels []int
	nodes  []int // local indices in that graph
	pos    []int // positions in the target list
}

// SetProbeTargets sets, per client (in Data.Clients order), the nodes
// its probes describe (see WantProbe), in order: nodes of its own graph
// or of other clients' graphs, on which its model then runs too. A nil
// list (and a nil targets) means every node of the client's own graph.
// Probes of other clients' nodes need in-process clients. The targets
// hold until the next call; a checkpoint does not keep them.
func (e *Engine) SetProbeTargets(targets [][]NodeRef) error {
	if targets != nil && len(targets) != len(e.runners) {
		return fmt.Errorf("sim: probe targets for %d clients, the engine has %d", len(targets), len(e.runners))
	}
	groups := make([][]probeGroup, len(e.runners))
	for k, ts := range targets {
		at := map[int]int{} // client -> its group in groups[k]
		for i, t := range ts {
			if t.Client < 0 || t.Client >= len(e.runners) {
				return fmt.Errorf("sim: probe target %d of client %d: client %d out of range [0, %d)", i, e.data.Clients[k].ID, t.Client, len(e.runners))
			}
			g := e.data.Clients[t.Client].Graph
			if t.Node < 0 || t.Node >= g.N() {
				return fmt.Errorf("sim: probe target %d of client %d: node %d out of range [0, %d)", i, e.data.Clients[k].ID, t.Node, g.N())
			}
			j, ok := at[t.Client]
			if !ok {
				j = len(groups[k])
				at[t.Client] = j
				pg := probeGroup{own: t.Client == k, labels: g.Labels}
				if !pg.own {
					c, ok := e.runners[t.Client].(*Client)
					if !ok {
						return fmt.Errorf("sim: probe target %d of client %d: client %d runs elsewhere", i, e.data.Clients[k].ID, e.data.Clients[t.Client].ID)
					}
					pg.input = gnn.Input{Prop: c.input.Prop, X: c.input.X}
				}
				groups[k] = append(groups[k], pg)
			}
			groups[k][j].nodes = append(groups[k][j].nodes, t.Node)
			groups[k][j].pos = append(groups[k][j].pos, i)
		}
	}
	for k, r := range e.runners {
		c, ok := r.(*Client)
		if !ok {
			if targets != nil && targets[k] != nil {
				return fmt.Errorf("sim: client %d runs elsewhere: its probe targets cannot be set", e.data.Clients[k].ID)
			}
			continue
		}
		c.probeOn, c.probeN = nil, 0
		if targets != nil && targets[k] != nil {
			c.probeOn, c.probeN = groups[k], len(targets[k])
		}
	}
	return nil
}

// probe computes the client's probe after its round (the last thing the
// round does: it overwrites the model's buffers). up is the round's
// update, whose signatures hold the descriptor when the strategy sends
// one.
func (c *Client) probe(d Descriptor, up *Update) (*Probe, error) {
	desc, err := c.descriptorVector(d, up)
	if err != nil {
		return nil, err
	}
	groups := c.probeOn
	n := c.probeN
	if groups == nil {
		all := make([]int, c.data.Graph.N())
		for i := range all {
			all[i] = i
		}
		groups, n = []probeGroup{{own: true, labels: c.labels, nodes: all, pos: all}}, len(all)
	}
	p := &Probe{Descriptor: d, Rows: make([]ProbeRow, n)}
	for _, g := range groups {
		in := g.input
		if g.own {
			in = c.input
		}
		logits, err := c.model.Forward(in, false, nil)
		if err != nil {
			return nil, fmt.Errorf("client %d: probe: %w", c.ID, err)
		}
		h := c.model.Embeddings()
		var apv []float64
		if a := c.model.Param("apv"); a != nil {
			apv = a.Value
		}
		maxNorm := 0.0
		if d == DescriptorAPV {
			rows, _ := h.Dims()
			for i := range rows {
				maxNorm = math.Max(maxNorm, norm(h.RawRowView(i)))
			}
		}
		for i, v := range g.nodes {
			row := &p.Rows[g.pos[i]]
			hv := h.RawRowView(v)
			row.Loss, row.Top, row.Entropy = softmaxStats(logits.RawRowView(v), g.labels[v])
			row.Norm = norm(hv)
			if apv != nil {
				row.APVCos = cosine(hv, apv)
			}
			switch d {
			case DescriptorAPV:
				if maxNorm > 0 {
					row.Projection = row.APVCos * row.Norm / maxNorm // <h_v/max||h||, a/||a||>
				}
			case DescriptorFunctional:
				row.Projection = cosine(hv, desc)
			case DescriptorMoments:
				row.Projection = softmaxDot(logits.RawRowView(v), desc)
			}
		}
		if d == DescriptorBoundary && c.cut != nil && len(c.cut.sent) > 0 {
			// Last: the first layer's buffers may hold h (one-layer models).
			h1 := c.model.FirstLayer(gnn.Input{Prop: in.Prop, X: in.X})
			sent := c.cut.sent
			for i, v := range g.nodes {
				best := math.Inf(-1)
				for _, e := range sent {
					best = math.Max(best, cosine(h1.RawRowView(v), e))
				}
				p.Rows[g.pos[i]].Projection = best
			}
		}
	}
	return p, nil
}

// descriptorVector returns the vector the probe projects on: nil for
// none, for the APV (the model holds it) and for the boundary (the
// embeddings kept in c.cut; none sent, when the client has no cut edge,
// gives projection 0).
func (c *Client) descriptorVector(d Descriptor, up *Update) ([]float64, error) {
	switch d {
	case DescriptorFunctional:
		if v, ok := up.Signatures[SourceFunctional]; ok {
			return v, nil
		}
		if c.proxy == nil {
			return nil, fmt.Errorf("client %d: probe: no functional embedding (no proxy graph)", c.ID)
		}
		return FunctionalSignature(c.model, *c.proxy), nil
	case DescriptorMoments:
		v, ok := up.Signatures[SourceMoments]
		if !ok {
			return nil, fmt.Errorf("client %d: probe: no moments (the strategy is not FedGTA)", c.ID)
		}
		return v[:c.model.Config().Classes], nil // mu_1
	case DescriptorAPV:
		if c.model.Param("apv") == nil {
			return nil, fmt.Errorf("client %d: probe: the model has no APV", c.ID)
		}
	}
	return nil, nil
}

// softmaxStats returns, for a row of logits, the cross-entropy of label
// y, the three largest softmax probabilities (largest first) and the
// softmax's entropy.
func softmaxStats(logits []float64, y int) (loss float64, top [3]float64, entropy float64) {
	hi := math.Inf(-1)
	for _, v := range logits {
		hi = math.Max(hi, v)
	}
	var sum float64
	for _, v := range logits {
		sum += math.Exp(v - hi)
	}
	lse := hi + math.Log(sum)
	loss = lse - logits[y]
	for _, v := range logits {
		p := math.Exp(v - lse)
		if p > 0 {
			entropy -= p * (v - lse)
		}
		switch {
		case p > top[0]:
			top[0], top[1], top[2] = p, top[0], top[1]
		case p > top[1]:
			top[1], top[2] = p, top[1]
		case p > top[2]:
			top[2] = p
		}
	}
	return loss, top, entropy
}

// softmaxDot returns <softmax(logits), w>.
func softmaxDot(logits, w []float64) float64 {
	hi := math.Inf(-1)
	for _, v := range logits {
		hi = math.Max(hi, v)
	}
	var sum, dotp float64
	for j, v := range logits {
		e := math.Exp(v - hi)
		sum += e
		dotp += e * w[j]
	}
	return dotp / sum
}
