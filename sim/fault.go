package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// ErrUnavailable marks a client that could not take part in a round (it
// dropped out, its executor failed or timed out). A ClientRunner returns
// an error wrapping it, with its state left as before the round; the
// engine then leaves the client out of that round's aggregation instead of
// stopping the run. Any other error of a runner stops the run.
var ErrUnavailable = errors.New("client unavailable")

// NonFiniteError reports a NaN or an infinity in a client's training. It
// stops the run: the engine refuses further rounds, and the log keeps
// only the rounds completed before.
type NonFiniteError struct {
	Client int
	Round  int
	Epoch  int     // local epoch, from 1
	What   string  // "training loss", "gradient of conv1.weight entry 12", ...
	Value  float64 // the offending value
}

// Error names the client and the epoch; the engine adds the round.
func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("client %d: %s is %v in epoch %d", e.Client, e.What, e.Value, e.Epoch)
}

// Faults simulates unreliable clients. The zero value means none.
type Faults struct {
	// Dropout is the probability that a client misses a round (the
	// -dropout flag), drawn independently for every client and round from
	// the run's "absence" stream, in client order, so that who is missing
	// depends on the seed only, never on the number of workers.
	Dropout float64
	// Hooks inject faults for tests; nil means none. Hooks are not saved
	// in checkpoints.
	Hooks *FaultHooks
}

// FaultHooks let tests inject faults. Any of them may be nil. They are
// called from the worker goroutines, several at once.
type FaultHooks struct {
	// Absent reports whether the client (an index into Data.Clients)
	// misses the round; the engine does not contact it.
	Absent func(round, client int) bool
	// Fail reports whether the client fails the round: the engine
	// contacts it and gets an error wrapping ErrUnavailable instead of an
	// update.
	Fail func(round, client int) bool
	// Corrupt is called in every local epoch after the backward pass; it
	// may overwrite the loss or entries of the parameters' gradients (to
	// inject NaN) before the client checks them.
	Corrupt func(round, client, epoch int, loss *float64, params []*gnn.Param)
}

// SetFaults sets the simulated client faults. Call it before the first
// round: the dropout probability is part of a run's settings, recorded in
// its checkpoints and run line (as client_dropout). A dropout out of
// range, or one a strategy cannot take, is a *SettingError with the key
// client_dropout.
func (e *Engine) SetFaults(f Faults) error {
	if !(f.Dropout >= 0 && f.Dropout < 1) {
		return &SettingError{"client_dropout", fmtFloat(f.Dropout), "0 <= p < 1"}
	}
	absences := f.Dropout > 0 || (f.Hooks != nil && (f.Hooks.Absent != nil || f.Hooks.Fail != nil))
	if pm, ok := e.strategy.(PartialMixer); absences && mayKeepState(e.strategy) && (!ok || !pm.MixesPartialRounds()) {
		why := fmt.Sprintf("strategy %s keeps per-client state across rounds and does not declare that it can mix a round some clients missed", e.cfg.Algo)
		if f.Dropout > 0 {
			return &SettingError{"client_dropout", fmtFloat(f.Dropout), "0: " + why}
		}
		return errors.New("sim: Faults.Hooks: " + why)
	}
	e.faults = f
	for _, r := range e.runners {
		if c, ok := r.(*Client); ok {
			c.hooks = f.Hooks
		}
	}
	return nil
}

// Faults returns the simulated client faults.
func (e *Engine) Faults() Faults { return e.faults }

// absenceStream returns the source of the dropout draws, created on first use.
func (e *Engine) absenceStream() *rand.PCG {
	if e.absence == nil {
		e.absence = rand.NewPCG(e.cfg.Seed, StreamKey("absence", 0))
	}
	return e.absence
}

// drawAbsent decides which clients miss the round: nil when none can.
// With Dropout > 0 it draws one number per client, in client order, every
// round.
func (e *Engine) drawAbsent(round int) []bool {
	k := len(e.runners)
	var out []bool
	if p := e.faults.Dropout; p > 0 {
		rng := rand.New(e.absenceStream())
		out = make([]bool, k)
		for i := range out {
			out[i] = rng.Float64() < p
		}
	}
	if h := e.faults.Hooks; h != nil && h.Absent != nil {
		if out == nil {
			out = make([]bool, k)
		}
		for i := range out {
			out[i] = out[i] || h.Absent(round, i)
		}
	}
	return out
}

// runRound runs client i's part of a round, or fails it when a hook says so.
func (e *Engine) runRound(ctx context.Context, i int, msg *Message) (*Update, error) {
	if h := e.faults.Hooks; h != nil && h.Fail != nil && h.Fail(msg.Round, i) {
		return nil, fmt.Errorf("client %d: %w (injected failure)", i, ErrUnavailable)
	}
	return e.runners[i].Round(ctx, msg)
}

// present returns the updates of the clients that took part, in client
// order, and the ids of those that did not (nil when all did).
func (e *Engine) present(ups []*Update) ([]*Update, []int) {
	var in []*Update
	var missing []int
	for i, u := range ups {
		if u == nil {
			missing = append(missing, e.data.Clients[i].ID)
			continue
		}
		in = append(in, u)
	}
	return in, missing
}

// spread places the messages computed for the clients present at their
// clients' positions; an absent client gets none. msgs nil (no
// communication) stays nil.
func spread(msgs []*Message, ups []*Update) []*Message {
	if msgs == nil || len(msgs) == len(ups) {
		return msgs
	}
	out := make([]*Message, len(ups))
	j := 0
	for i, u := range ups {
		if u != nil {
			out[i] = msgs[j]
			j++
		}
	}
	return out
}

// fillAbsent completes the report of a round that some clients missed:
// Clients gets one entry per client in id order, an absent client's entry
// repeating its last measured metrics (its model has not changed since)
// with Absent set; the matrices become K x K with the rows and columns of
// absent clients zero but for a 1 on the diagonal (an absent client keeps
// its own parameters); Alphas gets 0 for them. When nobody took part the
// means repeat the previous round's.
func (e *Engine) fillAbsent(rep *RoundReport, ups []*Update) {
	k := len(ups)
	idx := make([]int, 0, k) // positions of the clients present
	for i, u := range ups {
		if u != nil {
			idx = append(idx, i)
		}
	}
	var prev *RoundReport
	if n := len(e.reports); n > 0 {
		prev = e.reports[n-1]
	}
	clients := make([]ClientMetrics, k)
	for j, i := range idx {
		clients[i] = rep.Clients[j]
	}
	for i, u := range ups {
		if u != nil {
			continue
		}
		c := ClientMetrics{ID: e.data.Clients[i].ID, Nodes: e.data.Clients[i].Graph.N()}
		if prev != nil && i < len(prev.Clients) {
			c = prev.Clients[i]
		}
		c.Absent, c.Probe = true, nil // no probe of a round missed
		clients[i] = c
	}
	rep.Clients = clients
	if len(idx) == 0 {
		rep.MeanVal, rep.MeanTest = 0, 0
		if prev != nil {
			rep.MeanVal, rep.MeanTest = prev.MeanVal, prev.MeanTest
		}
	}
	rep.Similarity = expand(rep.Similarity, idx, k)
	rep.Weights = expand(rep.Weights, idx, k)
	rep.GroundTruth = expand(rep.GroundTruth, idx, k)
	for name, m := range rep.Views {
		rep.Views[name] = expand(m, idx, k)
	}
	if rep.Alphas != nil {
		a := make([]float64, k)
		for j, i := range idx {
			a[i] = rep.Alphas[j]
		}
		rep.Alphas = a
	}
}

// expand turns a matrix over the clients at positions idx into a k x k
// one, zero elsewhere but for a 1 on the diagonal. nil stays nil.
func expand(m [][]float64, idx []int, k int) [][]float64 {
	if m == nil {
		return nil
	}
	out := make([][]float64, k)
	for i := range out {
		out[i] = make([]float64, k)
		out[i][i] = 1
	}
	for a, i := range idx {
		for b, j := range idx {
			out[i][j] = m[a][b]
		}
	}
	return out
}

// plainStep reports whether an epoch's gradients go from the backward
// pass to the optimiser untouched: no proximal term, strategy hook,
// clipping, noise or Corrupt hook.
func (c *Client) plainStep() bool {
	return c.side.ProxMu == 0 && c.hook == nil && c.side.LDP == nil && (c.hooks == nil || c.hooks.Corrupt == nil)
}

// fusedStep checks the epoch's loss and takes the backward pass, the
// check of every gradient and the optimiser's step in one
// (gnn.Model.BackwardStep), reporting what checkEpoch would. With eval
// it then evaluates the stepped model (gnn.Model.StepEvaluate) and
// returns the logits.
func (c *Client) fusedStep(round, epoch int, loss float64, eval bool) (logits *mat.Dense, err error) {
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return nil, &NonFiniteError{Client: c.ID, Round: round, Epoch: epoch, What: "training loss", Value: loss}
	}
	if eval {
		logits, err = c.model.StepEvaluate(c.dl, c.opt, c.input)
	} else {
		err = c.model.BackwardStep(c.dl, c.opt)
	}
	if e, ok := err.(*gnn.NonFiniteGradError); ok {
		return nil, &NonFiniteError{Client: c.ID, Round: round, Epoch: epoch, What: fmt.Sprintf("gradient of %s entry %d", e.Param, e.Entry), Value: e.Value}
	}
	if err != nil {
		return nil, fmt.Errorf("client %d: %w", c.ID, err)
	}
	return logits, nil
}

// checkEpoch runs the Corrupt hook and then checks the epoch's loss and
// every gradient for NaN and infinities.
func (c *Client) checkEpoch(round, epoch int, loss float64) error {
	params := c.model.Params()
	if h := c.hooks; h != nil && h.Corrupt != nil {
		h.Corrupt(round, c.ID, epoch, &loss, params)
	}
	bad := func(what string, v float64) error {
		return &NonFiniteError{Client: c.ID, Round: round, Epoch: epoch, What: what, Value: v}
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return bad("training loss", loss)
	}
	for _, p := range params {
		if i := vec.FirstNonFinite(p.Grad[:len(p.Value)]); i >= 0 {
			return bad(fmt.Sprintf("gradient of %s entry %d", p.Name, i), p.Grad[i])
		}
	}
	return nil
}

// Validate reports what New would refuse in d before it builds anything:
// nil data, no client, two clients with the same ID, a client whose
// graph, labels, features or split do not hold together, one with no
// training, validation or test node (SplitRoles), a metric that is not
// one of the Metric constants, or one the clients' labels cannot give.
func (d *Data) Validate() error {
	if d == nil {
		return errors.New("sim: nil Data")
	}
	if len(d.Clients) == 0 {
		return errors.New("sim: no clients")
	}
	if d.Metric != Accuracy && d.Metric != ROCAUC {
		return fmt.Errorf("sim: Data.Metric = %d, want Accuracy or ROCAUC", int(d.Metric))
	}
	if err := validateData(d); err != nil {
		return err
	}
	for _, c := range d.Clients {
		if _, _, _, err := SplitRoles(c); err != nil {
			return fmt.Errorf("sim: %w", err)
		}
	}
	return validateMetric(d)
}

// validateData checks what a run federates before any training: every
// client non-empty, with its own ID, one label and one role per node,
// labels in [0, NumClasses), roles Train, Val or Test, features of the
// declared width and finite, and a well-formed adjacency.
func validateData(d *Data) error {
	if d.NumFeatures < 1 || d.NumClasses < 1 {
		return fmt.Errorf("sim: %d features and %d classes, want at least 1 of each", d.NumFeatures, d.NumClasses)
	}
	index := make(map[int]int, len(d.Clients)) // ID -> index in Clients
	for i, c := range d.Clients {
		if c == nil || c.Graph == nil || c.Graph.Adj == nil {
			return fmt.Errorf("sim: client %d has no graph", i)
		}
		if j, ok := index[c.ID]; ok {
			return fmt.Errorf("sim: client %d twice: Clients[%d].ID and Clients[%d].ID are both %d", c.ID, j, i, c.ID)
		}
		index[c.ID] = i
		g := c.Graph
		n := g.N()
		switch {
		case g.Features == nil && g.Dense == nil:
			return fmt.Errorf("sim: client %d has no features (Graph.Features and Graph.Dense are nil)", c.ID)
		case n == 0:
			return fmt.Errorf("sim: client %d is empty (no node)", c.ID)
		case len(g.Labels) != n:
			return fmt.Errorf("sim: client %d has %d labels for %d nodes", c.ID, len(g.Labels), n)
		case len(c.Roles) != n:
			return fmt.Errorf("sim: client %d has %d split roles for %d nodes", c.ID, len(c.Roles), n)
		case g.NumFeatures() != d.NumFeatures:
			return fmt.Errorf("sim: client %d has %d features, the data declares %d", c.ID, g.NumFeatures(), d.NumFeatures)
		}
		if err := g.Adj.Validate(); err != nil {
			return fmt.Errorf("sim: client %d adjacency: %w", c.ID, err)
		}
		for v, y := range g.Labels {
			if y < 0 || y >= d.NumClasses {
				return fmt.Errorf("sim: client %d: label %d of node %d out of range [0,%d)", c.ID, y, v, d.NumClasses)
			}
		}
		for v, r := range c.Roles {
			if r != graphio.Train && r != graphio.Val && r != graphio.Test {
				return fmt.Errorf("sim: client %d: Roles[%d] = %d, want Train, Val or Test", c.ID, v, r)
			}
		}
		var x []float64
		if g.Dense != nil {
			if r, _ := g.Dense.Dims(); r != n {
				return fmt.Errorf("sim: client %d has %d feature rows for %d nodes", c.ID, r, n)
			}
			for v := range n {
				if err := finite(c.ID, g.Dense.RawRowView(v)); err != nil {
					return err
				}
			}
		} else {
			if g.Features == nil || g.Features.Rows != n {
				return fmt.Errorf("sim: client %d has no feature row per node", c.ID)
			}
			if err := g.Features.Validate(); err != nil {
				return fmt.Errorf("sim: client %d features: %w", c.ID, err)
			}
			x = g.Features.Values
		}
		if err := finite(c.ID, x); err != nil {
			return err
		}
	}
	return nil
}

// finite reports the first NaN or infinity among a client's feature values.
func finite(id int, x []float64) error {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sim: client %d: a feature value is %v", id, v)
		}
	}
	return nil
}
