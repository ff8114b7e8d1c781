package sim

import (
	"context"
	"fmt"
	"slices"
)

// WantAll, given to Engine.Want, asks for every optional matrix.
const WantAll = "*"

// wantSet is the set of optional matrices an engine's readers want.
type wantSet struct {
	all   bool
	names []string
}

func (w wantSet) has(name string) bool { return w.all || slices.Contains(w.names, name) }

// Want tells the engine which of a round's optional matrices its readers
// read, from the next round on: names are matrix names (Matrix.Name: a
// similarity source such as "pc1" or "functional", or MatrixGroundTruth),
// WantAlignment for the clients' alignment and WantProbe for their probes
// (not matrices), or WantAll for every matrix (not the alignment nor the
// probes). Each call replaces the set of the last; an
// engine starts wanting none. Whatever is wanted, a round computes the
// similarity its strategy derives the weights from, the weights, and the
// ground truth when the engine has a run log (the log writes it); a view
// nobody wants is not computed and is absent from the round's report
// (Views, Matrices; GroundTruth is nil). Unknown names are ignored. Want
// may be called while a round runs; it applies to the rounds after.
func (e *Engine) Want(names ...string) {
	w := wantSet{names: slices.Clone(names)}
	w.all = slices.Contains(names, WantAll)
	e.wantMu.Lock()
	e.want = w
	e.wantMu.Unlock()
}

// Offered returns the names of the optional matrices the engine's rounds
// can carry (see Want), in the order of Matrices: the similarity views
// its clients' models can give, then the ground truth.
func (e *Engine) Offered() []string {
	var out []string
	for _, s := range e.sources() {
		out = append(out, string(s))
	}
	return append(out, MatrixGroundTruth)
}

// sources lists the signatures the engine's clients can report, in
// Sources order (GCFL's update last). FedSage+'s clients report none,
// FedSage+APV's the APV's and pc1 (see HeadSignatures).
func (e *Engine) sources() []Source {
	var out []Source
	_, sage := e.strategy.(RunnerBuilder)
	for _, s := range Sources() {
		if (s == SourceAPV || s == SourceAPVDelta) && !e.kernel {
			continue // no APV
		}
		if sage && (!e.kernel || s == SourceReadout || s == SourceFunctional) {
			continue
		}
		out = append(out, s)
	}
	if clientSide(e.strategy).Update {
		out = append(out, SourceUpdate)
	}
	return out
}

// checkUses refuses a strategy whose Uses names a view its clients
// cannot give, which Mix would otherwise never receive (RoundInput.Views
// without it).
func (e *Engine) checkUses() error {
	u, ok := e.strategy.(ViewUser)
	if !ok {
		return nil
	}
	can := e.sources()
	if clientSide(e.strategy).GTA != nil {
		can = append(can, SourceMoments)
	}
	for _, s := range u.Uses() {
		if slices.Contains(can, s) {
			continue
		}
		var need string
		switch s {
		case SourceUpdate:
			need = "; its clients give it with ClientSide{Update: true} (ClientSider)"
		case SourceMoments:
			need = "; its clients give it with ClientSide{GTA: ...} (ClientSider)"
		case SourceAPV, SourceAPVDelta:
			need = "; only the APV head gives it (Model: cfg.Kernel)"
		}
		return fmt.Errorf("sim: strategy %s uses the view %q, which its clients cannot give (they give %s)%s", e.cfg.Algo, s, joinNames(can), need)
	}
	return nil
}

// request returns what the clients report in the next round beside their
// parameters, as the fields of a message: the signatures the strategy
// uses or a reader wants, and whether their mean embeddings (the ground
// truth), their alignment and their probe are wanted.
func (e *Engine) request() *Message {
	e.wantMu.Lock()
	w := e.want
	e.wantMu.Unlock()
	var uses []Source
	if u, ok := e.strategy.(ViewUser); ok {
		uses = u.Uses()
	}
	var sigs []Source
	for _, s := range e.sources() {
		if s == SourceUpdate {
			continue // the client side of GCFL reports it anyway
		}
		if slices.Contains(uses, s) || w.has(string(s)) {
			sigs = append(sigs, s)
		}
	}
	ask := &Message{
		Signatures: sigs,
		Embedding:  e.log != nil || w.has(MatrixGroundTruth),
		Alignment:  e.kernel && slices.Contains(w.names, WantAlignment),
	}
	if slices.Contains(w.names, WantProbe) {
		ask.Probe = &ProbeRequest{Descriptor: e.descriptor()}
	}
	return ask
}

// ensureProxy gives the in-process clients FED-PUB's proxy graph when the
// functional signature is asked for, building it on first use from its
// own random stream (so that when it is built changes nothing else).
func (e *Engine) ensureProxy(sigs []Source) error {
	if e.proxy != nil || !slices.Contains(sigs, SourceFunctional) {
		return nil
	}
	proxy, err := ProxyGraph(e.cfg.Seed, e.data.NumFeatures)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	e.proxy = proxy
	for _, r := range e.runners {
		if c, ok := r.(*Client); ok {
			c.proxy = proxy
		}
	}
	return nil
}

// Complete adds to the last round's report the optional matrices named
// (as Want takes them) that the round did not compute, from the clients'
// models as the round left them: they are the matrices the round would
// have computed had they been wanted, bit for bit. It serves a reader
// that asks too late, as an export of what the console did not show. Call
// it between rounds, with in-process clients (Client, or a method's
// runners that implement LateSigner, as FedSage+'s do); the
// clients that missed the round keep the zero rows and columns of
// fillAbsent.
func (e *Engine) Complete(ctx context.Context, names ...string) error {
	if len(e.reports) == 0 {
		return nil
	}
	rep := e.reports[len(e.reports)-1]
	w := wantSet{names: names, all: slices.Contains(names, WantAll)}
	var sigs []Source
	for _, s := range e.sources() {
		if _, done := rep.Views[s]; !done && s != SourceUpdate && w.has(string(s)) {
			sigs = append(sigs, s)
		}
	}
	embedding := rep.GroundTruth == nil && w.has(MatrixGroundTruth)
	if len(sigs) == 0 && !embedding {
		return nil
	}
	if err := e.ensureProxy(sigs); err != nil {
		return err
	}
	absent := map[int]bool{}
	for _, id := range rep.Missing {
		absent[id] = true
	}
	var ups []*Update
	var idx []int
	for i, r := range e.runners {
		if absent[e.data.Clients[i].ID] {
			continue
		}
		c, ok := r.(LateSigner)
		if !ok {
			return fmt.Errorf("sim: client %d runs elsewhere: its round %d signatures cannot be completed", e.data.Clients[i].ID, rep.Round)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		up, err := c.LateSignatures(rep.Round, sigs, embedding)
		if err != nil {
			return err
		}
		ups, idx = append(ups, up), append(idx, i)
	}
	if len(ups) == 0 {
		return nil
	}
	grow := func(m [][]float64) [][]float64 {
		if rep.Missing == nil {
			return m
		}
		return expand(m, idx, len(e.runners))
	}
	if rep.Views == nil {
		rep.Views = map[Source][][]float64{}
	}
	for s, m := range views(ups) {
		rep.Views[s] = grow(m)
	}
	if embedding {
		embs := make([][]float64, len(ups))
		for i, u := range ups {
			embs[i] = u.Embedding
		}
		rep.GroundTruth = grow(cosineMatrix(embs))
	}
	rep.buildMatrices()
	return nil
}

// A LateSigner is a ClientRunner whose signatures Engine.Complete can
// compute between rounds: LateSignatures returns an Update with the
// client's ID, its signatures sigs and (with embedding) its mean
// embedding as its last round (round) left the model, bit for bit what
// that round would have reported. The in-process Client is one; so are a
// RunnerBuilder's runners that implement it (FedSage+'s).
type LateSigner interface {
	LateSignatures(round int, sigs []Source, embedding bool) (*Update, error)
}

// LateSignatures computes, between rounds, the signatures sigs and (with
// embedding) the mean embedding of the model as its last round left it:
// the evaluation forward pass that ended the round is run again (it draws
// nothing and reads only the parameters, unchanged since).
func (c *Client) LateSignatures(_ int, sigs []Source, embedding bool) (*Update, error) {
	defer c.borrow()()
	if embedding || slices.Contains(sigs, SourcePC1) {
		if _, err := c.model.Forward(c.input, false, nil); err != nil {
			return nil, fmt.Errorf("client %d: %w", c.ID, err)
		}
	}
	up := &Update{ClientMetrics: ClientMetrics{ID: c.ID}, Signatures: c.signatures(sigs)}
	if embedding {
		up.Embedding = MeanRows(c.model.Embeddings())
	}
	return up, nil
}
