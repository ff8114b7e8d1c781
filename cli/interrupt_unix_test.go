//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/study"
)

// TestInterruptedSaveFailed: a study stopped by SIGINT whose checkpoint
// could not be saved exits 130, saying why nothing was saved (it exited 1,
// as for any error, and a scheduler took it for a failure of the task).
func TestInterruptedSaveFailed(t *testing.T) {
	it := study.CatchInterrupts(&bytes.Buffer{})
	defer it.Release()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !it.Stopped(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("SIGINT did not ask for a stop")
		}
	}
	p, err := presets.Get("sbm")
	if err != nil {
		t.Fatal(err)
	}
	err = &study.InterruptedError{Cell: &study.Cell{Scenario: p, Config: p.Config()}, Round: 3, SaveErr: errors.New("mkdir DIR/checkpoints: no space left on device")}
	var w bytes.Buffer
	got := interrupted(err, it, &w, "table", "DIR/table1.md")
	var ee *exitError
	if !errors.As(got, &ee) || ee.code != 130 {
		t.Fatalf("interrupted = %v, want exit status 130", got)
	}
	if want := "had run 3 rounds, but its checkpoint could not be saved: mkdir DIR/checkpoints: no space left on device"; !strings.Contains(w.String(), want) {
		t.Errorf("said %q, want %q", w.String(), want)
	}
}
