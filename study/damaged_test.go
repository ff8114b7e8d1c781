package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedCheckpointSaysWhatToDo: a cell's checkpoint cut short stops
// the study with the file's error and what to do, remove it (the study
// said only 'checkpoint ...: truncated (1000 of 96912886 bytes)', and
// running the same command again failed the same way); once it is
// removed, the cell runs from its first round.
func TestDamagedCheckpointSaysWhatToDo(t *testing.T) {
	cs := cells(1)
	path := filepath.Join(t.TempDir(), "cell.ckpt")
	if err := os.WriteFile(path, []byte("fedaux checkpoint\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Store: MemoryStore(), Checkpoint: func(*Cell) string { return path }}
	_, err := r.Run(context.Background(), cs)
	if want := "cell.ckpt: truncated"; err == nil || !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "; remove it to run "+cs[0].String()+" from its first round") {
		t.Fatalf("a damaged checkpoint: %v, want one naming the file and saying to remove it", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if st, err := r.Run(context.Background(), cs); err != nil || st.Ran != 1 {
		t.Errorf("once removed: %+v, %v", st, err)
	}
}
