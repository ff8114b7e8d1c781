package study

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// Interrupts turns SIGINT and SIGTERM into a request to stop at the next
// round boundary (a study then checkpoints the cell in flight); a second
// signal cancels Context, which aborts the round in flight. If the
// process is still running five seconds after that (it was in work that
// does not watch Context: loading, planning), or at a third signal, it
// exits at once with status 128 + the signal's number; what it had
// written stays whole (logs are whole lines, other files are replaced by
// renaming).
type Interrupts struct {
	ctx    context.Context
	cancel context.CancelFunc
	sigs   chan os.Signal
	stop   chan struct{}
	quit   chan struct{}
	sig    atomic.Value // the first signal caught (os.Signal)
}

// CatchInterrupts starts catching SIGINT and SIGTERM, telling w what it
// does with each; call Release to stop.
func CatchInterrupts(w io.Writer) *Interrupts {
	it := NewInterrupts()
	signal.Notify(it.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-it.sigs:
			fmt.Fprintf(w, "\nfedaux: %v: finishing the round in flight, then saving a checkpoint (again to abort at once)\n", s)
			it.sig.Store(s)
			it.Stop()
		case <-it.quit:
			return
		}
		var s os.Signal
		select {
		case s = <-it.sigs:
			fmt.Fprintf(w, "\nfedaux: %v again: aborting\n", s)
			it.cancel()
		case <-it.quit:
			return
		}
		select {
		case s = <-it.sigs:
			fmt.Fprintf(w, "\nfedaux: %v a third time: exiting\n", s)
		case <-time.After(abortGrace):
			fmt.Fprintf(w, "\nfedaux: still running %v after the abort: exiting\n", abortGrace)
		case <-it.quit:
			return
		}
		exit(128 + signalNumber(s))
	}()
	return it
}

// abortGrace is how long the process may run on after a second signal
// before it exits.
var abortGrace = 5 * time.Second

// exit is os.Exit but in tests.
var exit = os.Exit

// signalNumber returns s's number (SIGINT 2, SIGTERM 15).
func signalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return 2
}

// NewInterrupts returns Interrupts that no signal reaches: Stop and
// Abort request them (tests, and callers with their own signals).
func NewInterrupts() *Interrupts {
	ctx, cancel := context.WithCancel(context.Background())
	return &Interrupts{ctx: ctx, cancel: cancel, sigs: make(chan os.Signal, 2), stop: make(chan struct{}), quit: make(chan struct{})}
}

// Context is cancelled by the second interrupt (or Abort).
func (it *Interrupts) Context() context.Context { return it.ctx }

// Stop asks for a stop at the next round boundary.
func (it *Interrupts) Stop() {
	select {
	case <-it.stop:
	default:
		close(it.stop)
	}
}

// Abort cancels the round in flight.
func (it *Interrupts) Abort() { it.cancel() }

// Stopped reports whether a stop has been requested.
func (it *Interrupts) Stopped() bool {
	if it == nil {
		return false
	}
	select {
	case <-it.stop:
		return true
	default:
		return false
	}
}

// ExitCode is the exit status of a process that an interrupt stopped:
// 128 plus the signal's number, as a shell reports a process a signal
// ended (130 for SIGINT, 143 for SIGTERM), so that a scheduler sees the
// work unfinished; 1 when it was stopped without a signal (Stop).
func (it *Interrupts) ExitCode() int {
	if s, ok := it.sig.Load().(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// Release stops catching signals.
func (it *Interrupts) Release() {
	signal.Stop(it.sigs)
	close(it.quit)
	it.cancel()
}
