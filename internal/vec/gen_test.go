package vec

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGenerated checks that the generated kernels are what
// gen_rowsums.go writes now: a hand edit of them, or of the generator
// without go generate, fails it.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "gen_rowsums.go", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen_rowsums.go: %v\n%s", err, out)
	}
	for _, name := range []string{"rowsumsavx2_amd64.s", "rowsums32avx2_amd64.s"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what gen_rowsums.go writes: run go generate ./internal/vec", name)
		}
	}
}
