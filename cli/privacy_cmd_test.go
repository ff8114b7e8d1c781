package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivacyCmd runs a short membership inference study on sbm, prints
// and writes its report, renders it again without running, and refuses
// bad flags.
func TestPrivacyCmd(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-preset", "sbm", "-set", "nodes=600", "-hidden", "8", "-rounds", "3", "-seeds", "1", "-algos", "fedaux,fedavg", "-workers", "2", "-out", dir}
	if err := privacyCmd(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"## sbm", "| fedaux | apv | 1 of 1 |", "| fedavg | none | 1 of 1 |", "seeds 0..0", "2 runs (0 already there, 2 run now)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "privacy.md"))
	if err != nil || !bytes.Contains(md, []byte("| fedaux | apv |")) {
		t.Fatalf("privacy.md: %v\n%s", err, md)
	}
	stdout.Reset()
	if err := privacyCmd(append(args, "-render", "-nonmembers", "other"), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "AUC, non-members: test |") || !strings.Contains(stdout.String(), "other clients' nodes") {
		t.Errorf("-nonmembers other: the report does not lead with the other clients' nodes:\n%s", stdout.String())
	}
	for _, bad := range [][]string{
		{"-nonmembers", "train", "-out", t.TempDir()},
		{"-algos", "fedsage_plus", "-out", t.TempDir()},
		{"-algos", "nope", "-out", t.TempDir()},
		{"-seeds", "0", "-out", t.TempDir()},
		{"extra"},
	} {
		if err := privacyCmd(bad, &stdout, &stderr); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
