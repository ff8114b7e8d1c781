package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxSession drives a program in tmux on a private socket.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) keys(keys ...string) {
	s.run(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "e2e") }

// waitScreen waits until the screen contains every want.
func (s *tmuxSession) waitScreen(what string, want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var scr string
	for time.Now().Before(deadline) {
		scr = s.screen()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(scr, w)
		}
		if ok {
			return scr
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
	return ""
}

// TestEndToEnd builds the fedaux binary, runs the console in tmux, steps
// three rounds, raises alpha, toggles the heat map's scale, exports,
// resizes and quits, reading the screen as a user would.
func TestEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is needed for the end-to-end test")
		}
		t.Skip("tmux not installed")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "fedaux")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(tmp, "export")
	s := &tmuxSession{t: t, socket: fmt.Sprintf("fedaux-test-%d", os.Getpid())}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	cmd := fmt.Sprintf("cd %s && env -u NO_COLOR %s tui -preset sbm -seed 7 -start 0 -export %s; echo EXIT=$?; sleep 600", tmp, bin, dir)
	s.run("-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", cmd)

	s.waitScreen("the console", "round 0/100", "seed 7", "paused")
	s.keys("n", "n", "n")
	scr := s.waitScreen("three rounds", "round 3/100", "paused", "best val")
	if !strings.Contains(scr, "α 10") {
		t.Errorf("header lacks alpha:\n%s", scr)
	}
	s.keys("+")
	s.waitScreen("the alpha change", "α 10→11", "alpha 10 → 11 from round 4")
	s.keys("n")
	s.waitScreen("round 4 with alpha 11", "round 4/100", "α 11 ")
	s.waitScreen("the rule's stretched scale", "apv  stretched 0.9999", "auto: span")
	s.keys("z")
	s.waitScreen("the raw scale", "apv  raw -1 ", "heat map on the raw scale")
	s.keys("z")
	s.waitScreen("the stretched scale", "apv  stretched 0.9999", "heat map stretched over")

	s.keys("e")
	s.waitScreen("the export prompt", "export to:", dir)
	s.keys("Enter")
	s.waitScreen("the export", "exported")
	checkExport(t, dir, 4, 20)

	s.run("resize-window", "-t", "e2e", "-x", "80", "-y", "24")
	scr = s.waitScreen("the resize", "round 4/100")
	for i, l := range strings.Split(strings.TrimRight(scr, "\n"), "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d is %d columns after resizing to 80: %q", i, n, l)
		}
	}

	s.keys("q")
	s.waitScreen("a clean exit", "EXIT=0")
}
