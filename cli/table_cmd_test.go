package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableRenderRefusesNothing: table -render with flags that match none
// of the directory's runs, or into a directory that is not there, is
// refused and writes nothing (it wrote a table of dashes over the results'
// table, or an empty one into a new directory); with the runs' flags it
// renders them.
func TestTableRenderRefusesNothing(t *testing.T) {
	needData(t)
	dir := t.TempDir()
	flags := func(rounds, out string, more ...string) []string {
		return append([]string{"-datasets", "cora", "-clients", "5", "-algos", "local", "-seeds", "1", "-rounds", rounds, "-hidden", "8", "-out", out, "-workers", "1"}, more...)
	}
	args := flags("1", dir)
	var stdout, stderr bytes.Buffer
	if err := tableCmd(args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, &stderr)
	}
	md := filepath.Join(dir, "table1.md")
	before, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := tableCmd(append(args, "-render"), &stdout, &stderr); err != nil {
		t.Errorf("-render with the runs' flags: %v", err)
	}
	err = tableCmd(flags("2", dir, "-render"), &stdout, &stderr) // none stored

	if err == nil || !strings.Contains(err.Error(), "holds none of the 1 runs") {
		t.Errorf("-render with other settings: %v", err)
	}
	if after, _ := os.ReadFile(md); !bytes.Equal(after, before) {
		t.Errorf("the table changed:\n%s", after)
	}
	missing := filepath.Join(dir, "none")
	if err := tableCmd(flags("1", missing, "-render"), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "no such directory") {
		t.Errorf("-render into %s: %v", missing, err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("-render made %s", missing)
	}
	if err := tableCmd(flags("1", md, "-render"), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-out "+md+": not a directory") {
		t.Errorf("-render into the file %s: %v", md, err)
	}
}
