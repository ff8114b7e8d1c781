package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// RollbackEvery is how often, in rounds, an engine with rollback on
// (SetRollback) keeps its state in memory: at the start of rounds 1,
// RollbackEvery+1, 2*RollbackEvery+1, ... A rollback returns to the
// last state kept and recomputes the rounds since (fewer than
// RollbackEvery), which the engine's determinism makes bit-identical;
// so a round costs the copy of every client's state only once in
// RollbackEvery rounds.
const RollbackEvery = 10

// SetRollback turns on (or off) keeping the state that Rollback needs to
// undo a failed round (see RollbackEvery). It changes no number of a run.
// A strategy that may keep state without saving it (see Stateful), or a
// client that cannot be checkpointed, cannot be rolled back:
// SetRollback(true) then fails.
func (e *Engine) SetRollback(on bool) error {
	if !on {
		e.rollback, e.kept = false, nil
		return nil
	}
	if _, ok := e.strategy.(Stateful); !ok && mayKeepState(e.strategy) {
		return fmt.Errorf("sim: strategy %s may keep state it cannot save (%s): its rounds cannot be rolled back; %s", e.cfg.Algo, keepsState(e.strategy), stateHint)
	}
	for i, r := range e.runners {
		if _, ok := r.(clientCheckpointer); !ok {
			return fmt.Errorf("sim: client %d: its runner (%T) cannot be rolled back", i, r)
		}
	}
	e.rollback = true
	return nil
}

// Broken returns the error that stopped the engine, or nil.
func (e *Engine) Broken() error { return e.broken }

// ErrNoRollback is returned by Rollback when there is nothing to undo:
// rollback is off, or no round has failed.
var ErrNoRollback = errors.New("sim: no failed round to roll back")

// keep takes the state kept for Rollback at the start of a round, when
// one is due (see RollbackEvery).
func (e *Engine) keep() error {
	if !e.rollback || e.recomputing || len(e.reports)%RollbackEvery != 0 {
		return nil
	}
	return e.keepNow()
}

// keepNow takes the state kept for Rollback now, whatever the round (a
// fork keeps the state it starts from, so that its first rounds can be
// rolled back too).
func (e *Engine) keepNow() error {
	ck, err := e.state(false)
	if err != nil {
		return err
	}
	// The pending messages may share memory with the clients' upload
	// buffers, which the next rounds overwrite: keep copies.
	for i, p := range ck.Pending {
		ck.Pending[i].Shared = slices.Clone(p.Shared)
	}
	ck.Reports = slices.Clone(ck.Reports)
	ck.Controls = slices.Clone(ck.Controls)
	e.kept = ck
	return nil
}

// Rollback undoes a round that failed, with rollback on (SetRollback):
// the engine returns to the state kept last, recomputes the good rounds
// since (the knob changes applied as they were), checks that each
// recomputed round equals the one reported, bit for bit, and stands
// after its last good round with the error cleared, the knobs as they
// are now and its reports, knob history and run log unchanged (a failed
// round writes no round line); the next Step runs the failed round
// again. It returns the number of rounds completed and of rounds
// recomputed. ctx bounds the recomputation; OnProgress is not called.
func (e *Engine) Rollback(ctx context.Context) (rounds, recomputed int, err error) {
	if !e.busy.CompareAndSwap(false, true) {
		return 0, 0, ErrBusy
	}
	defer e.busy.Store(false)
	ck := e.kept
	good := len(e.reports)
	if e.broken == nil || ck == nil || ck.Round > good {
		return good, 0, ErrNoRollback
	}
	reports, controls, knobs, faults := e.reports, e.controls, e.knobs, e.faults
	log, prog, want := e.log, e.OnProgress, e.want
	fail := func(err error) (int, int, error) {
		e.broken = fmt.Errorf("rollback failed: %w", err)
		e.reports, e.controls, e.knobs, e.log, e.OnProgress = reports, controls, knobs, log, prog
		return good, 0, fmt.Errorf("sim: rollback: %w", err)
	}
	// restore sets what a fresh engine lacks; what this one has beyond
	// the kept state goes first. The kept messages are copied, so that
	// the rounds recomputed do not write into them.
	kept := *ck
	kept.Pending = slices.Clone(ck.Pending)
	for i, p := range kept.Pending {
		kept.Pending[i].Shared = slices.Clone(p.Shared)
	}
	e.pending, e.absence = nil, nil
	if err := e.restore(&kept); err != nil {
		return fail(err)
	}
	if err := e.SetFaults(faults); err != nil {
		return fail(err)
	}
	e.reports = slices.Clone(ck.Reports)
	e.broken, e.log, e.OnProgress, e.recomputing = nil, nil, nil, true
	e.Want() // the recomputed rounds are compared, not shown
	defer func() {
		e.recomputing = false
		e.wantMu.Lock()
		e.want = want
		e.wantMu.Unlock()
	}()
	next := len(ck.Controls)
	for r := ck.Round + 1; r <= good; r++ {
		for ; next < len(controls) && controls[next].Round <= r; next++ {
			if err := e.setKnob(controls[next].Name, controls[next].To); err != nil {
				return fail(fmt.Errorf("recomputing round %d: %w", r, err))
			}
		}
		rep, err := e.step(ctx)
		if err != nil {
			return fail(fmt.Errorf("recomputing round %d: %w", r, err))
		}
		if d := sameRound(rep, reports[r-1]); d != "" {
			return fail(fmt.Errorf("round %d recomputed differs from the round reported: %s", r, d))
		}
	}
	e.reports, e.controls, e.knobs, e.log, e.OnProgress = reports, controls, knobs, log, prog
	if err := e.tune(); err != nil { // a live setting changed since the failure
		return fail(err)
	}
	return good, good - ck.Round, nil
}

// setKnob sets a knob's value without validating or logging it; a live
// method setting rebuilds the strategy (retune), and on error the knobs
// stay as they were.
func (e *Engine) setKnob(name Knob, v float64) error {
	old := e.knobs
	e.knobs = e.knobs.With(name, v)
	if liveSetting(string(name)) == nil {
		return nil
	}
	if err := e.retune(); err != nil {
		e.knobs = old
		return err
	}
	return nil
}

// sameRound returns "" when two reports of a round agree in what the
// engine computes (knobs, every client's metrics, the means, the
// similarity, weights and per-client alphas), else the first difference.
func sameRound(a, b *RoundReport) string {
	switch {
	case a.Alpha != b.Alpha || a.Sigma != b.Sigma:
		return "knobs"
	case a.MeanVal != b.MeanVal || a.MeanTest != b.MeanTest:
		return fmt.Sprintf("mean accuracies %v/%v, reported %v/%v", a.MeanVal, a.MeanTest, b.MeanVal, b.MeanTest)
	case !slices.EqualFunc(a.Clients, b.Clients, func(x, y ClientMetrics) bool {
		return x.ID == y.ID && x.TrainLoss == y.TrainLoss && x.ValAcc == y.ValAcc && x.TestAcc == y.TestAcc && x.Absent == y.Absent
	}):
		return "client metrics"
	case !slices.EqualFunc(a.Weights, b.Weights, slices.Equal) || !slices.EqualFunc(a.Similarity, b.Similarity, slices.Equal):
		return "weights or similarity"
	case !slices.Equal(a.Alphas, b.Alphas):
		return "per-client alphas"
	}
	return ""
}

// ReadsKnob reports whether the engine's algorithm reads the live knob
// name: alpha and auto alpha's partners only the algorithms that mix by
// a temperature (see AlgorithmSettings), sigma only models with the
// kernel head of Eq. 5 (not FedAux_hard's hard assignment, not the
// baselines without an APV), a live method setting only the method that
// declares it. alpha, sigma and partners may be set when not read (they
// change nothing); a live setting of another method may not.
func (e *Engine) ReadsKnob(name Knob) bool {
	switch name {
	case KnobSigma:
		return e.sigmaRead
	case KnobAlpha, KnobPartners:
		return slices.Contains(AlgorithmSettings(e.cfg.Algo), string(name))
	}
	return e.readsLive(name)
}

// Fork returns a second engine in this engine's state: the same
// settings, clients, optimiser moments, random streams, strategy state,
// pending messages, knobs and reports, so that with the same knobs its
// rounds are bit for bit this engine's; from then on the two are
// independent (each has its own knobs). Call it between rounds. log,
// when not nil, must be empty: it receives the run line (Meta's Header,
// see SetMeta, else Header's) and the lines of the rounds so far, then
// the fork's.
// Fault hooks, wanted views and rollback carry over; with rollback on,
// the fork keeps the state it starts from for Rollback.
func (e *Engine) Fork(log *RunLog) (*Engine, error) {
	ck, err := e.state(false)
	if err != nil {
		return nil, fmt.Errorf("sim: fork: %w", err)
	}
	ck.Pending = slices.Clone(ck.Pending)
	for i, p := range ck.Pending {
		ck.Pending[i].Shared = slices.Clone(p.Shared)
	}
	ck.Reports, ck.Controls = slices.Clone(ck.Reports), slices.Clone(ck.Controls)
	if ck.Meta.Header, err = e.runLine(); err != nil {
		return nil, fmt.Errorf("sim: fork: %w", err)
	}
	f, err := ck.Resume(e.data, log)
	if err != nil {
		return nil, fmt.Errorf("sim: fork: %w", err)
	}
	if err := e.passOn(f); err != nil {
		return nil, fmt.Errorf("sim: fork: %w", err)
	}
	return f, nil
}

// passOn gives a fork f of e what a checkpoint does not carry: e's
// simulated faults, the signatures it computes, and its rollback, with
// f's own state as the first to roll back to.
func (e *Engine) passOn(f *Engine) error {
	if err := f.SetFaults(e.faults); err != nil {
		return err
	}
	e.wantMu.Lock()
	f.want = e.want
	e.wantMu.Unlock()
	if !e.rollback {
		return nil
	}
	if err := f.SetRollback(true); err != nil {
		return err
	}
	return f.keepNow()
}
