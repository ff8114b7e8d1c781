package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/internal/share"
)

// Data is what a run federates: the clients' induced subgraphs and the
// facts the model needs about them.
type Data struct {
	Clients     []*graphio.Client
	NumFeatures int
	NumClasses  int
	// Groups gives each client's true group when the scenario has one
	// (synthetic SBM); nil otherwise. For display and scoring only.
	Groups []int
	// Metric is how clients score their validation and test nodes
	// (Accuracy unless the dataset calls for ROC AUC).
	Metric Metric
}

// ClientMetrics are one client's numbers in a round.
type ClientMetrics struct {
	ID        int     `json:"id"`
	Nodes     int     `json:"nodes"`
	TrainLoss float64 `json:"train_loss"`
	ValAcc    float64 `json:"val_acc"`
	TestAcc   float64 `json:"test_acc"`
	// Alignment is |cos(APV, pc1)| after the client's training in the
	// round (see WantAlignment); nil when not asked for or without an APV.
	Alignment *float64 `json:"alignment,omitempty"`
	// AlignmentInit, set with Alignment, is its control: |cos(APV, pc1)|
	// with the APV the run started from in place of the trained one.
	AlignmentInit *float64 `json:"alignment_init,omitempty"`
	// Generated is the number of generated neighbours in the client's
	// mended graph: FedSage+ and FedSage+APV from the round that ends the
	// generator phase on (the graph the next rounds train on); 0 before
	// and for the other algorithms.
	Generated int `json:"generated,omitempty"`
	// Probe is the client's probe of the round (see WantProbe); nil when
	// not asked for. Kept in memory and in checkpoints, not logged.
	Probe *Probe `json:"-"`
	// Absent marks a client that missed the round; its metrics are those
	// of the last round it took part in (its model has not changed since).
	Absent bool `json:"absent,omitempty"`
}

// RoundReport is everything one round produced.
type RoundReport struct {
	Round   int             `json:"round"`
	Alpha   float64         `json:"alpha"`
	Sigma   float64         `json:"sigma"`
	Clients []ClientMetrics `json:"clients"`
	// Missing lists the ids of the clients that missed the round (see
	// Faults); they are left out of its aggregation and of its means.
	Missing []int   `json:"missing,omitempty"`
	MeanVal float64 `json:"mean_val"`
	// MeanTest is the unweighted mean over clients of test accuracy (%).
	MeanTest float64 `json:"mean_test"`
	// Similarity is the strategy's client similarity (APV cosine, Eq. 3); nil if none.
	Similarity [][]float64 `json:"similarity"`
	// Weights is the mixing matrix applied after this round (Eq. 4); nil if none.
	Weights [][]float64 `json:"weights"`
	// Alphas holds the per-client alpha chosen by auto alpha; nil otherwise.
	Alphas []float64 `json:"alphas,omitempty"`
	// Clusters lists GCFL's client clusters after the round, as client
	// ids; ClusterNorms their split statistics before it. nil otherwise.
	Clusters     [][]int       `json:"clusters,omitempty"`
	ClusterNorms []ClusterNorm `json:"cluster_norms,omitempty"`
	// GroundTruth is the cosine of clients' mean-pooled embeddings (display only).
	GroundTruth [][]float64 `json:"ground_truth"`
	// WeightsFrom names the view the weights were derived from ("" when
	// none did).
	WeightsFrom Source `json:"weights_from,omitempty"`
	// Views holds the similarity matrix of every signature (see Sources),
	// whichever set the weights; kept in memory, not logged. Matrices
	// lists them with the report's other matrices.
	Views   map[Source][][]float64 `json:"-"`
	Seconds float64                `json:"seconds"`
	// Phase names the round's phase for algorithms that have phases
	// (FedSage+: "neighgen", then "fedavg"); "" otherwise.
	Phase string `json:"phase,omitempty"`

	matrices []Matrix // built once (Matrices); not saved in checkpoints
}

// ErrBusy is returned by a Step, Run or Rollback called while another
// one runs on the same engine.
var ErrBusy = errors.New("sim: engine busy: a round is already running (an Engine is not safe for concurrent use)")

// Engine runs a federation round by round.
//
// An Engine is not safe for concurrent use: call its methods from one
// goroutine at a time. Want is the exception: it may be called while a
// round runs. A Step, Run or Rollback called while another one runs
// returns ErrBusy instead of racing with it.
type Engine struct {
	busy     atomic.Bool // a Step, Run or Rollback is running
	cfg      Config
	data     *Data
	strategy Strategy
	runners  []ClientRunner
	knobs    Knobs
	tuned    Options // the method's settings the strategy was built with (see retune)
	pending  []*Message
	reports  []*RoundReport
	log      *RunLog
	broken   error
	faults   Faults
	absence  *rand.PCG    // source of the dropout draws; nil until used
	controls []KnobChange // knob history, for checkpoints
	meta     Meta         // how to rebuild the scenario, for checkpoints
	dataSum  string       // dataFingerprint, computed on first use
	kernel   bool         // the clients' models have an APV
	// sigmaRead: the clients' models have the kernel head (ReadsKnob).
	sigmaRead   bool
	rollback    bool        // SetRollback
	kept        *Checkpoint // the state kept for Rollback (in memory)
	recomputing bool        // Rollback is recomputing rounds
	logStarted  bool        // the log has its run line (see logWrite)

	// took is each client's wall time for its part of the last round it
	// ran, from which runClients orders the next round's clients.
	took []time.Duration

	wantMu sync.Mutex // guards want, which Want sets while a round may run
	want   wantSet
	proxy  *gnn.Input // FED-PUB's proxy graph; nil until a round asks for the functional view

	// OnProgress, when set, is called after each client finishes its part
	// of a round, with the number done so far; it may be called from
	// several goroutines at once.
	OnProgress func(done, total int)
}

// New builds an engine: one model initialisation shared by all clients
// (round 1 starts every client from the same parameters), one client per
// subgraph, and the strategy named by cfg.Algo. log may be nil. A log
// starts with its run line: a caller that has its own (presets.Header
// names the scenario and its data files) writes it before the first
// round, and SetMeta it for checkpoints and forks; when the engine
// writes the log's first line (a round, a knob change or the summary)
// it writes the run line first, Meta's Header or Header's.
func New(cfg Config, data *Data, log *RunLog) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := data.Validate(); err != nil {
		return nil, err
	}
	if err := checkModelMemory(&cfg, data); err != nil {
		return nil, err
	}
	if err := ValidateKnob("partners", cfg.Partners, len(data.Clients)); err != nil {
		return nil, err
	}
	st, err := newStrategy(&cfg)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	mcfg := modelConfig(&cfg, data, st)
	init, err := gnn.NewModel(mcfg, Stream(cfg.Seed, "init", 0))
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	e := &Engine{cfg: cfg, data: data, strategy: st, log: log, knobs: Knobs{Alpha: cfg.Alpha, Sigma: cfg.Sigma, Partners: cfg.Partners, Settings: cfg.Options}, tuned: cfg.Options, kernel: mcfg.Kernel, sigmaRead: mcfg.Kernel && !mcfg.Hard}
	if err := e.checkUses(); err != nil {
		return nil, err
	}
	if b, ok := st.(RunnerBuilder); ok { // clients of its own (FedSage+)
		if e.runners, err = b.BuildRunners(&cfg, data); err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		return e, nil
	}
	// Goroutines inside one client: the cores the client pool leaves idle.
	inner := max(1, runtime.GOMAXPROCS(0)/min(cfg.NumWorkers(), len(data.Clients)))
	// Scratch memory for the clients that train at once, shared by all.
	scratch := make(chan *gnn.Scratch, min(cfg.NumWorkers(), len(data.Clients)))
	for range cap(scratch) {
		scratch <- new(gnn.Scratch)
	}
	usesKernel := mcfg.Kernel && !mcfg.Hard // only models with the kernel head build a kernel
	for _, c := range data.Clients {
		// Refused here rather than at the first forward pass, naming the
		// client.
		if n := int64(c.Graph.N()); cfg.Kernel == "dense" && usesKernel && n*n*8 > gnn.DefaultDenseBudget {
			return nil, &SettingError{"kernel", string(cfg.Kernel), fmt.Sprintf("fast or auto: client %d has %d nodes; its %d MiB kernel matrix is over the %d MiB budget",
				c.ID, n, n*n*8>>20, gnn.DefaultDenseBudget>>20)}
		}
	}
	// The strategy is asked once; the clients are built on the workers
	// (most of their time is the first touch of their parameters' and
	// moments' pages), then given their hooks and scratch in order.
	side := clientSide(st)
	shares := make([]bool, len(init.Params()))
	for k, p := range init.Params() {
		shares[k] = st.Shares(p)
	}
	built := make([]*Client, len(data.Clients))
	errs := make([]error, len(data.Clients))
	forEach(sequence(len(data.Clients)), cfg.NumWorkers(), func(i int) {
		c := data.Clients[i]
		ccfg := mcfg
		ccfg.Gauss = ChooseGauss(cfg.Kernel, c.Graph.N(), inner)
		built[i], errs[i] = newClient(c, ccfg, init, side, shares, &cfg)
	})
	hooker, _ := st.(ClientHooker)
	for i, cl := range built {
		if errs[i] != nil {
			return nil, fmt.Errorf("sim: %w", errs[i])
		}
		if hooker != nil {
			cl.hook = hooker.ClientHook(i)
		}
		cl.scratch, cl.metric = scratch, data.Metric
		s := <-scratch // the model's gradients go to the shared scratch (or away)
		cl.model.Return(s)
		scratch <- s
		e.runners = append(e.runners, cl)
	}
	return e, nil
}

// forEach calls f(i) for every i of order on at most workers goroutines,
// the caller's among them, handing the indices out in that order, and
// returns when every call has. The engine's worker pools (building the
// clients, FedGNN's boundaries, the clients' rounds) are all this.
func forEach(order []int, workers int, f func(i int)) {
	share.Out(len(order), workers, func(tasks iter.Seq[int]) {
		for k := range tasks {
			f(order[k])
		}
	})
}

// sequence returns 0, 1, ..., n-1.
func sequence(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// DenseCrossover is the client size below which "-kernel auto" uses the
// dense kernel. gnn's BenchmarkKernelCrossover (one plan and three
// 8-column transforms, as an epoch uses them) measured the fast transform
// level with dense at N = 100 and 4.7 times faster at N = 250.
const DenseCrossover = 128

// ChooseGauss picks the kernel transform (-kernel) for a client of n
// nodes, as the engine does for its clients' APV kernels; inner is the
// number of goroutines the fast transform may use inside one client.
func ChooseGauss(kernel Kernel, n, inner int) gnn.Gauss {
	if kernel == KernelDense || (kernel == KernelAuto && n < DenseCrossover) {
		return gnn.Dense{}
	}
	return gnn.Fast{Workers: inner}
}

// Config returns the engine's settings (knobs as set at the start).
func (e *Engine) Config() Config { return e.cfg }

// Strategy returns the engine's strategy.
func (e *Engine) Strategy() Strategy { return e.strategy }

// Data returns what the engine federates.
func (e *Engine) Data() *Data { return e.data }

// Round returns the number of rounds completed.
func (e *Engine) Round() int { return len(e.reports) }

// Done reports whether the configured number of rounds has been run.
func (e *Engine) Done() bool { return len(e.reports) >= e.cfg.Rounds }

// Reports returns the reports of the rounds run so far, in a new slice.
// The reports are the engine's own, as Step returns them (Want completes
// the last one in place): read them, never change them, since Summary,
// checkpoints, forks and exports read the same reports.
func (e *Engine) Reports() []*RoundReport { return slices.Clone(e.reports) }

// Knobs returns the knob values that the next round will use.
func (e *Engine) Knobs() Knobs { return e.knobs }

// Summary returns the best-validation summary of the rounds run so far.
func (e *Engine) Summary() Summary { return Summarize(e.reports) }

// SetKnob validates a knob value ("alpha", "sigma", "partners" or a
// live setting of the run's method, see KnobNames), applies it from the
// next round on and logs the change as a control line.
func (e *Engine) SetKnob(name Knob, v float64) error {
	if err := ValidateKnob(name, v, len(e.runners)); err != nil {
		return err
	}
	live := liveSetting(string(name)) != nil
	if live && !e.readsLive(name) {
		return &SettingError{string(name), fmtFloat(v), fmt.Sprintf("a live setting of %s: %s", e.cfg.Algo, joinOr(liveKeys(e.cfg.Algo)))}
	}
	from := e.knobs.Value(name)
	if from == v {
		return nil
	}
	if err := e.setKnob(name, v); err != nil {
		return fmt.Errorf("sim: %s: %w", name, err)
	}
	c := KnobChange{Round: e.Round() + 1, Name: name, From: from, To: v}
	e.controls = append(e.controls, c)
	return e.logWrite(controlFor(c))
}

type controlLine struct {
	Type  string  `json:"type"`
	Round int     `json:"round"`
	Name  Knob    `json:"name"`
	From  float64 `json:"from"`
	To    float64 `json:"to"`
}

// Step runs one round: every client trains and evaluates (in parallel,
// Workers at a time), the strategy computes the mixing weights in client
// order, the server mixes the shared parameters for the next round, and the
// report is appended to the run log. After an error the engine refuses to
// go on, since clients may be half-way through the round.
//
// A panic in the round's code, the strategy's or a client's, ends the
// round with a *PanicError (wrapped) instead of the program.
func (e *Engine) Step(ctx context.Context) (*RoundReport, error) {
	if !e.busy.CompareAndSwap(false, true) {
		return nil, ErrBusy
	}
	defer e.busy.Store(false)
	return e.step(ctx)
}

// step is Step, with the engine held.
func (e *Engine) step(ctx context.Context) (rep *RoundReport, err error) {
	if e.broken != nil {
		return nil, fmt.Errorf("sim: engine stopped after an error: %w", e.broken)
	}
	if err := ctx.Err(); err != nil { // no client has started: nothing to undo
		return nil, fmt.Errorf("sim: round %d not started: %w", len(e.reports)+1, err)
	}
	defer func() {
		if r := recover(); r != nil {
			e.broken = panicked("the server", r)
			rep, err = nil, fmt.Errorf("sim: round %d: %w", len(e.reports)+1, e.broken)
		}
	}()
	return e.stepRound(ctx)
}

// stepRound is step's round.
func (e *Engine) stepRound(ctx context.Context) (*RoundReport, error) {
	if err := e.keep(); err != nil {
		return nil, fmt.Errorf("sim: round %d: %w", len(e.reports)+1, err)
	}
	start := time.Now()
	round := len(e.reports) + 1
	absent := e.drawAbsent(round)
	ask := e.request()
	if err := e.ensureProxy(ask.Signatures); err != nil {
		e.broken = err
		return nil, err
	}
	remote, err := e.exchange(ctx, round, absent) // FedGNN's expansion; nil for the others
	if err != nil {
		e.broken = err
		return nil, fmt.Errorf("sim: round %d: %w", round, err)
	}
	all, err := e.runClients(ctx, round, ask, absent, remote, e.broadcast(round, absent))
	if err != nil {
		e.broken = err
		return nil, fmt.Errorf("sim: round %d: %w", round, err)
	}
	// Absent clients are left out: the strategy mixes the others only.
	ups, missing := e.present(all)
	var vs map[Source][][]float64
	var m Mixing
	if len(ups) > 0 {
		vs, m = serverStep(e.strategy.Mix, ups, e.knobs, round)
		if err := m.check(len(ups)); err != nil {
			e.broken = fmt.Errorf("strategy %s: %w", e.cfg.Algo, err)
			return nil, fmt.Errorf("sim: round %d: %w", round, e.broken)
		}
	}
	e.pending = spread(mix(ups, m.W, e.cfg.NumWorkers()), all)
	rep := &RoundReport{
		Round: round, Alpha: e.knobs.Alpha, Sigma: e.knobs.Sigma, Missing: missing,
		Similarity: m.Similarity, Weights: m.W, Alphas: m.Alphas, Views: vs, WeightsFrom: m.Source,
		ClusterNorms: m.ClusterNorms, Phase: phaseOf(e.strategy, round),
	}
	for _, c := range m.Clusters {
		ids := make([]int, len(c))
		for i, p := range c {
			ids[i] = ups[p].ID
		}
		rep.Clusters = append(rep.Clusters, ids)
	}
	embs := make([][]float64, len(ups))
	for i, u := range ups {
		rep.Clients = append(rep.Clients, u.ClientMetrics)
		rep.MeanVal += u.ValAcc / float64(len(ups))
		rep.MeanTest += u.TestAcc / float64(len(ups))
		embs[i] = u.Embedding
	}
	if ask.Embedding {
		rep.GroundTruth = cosineMatrix(embs)
	}
	if missing != nil {
		e.fillAbsent(rep, all)
	}
	rep.buildMatrices()
	rep.Seconds = time.Since(start).Seconds()
	e.reports = append(e.reports, rep)
	if err := e.logWrite(roundLine{Type: "round", RoundReport: rep}); err != nil {
		e.broken = err
		return rep, err
	}
	return rep, nil
}

type roundLine struct {
	Type string `json:"type"`
	*RoundReport
}

// runClients runs every client's part of a round on a worker pool. Each
// client owns its state and random stream, so the results do not depend on
// the number of workers or on scheduling. Clients marked in absent (nil:
// none) are not run, and a client that fails with ErrUnavailable counts
// as absent: their updates are nil. ask says what the clients report
// beside their parameters (Message.Signatures, Embedding, Alignment and
// Probe); remote (nil:
// none) holds each client's relayed expansion (FedGNN).
func (e *Engine) runClients(ctx context.Context, round int, ask *Message, absent []bool, remote []*Remote, extra [][]float64) ([]*Update, error) {
	k := len(e.runners)
	ups := make([]*Update, k)
	errs := make([]error, k)
	var mu sync.Mutex
	done := 0
	if len(e.took) != k {
		e.took = make([]time.Duration, k)
	}
	// The clients present, longest first, ordered before the workers
	// write this round's times.
	var run []int
	for _, i := range longestFirst(e.took, e.data.Clients) {
		if absent != nil && absent[i] {
			done++ // counts as done for progress
			continue
		}
		run = append(run, i)
	}
	forEach(run, e.cfg.NumWorkers(), func(i int) {
		msg := &Message{Round: round, Sigma: e.knobs.Sigma, Signatures: ask.Signatures, Embedding: ask.Embedding, Alignment: ask.Alignment, Probe: ask.Probe}
		if e.pending != nil && e.pending[i] != nil {
			msg.Shared = e.pending[i].Shared
		}
		if remote != nil {
			msg.Remote = remote[i]
		}
		if extra != nil {
			msg.Extra = extra[i]
		}
		start := time.Now()
		func() {
			defer catch(fmt.Sprintf("client %d", e.data.Clients[i].ID), &errs[i])
			ups[i], errs[i] = e.runRound(ctx, i, msg)
		}()
		e.took[i] = time.Since(start)
		if e.OnProgress != nil {
			mu.Lock()
			done++
			n := done
			mu.Unlock()
			e.OnProgress(n, k)
		}
	})
	for i, err := range errs {
		if errors.Is(err, ErrUnavailable) {
			ups[i] = nil
		} else if err != nil {
			return nil, err
		}
	}
	return ups, nil
}

// longestFirst returns the order in which a round hands its clients to
// the workers: the longest part of the last round first, so that the
// round does not end with one worker on a long client while the others
// wait; ties (every client in the first round) the largest graph first,
// then in client order, so that the first clients a worker trains are the
// ones whose activations are the largest and the scratch memory the
// workers share (gnn.Scratch) is not outgrown and made again by the
// clients after them. The order changes no result: each client owns its
// state and its random stream.
func longestFirst(took []time.Duration, clients []*graphio.Client) []int {
	order := sequence(len(took))
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(took[b], took[a]); c != 0 {
			return c
		}
		return cmp.Compare(clients[b].Graph.N(), clients[a].Graph.N())
	})
	return order
}

// broadcast returns each client's Message.Extra for the round (nil when
// the strategy is no Broadcaster), asking in client order; absent clients
// are not asked.
func (e *Engine) broadcast(round int, absent []bool) [][]float64 {
	b, ok := e.strategy.(Broadcaster)
	if !ok {
		return nil
	}
	out := make([][]float64, len(e.runners))
	for i := range out {
		if absent == nil || !absent[i] {
			out[i] = b.Broadcast(round, i)
		}
	}
	return out
}

// Run steps until the configured number of rounds is done, calling
// onRound after each, and writes the summary line to the log.
func (e *Engine) Run(ctx context.Context, onRound func(*RoundReport)) (Summary, error) {
	if !e.busy.CompareAndSwap(false, true) {
		return Summary{}, ErrBusy
	}
	defer e.busy.Store(false)
	for !e.Done() {
		rep, err := e.step(ctx)
		if err != nil {
			return e.Summary(), err
		}
		if onRound != nil {
			onRound(rep)
		}
	}
	s := e.Summary()
	return s, e.logWrite(summaryLine{Type: "summary", Summary: s})
}

type summaryLine struct {
	Type string `json:"type"`
	Summary
}
