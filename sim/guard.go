package sim

import (
	"fmt"
	"math"
	"runtime/debug"
)

// A PanicError is a panic in a round's code, a strategy's (Mix,
// Broadcast, a client hook) or the engine's own, caught so that the run
// stops with an error and the program, a study's other runs or the
// console go on. Where says what panicked ("client 3", "the server").
type PanicError struct {
	Where string
	Value any
	Stack []byte // the panicking goroutine's stack
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s: panic: %v\n\n%s", e.Where, e.Value, e.Stack)
}

// catch turns a panic into a *PanicError stored in *err: defer it.
func catch(where string, err *error) {
	if r := recover(); r != nil {
		*err = panicked(where, r)
	}
}

// panicked is the error of the panic r, recovered where it happened.
func panicked(where string, r any) *PanicError {
	return &PanicError{Where: where, Value: r, Stack: debug.Stack()}
}

// rowSumTolerance is how far a row of Mixing.W may sum from 1.
const rowSumTolerance = 1e-6

// check reports what is wrong with the Mixing a strategy returned for k
// clients present: W nil or k x k, finite, non-negative, each row summing
// to 1 (Eq. 6 mixes a convex combination); Similarity nil or k x k;
// Alphas nil or k long; Clusters positions in [0, k).
func (m *Mixing) check(k int) error {
	if m.W != nil {
		if err := square("W", m.W, k); err != nil {
			return err
		}
		for i, row := range m.W {
			sum := 0.0
			for j, w := range row {
				if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
					return fmt.Errorf("its Mixing.W[%d][%d] = %v, want a finite weight >= 0", i, j, w)
				}
				sum += w
			}
			if math.Abs(sum-1) > rowSumTolerance {
				return fmt.Errorf("its Mixing.W's row %d sums to %v, want 1 (W is row-stochastic)", i, sum)
			}
		}
	}
	if m.Similarity != nil {
		if err := square("Similarity", m.Similarity, k); err != nil {
			return err
		}
	}
	if m.Alphas != nil && len(m.Alphas) != k {
		return fmt.Errorf("its Mixing.Alphas has %d values, want one per client present (%d)", len(m.Alphas), k)
	}
	for c, cl := range m.Clusters {
		for _, p := range cl {
			if p < 0 || p >= k {
				return fmt.Errorf("its Mixing.Clusters[%d] holds position %d, want one in [0, %d)", c, p, k)
			}
		}
	}
	return nil
}

// square reports whether a is k x k.
func square(name string, a [][]float64, k int) error {
	if len(a) != k {
		return fmt.Errorf("its Mixing.%s has %d rows, want %d (one per client present)", name, len(a), k)
	}
	for i, row := range a {
		if len(row) != k {
			return fmt.Errorf("its Mixing.%s's row %d has %d entries, want %d", name, i, len(row), k)
		}
	}
	return nil
}
