package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/datasets"
)

// TestDataServeNamesAddr: an -addr that cannot be listened on is named
// with what is allowed ('fedaux: listen tcp: address nonsense: missing
// port in address' named no flag).
func TestDataServeNamesAddr(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, filepath.FromSlash(datasets.All()[0].Files[0].Path))
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"nonsense", ":99999"} {
		var stderr bytes.Buffer
		err := dataServeCmd([]string{"-data", dir, "-addr", addr}, &stderr)
		if err == nil || !strings.HasPrefix(err.Error(), "data serve: -addr "+addr+": ") || !strings.HasSuffix(err.Error(), "(want HOST:PORT or :PORT, such as 127.0.0.1:8080)") {
			t.Errorf("-addr %s: %v", addr, err)
		}
	}
}
