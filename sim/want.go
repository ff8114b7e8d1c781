package sim

import (
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
// or WantAll for every one. Each call replaces the set of the last; an
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
// Sources order (GCFL's update last).
func (e *Engine) sources() []Source {
	var out []Source
	for _, s := range Sources() {
		if (s == SourceAPV || s == SourceAPVDelta) && !e.kernel {
			continue // no APV
		}
		out = append(out, s)
	}
	if clientSide(e.strategy).Update {
		out = append(out, SourceUpdate)
	}
	return out
}

// viewUser is implemented by strategies whose weights read similarity
// views: Uses lists the signatures whose views Mix reads.
type viewUser interface {
	Uses() []Source
}

// request returns what the clients report in the next round beside their
// parameters: the signatures the strategy uses or a reader wants, and
// whether their mean embeddings (the ground truth) are wanted.
func (e *Engine) request() (sigs []Source, embedding bool) {
	e.wantMu.Lock()
	w := e.want
	e.wantMu.Unlock()
	var uses []Source
	if u, ok := e.strategy.(viewUser); ok {
		uses = u.Uses()
	}
	for _, s := range e.sources() {
		if s == SourceUpdate {
			continue // the client side of GCFL reports it anyway
		}
		if slices.Contains(uses, s) || w.has(string(s)) {
			sigs = append(sigs, s)
		}
	}
	return sigs, e.log != nil || w.has(MatrixGroundTruth)
}

// ensureProxy gives the in-process clients FED-PUB's proxy graph when the
// functional signature is asked for, building it on first use from its
// own random stream (so that when it is built changes nothing else).
func (e *Engine) ensureProxy(sigs []Source) error {
	if e.proxy != nil || !slices.Contains(sigs, SourceFunctional) {
		return nil
	}
	// FED-PUB: 5 disconnected Erdos-Renyi blocks of 100 nodes, p = 0.1, N(0, 1) features.
	proxy, err := proxyGraph(stream(e.cfg.Seed, "proxy", 0), 5, 100, 0.1, e.data.NumFeatures)
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
