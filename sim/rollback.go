package sim

import (
	"errors"
	"fmt"
	"slices"
)

// undo is the engine's state at the start of the round in flight, kept
// while rollback is on (SetRollback) so that a failed round can be
// undone (Rollback).
type undo struct {
	round   int // rounds completed when it was taken
	clients []*ClientState
	// pending holds a copy of each client's message for the round: the
	// message's values may share memory with the client's upload
	// buffer, which its training overwrites.
	pending  [][]float64
	absence  []byte
	strategy []byte
}

// SetRollback turns on (or off) keeping, at the start of every round,
// what the round changes: each client's state (taken by the client's
// own worker, beside its training), the dropout draws' stream and a
// stateful strategy's state. With it on, Rollback can undo a round that
// failed. It changes no number of a run; it costs a copy of every
// client's parameters and optimiser moments a round, so a headless run
// leaves it off. A strategy that may keep state without saving it (see
// Stateful) cannot be rolled back: SetRollback(true) then fails.
func (e *Engine) SetRollback(on bool) error {
	if !on {
		e.rollback, e.undo = false, nil
		return nil
	}
	if _, ok := e.strategy.(Stateful); !ok && mayKeepState(e.strategy) {
		return fmt.Errorf("sim: strategy %s keeps state it cannot save: its rounds cannot be rolled back", e.strategy.Name())
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

// Rollback undoes a round that failed, with rollback on (SetRollback):
// every client, the dropout draws and the strategy return to where the
// round started, the error is cleared, and the engine stands after its
// last good round, as if the failed round had never started; the next
// Step runs it again, bit for bit as it would have run then (with the
// knobs as they are now). The run log is unchanged: a failed round
// writes no round line. It returns the number of rounds completed.
func (e *Engine) Rollback() (int, error) {
	u := e.undo
	if e.broken == nil || u == nil || u.round != len(e.reports) {
		return len(e.reports), ErrNoRollback
	}
	for i, s := range u.clients {
		if s == nil {
			continue // the client had not started (or was absent)
		}
		if err := e.runners[i].(clientCheckpointer).SetState(*s); err != nil {
			return len(e.reports), fmt.Errorf("sim: rollback: %w", err)
		}
		if p := u.pending[i]; p != nil {
			copy(e.pending[i].Shared, p)
		}
	}
	if u.absence != nil {
		if err := e.absence.UnmarshalBinary(u.absence); err != nil {
			return len(e.reports), fmt.Errorf("sim: rollback: absence stream: %w", err)
		}
	} else {
		e.absence = nil
	}
	if ss, ok := e.strategy.(Stateful); ok && u.strategy != nil {
		if err := ss.UnmarshalState(u.strategy); err != nil {
			return len(e.reports), fmt.Errorf("sim: rollback: strategy %s: %w", e.strategy.Name(), err)
		}
	}
	e.broken, e.undo = nil, nil
	return len(e.reports), nil
}

// beginUndo records the engine-wide part of the undo state at the start
// of a round (the clients add theirs in runClients).
func (e *Engine) beginUndo() error {
	if !e.rollback {
		return nil
	}
	k := len(e.runners)
	u := &undo{round: len(e.reports), clients: make([]*ClientState, k), pending: make([][]float64, k)}
	if e.absence != nil {
		b, err := e.absence.MarshalBinary()
		if err != nil {
			return err
		}
		u.absence = b
	}
	if ss, ok := e.strategy.(Stateful); ok {
		b, err := ss.MarshalState()
		if err != nil {
			return fmt.Errorf("strategy %s: %w", e.strategy.Name(), err)
		}
		u.strategy = b
	}
	e.undo = u
	return nil
}

// saveClient records client i's state before its part of the round; it
// runs in the client's worker, and touches only entry i.
func (e *Engine) saveClient(i int) error {
	if e.undo == nil {
		return nil
	}
	s, err := e.runners[i].(clientCheckpointer).State()
	if err != nil {
		return err
	}
	e.undo.clients[i] = &s
	if e.pending != nil && e.pending[i] != nil {
		e.undo.pending[i] = append([]float64(nil), e.pending[i].Shared...)
	}
	return nil
}

// ReadsKnob reports whether the engine's algorithm reads the live knob
// name: alpha and auto alpha's partners only the algorithms that mix by
// a temperature (see AlgorithmSettings), sigma only models with the
// kernel head of Eq. 5 (not FedAux_hard's hard assignment, not the
// baselines without an APV). A knob that is not read may still be set;
// it changes nothing.
func (e *Engine) ReadsKnob(name Knob) bool {
	switch name {
	case KnobSigma:
		return e.sigmaRead
	case KnobAlpha, KnobPartners:
		return slices.Contains(AlgorithmSettings(e.cfg.Algo), string(name))
	}
	return false
}
