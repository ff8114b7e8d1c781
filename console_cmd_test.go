package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunRefusesUnderflowingSigma checks that a sigma below sim.MinSigma
// is refused before anything runs, naming the flag and the limit, and
// that the limit itself runs.
func TestRunRefusesUnderflowingSigma(t *testing.T) {
	for _, sigma := range []string{"1e-200", "1e-160", "1.05e-154"} {
		var stdout, stderr bytes.Buffer
		err := runCmd([]string{"-preset", "sbm", "-rounds", "1", "-sigma", sigma}, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "-sigma") || !strings.Contains(err.Error(), ">= 1.055e-154") {
			t.Errorf("run -sigma %s: error %v, want one naming -sigma and the limit 1.055e-154", sigma, err)
		}
		if stdout.Len() > 0 || strings.Contains(stderr.String(), "round") {
			t.Errorf("run -sigma %s ran before refusing:\n%s%s", sigma, &stdout, &stderr)
		}
	}
	out := runOK(t, "-preset", "sbm", "-rounds", "1", "-hidden", "16", "-sigma", "1.055e-154")
	if !strings.Contains(out, "test at best val") {
		t.Errorf("run -sigma 1.055e-154 (the limit, rounded up) did not finish:\n%s", out)
	}
}
