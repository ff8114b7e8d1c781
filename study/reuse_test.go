package study

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReuseNamesWhatIsWrong: a -reuse directory that is not there is said
// to be missing (it was 'not a directory', as a file is).
func TestReuseNamesWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := cells(1)
	for _, tt := range []struct{ reuse, want string }{
		{filepath.Join(dir, "none"), "study: reuse " + filepath.Join(dir, "none") + ": no such directory"},
		{file, "study: reuse " + file + ": not a directory"},
	} {
		if err := Reuse(filepath.Join(dir, "out"), ResultsFile, []string{tt.reuse}, cs); err == nil || err.Error() != tt.want {
			t.Errorf("Reuse from %s: %v, want %q", tt.reuse, err, tt.want)
		}
	}
	if err := Reuse(filepath.Join(dir, "out"), ResultsFile, []string{dir}, cs); err != nil {
		t.Errorf("Reuse from a directory without results: %v", err)
	}
}
