package dirs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{dir, ""},
		{file, file + ": not a directory"},
		{filepath.Join(dir, "none"), filepath.Join(dir, "none") + ": no such directory"},
	} {
		got := ""
		if err := Check(c.path); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Check(%s) = %q, want %q", c.path, got, c.want)
		}
	}
}
