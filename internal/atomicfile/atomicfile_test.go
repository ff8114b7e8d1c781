package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func put(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := Write(path, put("one")); err != nil {
		t.Fatal(err)
	}
	failing := errors.New("disk full")
	err := Write(path, func(w io.Writer) error {
		put("half")(w)
		return failing
	})
	if !errors.Is(err, failing) {
		t.Fatalf("error %v, want %v", err, failing)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("after a failed write the file holds %q, want the old %q", b, "one")
	}
	if err := Write(path, put("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("file holds %q, want %q", b, "two")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries (temporary files left?), want 1", len(entries))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), put("x")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// TestWriteConcurrent replaces one file from many writers at once, as
// the shards of a study render its report: every write succeeds, the
// file is one writer's whole content, and no temporary file is left.
func TestWriteConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "table1.md")
	const writers, rounds = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				body := strings.Repeat(fmt.Sprintf("writer %d round %d\n", w, r), 100)
				if err := Write(path, put(body)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if want := strings.Repeat(first+"\n", 100); string(b) != want {
		t.Errorf("the file mixes writes: %d bytes, want 100 copies of %q", len(b), first)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the file alone", len(entries))
	}
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	touch := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// What a writer killed mid-write of each file leaves, and files to keep.
	for _, n := range []string{".a[1].ckpt.123.tmp", ".b.ckpt.456.tmp", "a[1].ckpt", ".hidden", "c.tmp"} {
		touch(n)
	}
	if err := RemoveStale(filepath.Join(dir, "a[1].ckpt")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".a[1].ckpt.123.tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("RemoveStale left the temporary file of a[1].ckpt: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".b.ckpt.456.tmp")); err != nil {
		t.Errorf("RemoveStale(a[1].ckpt) removed another file's temporary file: %v", err)
	}
	if err := RemoveStaleIn(dir, time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".b.ckpt.456.tmp")); err != nil {
		t.Errorf("RemoveStaleIn(dir, 1 h) removed a temporary file written now: %v", err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, ".b.ckpt.456.tmp"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := RemoveStaleIn(dir, time.Hour); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if got, want := strings.Join(left, " "), ".hidden a[1].ckpt c.tmp"; got != want {
		t.Errorf("after RemoveStaleIn the directory holds %q, want %q", got, want)
	}
}

// TestWriteRefusesNonRegular: a directory or a device at the path is not
// replaced.
func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{sub, os.DevNull} {
		err := Write(path, put("x"))
		if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming it as not a regular file", path, err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s replaced: %v %v", path, fi, err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}
