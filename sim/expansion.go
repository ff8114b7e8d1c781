package sim

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
)

// A NodeTag is a node's global id signed with the clients' HMAC key
// (HMAC-SHA256, first 16 bytes): what FedGNN's server sees of a node.
type NodeTag [16]byte

// Boundary is what a FedGNN client sends the server before a round: the
// tags, first-layer embeddings and degrees (local and cut edges, no self
// loop) of its boundary nodes, and the tags of its cut-edge neighbours it
// asks for (Wants, sorted, each once).
type Boundary struct {
	Tags       []NodeTag
	Embeddings [][]float64
	Degrees    []float64
	Wants      []NodeTag
}

// Remote is the server's answer to a Boundary: the tags of Wants that
// some client sent, in Wants' order, with their embeddings and degrees.
// The vectors are shared between answers; clients only read them.
type Remote struct {
	Tags       []NodeTag
	Embeddings [][]float64
	Degrees    []float64
}

// A boundaryRunner is a client that takes part in FedGNN's expansion.
type boundaryRunner interface {
	Boundary(ctx context.Context, msg *Message) (*Boundary, error)
}

// cutTags is a FedGNN client's boundary, signed: what it sends and asks
// for, kept from the start.
type cutTags struct {
	boundary []int       // local ids of the nodes with a cut edge, ascending
	own      []NodeTag   // their tags
	degree   []float64   // their degrees (local neighbours and cut edges)
	edges    []taggedCut // every cut edge, in graphio's order
	wants    []NodeTag   // the distinct remote tags, sorted
	keep     []float64   // the client's shared parameters while Boundary runs
	sent     [][]float64 // the embeddings of the last Boundary (probes read them)
}

// taggedCut is a cut edge with its remote end signed.
type taggedCut struct {
	local  int
	remote NodeTag
}

// signCut signs client c's cut edges with the clients' key, drawn from
// the run seed (the server never sees it).
func signCut(c *graphio.Client, seed uint64) *cutTags {
	key := make([]byte, 32)
	rng := Stream(seed, "hmac-key", 0)
	for i := 0; i < len(key); i += 8 {
		binary.BigEndian.PutUint64(key[i:], rng.Uint64())
	}
	mac := hmac.New(sha256.New, key)
	sign := func(id int) NodeTag {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(id))
		mac.Reset()
		mac.Write(b[:])
		var t NodeTag
		copy(t[:], mac.Sum(nil))
		return t
	}
	ct := &cutTags{}
	cuts := make([]int, c.Graph.N())
	seen := map[NodeTag]bool{}
	for _, e := range c.Cut {
		cuts[e.Local]++
		t := sign(e.Remote)
		ct.edges = append(ct.edges, taggedCut{e.Local, t})
		if !seen[t] {
			seen[t] = true
			ct.wants = append(ct.wants, t)
		}
	}
	slices.SortFunc(ct.wants, func(a, b NodeTag) int { return compareStrings(string(a[:]), string(b[:])) })
	deg := localDegrees(c.Graph.Adj.Indptr, c.Graph.Adj.Indices)
	for u, n := range cuts {
		if n > 0 {
			ct.boundary = append(ct.boundary, u)
			ct.own = append(ct.own, sign(c.Nodes[u]))
			ct.degree = append(ct.degree, deg[u]+float64(n))
		}
	}
	return ct
}

// Boundary returns the client's boundary message for a round: the
// first-layer embeddings (evaluation mode) of its boundary nodes under
// the parameters msg carries (its own when none). The model is left as
// it was.
func (c *Client) Boundary(ctx context.Context, msg *Message) (*Boundary, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.cut == nil {
		return nil, fmt.Errorf("client %d: no boundary (the strategy asks for no expansion)", c.ID)
	}
	if msg.Shared != nil {
		c.cut.keep = flattenInto(c.cut.keep, c.shared)
		c.load(msg.Shared)
	}
	h1 := c.model.FirstLayer(gnn.Input{Prop: c.input.Prop, X: c.input.X})
	if msg.Shared != nil {
		c.load(c.cut.keep)
	}
	b := &Boundary{Tags: c.cut.own, Degrees: c.cut.degree, Wants: c.cut.wants}
	for _, u := range c.cut.boundary {
		b.Embeddings = append(b.Embeddings, append([]float64(nil), h1.RawRowView(u)...))
	}
	c.cut.sent = b.Embeddings
	return b, nil
}

// expand sets the client's input to its graph expanded with the remote
// neighbours r brings (the local graph alone when r is nil).
func (c *Client) expand(r *Remote) error {
	c.input.Expand = nil
	if r == nil {
		return nil
	}
	found := make(map[NodeTag]int, len(r.Tags))
	for i, t := range r.Tags {
		found[t] = i
	}
	remote := make([][]gnn.RemoteNeighbor, c.data.Graph.N())
	for _, e := range c.cut.edges {
		i, ok := found[e.remote]
		if !ok || len(remote[e.local]) >= remoteCap {
			continue
		}
		remote[e.local] = append(remote[e.local], gnn.RemoteNeighbor{Embedding: r.Embeddings[i], Degree: r.Degrees[i]})
	}
	exp, err := gnn.NewExpansion(ToGNN(c.data.Graph.Adj), 1, remote)
	if err != nil {
		return fmt.Errorf("client %d: %w", c.ID, err)
	}
	c.input.Expand = exp
	return nil
}

// exchange runs FedGNN's expansion before round round: the clients
// present send their boundaries (in parallel), the strategy relays them,
// and it returns each client's answer (nil for the others). It returns
// nil at once for a strategy without expansion. A client unavailable
// (ErrUnavailable) sends nothing.
func (e *Engine) exchange(ctx context.Context, round int, absent []bool) ([]*Remote, error) {
	rel, ok := e.strategy.(Relayer)
	if !ok || !clientSide(e.strategy).Expansion {
		return nil, nil
	}
	k := len(e.runners)
	bs := make([]*Boundary, k)
	errs := make([]error, k)
	var present []int
	for i := range k {
		if absent == nil || !absent[i] {
			present = append(present, i)
		}
	}
	forEach(present, e.cfg.NumWorkers(), func(i int) {
		br, ok := e.runners[i].(boundaryRunner)
		if !ok {
			errs[i] = fmt.Errorf("client %d cannot send its boundary for the expansion", e.data.Clients[i].ID)
			return
		}
		msg := &Message{Round: round, Sigma: e.knobs.Sigma}
		if e.pending != nil && e.pending[i] != nil {
			msg.Shared = e.pending[i].Shared
		}
		bs[i], errs[i] = br.Boundary(ctx, msg)
	})
	for i, err := range errs {
		if errors.Is(err, ErrUnavailable) {
			bs[i] = nil
		} else if err != nil {
			return nil, fmt.Errorf("expansion: %w", err)
		}
	}
	return rel.Relay(bs), nil
}
