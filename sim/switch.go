package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/fedaux/fedaux/gnn"
)

// modelConfig is the client model of strategy st for the run's settings
// and data (before the kernel transform is chosen).
func modelConfig(cfg *Config, data *Data, st Strategy) gnn.Config {
	mcfg := gnn.Config{
		InFeatures: data.NumFeatures, Hidden: cfg.Hidden, Layers: cfg.Layers, Classes: data.NumClasses,
		Score: cfg.Score, Sigma: cfg.Sigma, Dropout: cfg.Dropout, Precision: cfg.Precision,
	}
	st.Model(&mcfg)
	return mcfg
}

// AlgorithmChange is a run's switch to another algorithm from Round on
// (ForkAs); the run log holds it as an "algorithm" line before that
// round's line, so that a replay switches where the run did.
type AlgorithmChange struct {
	Round    int
	From, To Algorithm
}

// Line returns c as its run-log line (RunLog.Write):
// {"type":"algorithm","round":11,"from":"fedaux","to":"local"}.
func (c AlgorithmChange) Line() any {
	return algorithmLine{Type: "algorithm", Round: c.Round, From: c.From, To: c.To}
}

type algorithmLine struct {
	Type  string    `json:"type"` // "algorithm"
	Round int       `json:"round"`
	From  Algorithm `json:"from"`
	To    Algorithm `json:"to"`
}

// CanSwitch returns nil when the run can go on under algorithm a from
// its current state (ForkAs), else why not (without a's name, so that
// the reasons of several algorithms can be grouped). a's clients must be the
// engine's: the same client model (the architecture that a's
// Strategy.Model sets for these settings and data) trained in process,
// so that every client's parameters, optimiser moments and random
// stream carry over as they are; a's other settings must be valid.
func (e *Engine) CanSwitch(a Algorithm) error {
	if _, err := ParseAlgorithm(string(a)); err != nil {
		return err
	}
	cfg := e.cfg
	cfg.Algo = a
	if err := cfg.Validate(); err != nil {
		return err
	}
	st, err := newStrategy(&cfg)
	if err != nil {
		return err
	}
	if _, ok := e.strategy.(RunnerBuilder); ok {
		return fmt.Errorf("the run's algorithm, %s, runs clients of its own", e.cfg.Algo)
	}
	if _, ok := st.(RunnerBuilder); ok {
		return errors.New("runs clients of its own (another model and state)")
	}
	if modelConfig(&cfg, e.data, st) != modelConfig(&e.cfg, e.data, e.strategy) {
		return fmt.Errorf("another client model: %s", modelName(&cfg, e.data, st))
	}
	return nil
}

// ModelName names the engine's client model in a few words ("masked
// GCN + APV kernel head"), as CanSwitch names another.
func (e *Engine) ModelName() string { return modelName(&e.cfg, e.data, e.strategy) }

// modelName names strategy st's client model in a few words.
func modelName(cfg *Config, data *Data, st Strategy) string {
	m := modelConfig(cfg, data, st)
	name := "GCN"
	if m.Masked {
		name = "masked GCN"
	}
	switch {
	case m.Kernel && m.Hard:
		name += " + APV sort-and-convolve head"
	case m.Kernel:
		name += " + APV kernel head"
	}
	return name
}

// ForkAs is Fork with the fork running algorithm a from the next round
// (CanSwitch must allow it): every client's state, the knobs and the
// reports are this engine's, bit for bit, and so are the server's
// messages for the next round, already mixed by this engine's algorithm;
// a's server starts fresh (no strategy state carries over: GCFL's
// clusters, for one, start as one cluster), and so do its ClientHooks. When a shares other
// parameters than this engine's algorithm (Local shares none), the
// messages cannot wait for the next round in a's layout: each client
// takes its message now, as it would at the start of the next round, so
// that the next round starts from the same parameters either way. log,
// when not nil, must be empty: it receives the run line (Meta's Header,
// else Header's), the lines of the rounds so far and an "algorithm" line
// for the next round (AlgorithmChange), then the fork's.
func (e *Engine) ForkAs(log *RunLog, a Algorithm) (*Engine, error) {
	if err := e.CanSwitch(a); err != nil {
		return nil, fmt.Errorf("sim: fork as %s: %w", a, err)
	}
	ck, err := e.state(false)
	if err != nil {
		return nil, fmt.Errorf("sim: fork: %w", err)
	}
	ck.Reports, ck.Controls = slices.Clone(ck.Reports), slices.Clone(ck.Controls)
	if ck.Meta.Header, err = e.runLine(); err != nil {
		return nil, fmt.Errorf("sim: fork: %w", err)
	}
	ck.Config.Algo, ck.Strategy = a, nil
	for i := range ck.Clients { // a's client hooks start fresh too
		ck.Clients[i].Hook = nil
	}
	from := e.strategy.Name()
	// The pending messages, in this engine's layout; ck gets them back
	// when a's layout is the same.
	pending := ck.Pending
	ck.Pending = nil
	f, err := ck.Resume(e.data, nil)
	if err != nil {
		return nil, fmt.Errorf("sim: fork as %s: %w", a, err)
	}
	if pending != nil {
		same := slices.EqualFunc(e.runners, f.runners, func(r, s ClientRunner) bool {
			return sameLayout(r.(*Client), s.(*Client))
		})
		if same {
			f.pending = make([]*Message, len(pending))
		}
		for i, m := range pending {
			switch {
			case !m.Has:
			case same:
				f.pending[i] = &Message{Shared: slices.Clone(m.Shared)}
			default:
				c := e.runners[i].(*Client)
				if len(m.Shared) != c.sharedLen() {
					return nil, fmt.Errorf("sim: fork as %s: client %d: pending message of %d values, want %d", a, i, len(m.Shared), c.sharedLen())
				}
				loadInto(f.runners[i].(*Client), c, m.Shared)
			}
		}
	}
	if log != nil {
		if err := log.resumeAt(ck); err != nil {
			return nil, fmt.Errorf("sim: fork as %s: %w", a, err)
		}
		if err := log.Write(AlgorithmChange{Round: e.Round() + 1, From: from, To: a}.Line()); err != nil {
			return nil, err
		}
		f.log = log
	}
	if err := e.passOn(f); err != nil {
		return nil, fmt.Errorf("sim: fork as %s: %w", a, err)
	}
	return f, nil
}

// sameLayout reports whether two clients share the same parameters, by
// name and size, in the same order.
func sameLayout(a, b *Client) bool {
	return slices.EqualFunc(a.shared, b.shared, func(p, q *gnn.Param) bool {
		return p.Name == q.Name && len(p.Value) == len(q.Value)
	})
}

// loadInto sets dst's parameters from v, a message in src's layout
// (src.load's effect, on dst's model of the same architecture).
func loadInto(dst, src *Client, v []float64) {
	off := 0
	for _, p := range src.shared {
		q := dst.model.Param(p.Name)
		off += copy(q.Value, v[off:off+len(p.Value)])
	}
}
