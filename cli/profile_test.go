package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunProfiles checks that -cpuprofile, -memprofile and -trace each
// write their file over a run, and that a file that cannot be created is
// an error naming its flag before the run starts.
func TestRunProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, tr := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof"), filepath.Join(dir, "run.trace")
	runOK(t, "-preset", "sbm", "-rounds", "2", "-hidden", "16", "-cpuprofile", cpu, "-memprofile", mem, "-trace", tr)
	for _, f := range []struct{ path, magic string }{
		{cpu, "\x1f\x8b"}, // gzipped protocol buffers
		{mem, "\x1f\x8b"},
		{tr, "go 1."}, // "go 1.26 trace"
	} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(f.magic)) {
			t.Errorf("%s: starts %q, want %q", filepath.Base(f.path), b[:min(len(b), 16)], f.magic)
		}
	}
	for _, flag := range []string{"-cpuprofile", "-memprofile", "-trace"} {
		var stdout, stderr bytes.Buffer
		err := runCmd([]string{"-preset", "sbm", "-rounds", "1", "-hidden", "16", flag, filepath.Join(dir, "missing", "x")}, &stdout, &stderr)
		if err == nil || !strings.HasPrefix(err.Error(), flag+": ") {
			t.Errorf("run %s in a missing directory: error %v, want one naming %s", flag, err, flag)
		}
		if stdout.Len() > 0 || strings.Contains(stderr.String(), "round") {
			t.Errorf("run %s in a missing directory ran before refusing:\n%s%s", flag, &stdout, &stderr)
		}
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	for _, flag := range []string{"-cpuprofile", "-memprofile", "-trace"} { // writes that fail: no space
		var stdout, stderr bytes.Buffer
		err := runCmd([]string{"-preset", "sbm", "-rounds", "1", "-hidden", "16", flag, "/dev/full"}, &stdout, &stderr)
		if err == nil || !strings.HasPrefix(err.Error(), flag+": ") || !strings.Contains(err.Error(), "no space") {
			t.Errorf("run %s /dev/full: error %v, want one naming %s and the failed write", flag, err, flag)
		}
	}
}

// TestConsoleFlags checks that the console refuses the flags of headless
// runs it has no use for, and checks -memlimit as run does, before it
// asks for a terminal.
func TestConsoleFlags(t *testing.T) {
	for _, flag := range []string{"-json", "-matrix"} {
		var stderr bytes.Buffer
		err := tuiCmd([]string{"-preset", "sbm", flag}, &stderr)
		if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: "+flag) {
			t.Errorf("tui %s: error %v, want the flag refused", flag, err)
		}
	}
	var stderr bytes.Buffer
	err := tuiCmd([]string{"-preset", "sbm", "-memlimit", "lots"}, &stderr)
	if err == nil || !strings.HasPrefix(err.Error(), "-memlimit: ") {
		t.Errorf("tui -memlimit lots: error %v, want one naming -memlimit", err)
	}
}
