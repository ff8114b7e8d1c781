package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the data directory, or skips t (fails it when CI is set) if
// the directory does not exist.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("FEDAUX_DATA")
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			missing(t, "cannot find the module root: "+err.Error())
		}
		dir = filepath.Join(root, "..", "shared", "data")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		missing(t, "data directory "+dir+" not found")
	}
	return dir
}

// File returns the path of name inside the data directory, or skips t
// (fails it when CI is set) if the file does not exist.
func File(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Dir(t), name)
	if _, err := os.Stat(p); err != nil {
		missing(t, "data file "+p+" not found")
	}
	return p
}

func missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI is set: data must be present; set FEDAUX_DATA)")
	}
	t.Skip(msg + " (set FEDAUX_DATA)")
}

// moduleRoot returns the nearest directory at or above the working
// directory that holds a go.mod file.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
