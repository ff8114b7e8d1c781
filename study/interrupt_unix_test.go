//go:build unix

package study

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestInterruptsExit: after a second SIGINT the process exits with 130
// once the grace has passed, or at a third signal at once; before that
// the first signal only asks for a stop and the second cancels Context.
func TestInterruptsExit(t *testing.T) {
	defer func(e func(int), g time.Duration) { exit, abortGrace = e, g }(exit, abortGrace)
	codes := make(chan int, 1)
	exit = func(code int) { codes <- code }
	for _, third := range []bool{false, true} {
		abortGrace = 200 * time.Millisecond
		if third {
			abortGrace = time.Hour
		}
		it := CatchInterrupts(io.Discard)
		signal := func() {
			if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		}
		signal()
		for deadline := time.Now().Add(10 * time.Second); !it.Stopped(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the first signal did not ask for a stop")
			}
		}
		if it.Context().Err() != nil {
			t.Fatal("the first signal cancelled the context")
		}
		signal()
		select {
		case <-it.Context().Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the second signal did not cancel the context")
		}
		if third {
			signal()
		}
		select {
		case code := <-codes:
			if code != 130 {
				t.Errorf("third signal %v: exit %d, want 130", third, code)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("third signal %v: no exit", third)
		}
		it.Release()
	}
}
