package cli

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/datasets"
	"github.com/fedaux/fedaux/presets"
)

// TestDataGetFromMirror serves the data directory with `data serve`'s
// handler and fetches three datasets from it into an empty directory
// with `data get -mirror`, then checks `fedaux data` reports them
// verified and their presets ready.
func TestDataGetFromMirror(t *testing.T) {
	needData(t)
	h, n := mirrorHandler(presets.DataDir(""))
	if n == 0 {
		t.Fatal("the data directory holds no catalogue file")
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	dir := t.TempDir()
	var out, errs bytes.Buffer
	err := dataCmd([]string{"get", "cora", "minesweeper", "-mirror", ts.URL, "-data", dir, "-q"}, &out, &errs)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	for _, want := range []string{"cora                 verified", "minesweeper          verified"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output %q lacks %q", out.String(), want)
		}
	}
	out.Reset()
	if err := dataCmd([]string{"-data", dir}, &out, &errs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"minesweeper-10", "cora-10-ref", "fedaux data get citeseer pubmed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("`fedaux data` output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(strings.SplitN(out.String(), "presets missing data", 2)[0], "citeseer-10 ") {
		t.Errorf("citeseer-10 listed ready without its data:\n%s", out.String())
	}
	// The mirror from the environment, and a name that does not exist.
	t.Setenv(datasets.MirrorEnv, ts.URL)
	if err := dataCmd([]string{"get", "-data", dir, "-q", "photo"}, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "amazon_electronics_photo.npz")); err != nil {
		t.Error(err)
	}
	if err := dataCmd([]string{"get", "-data", dir, "cora2"}, &out, &errs); err == nil || !strings.Contains(err.Error(), `unknown dataset "cora2"`) {
		t.Errorf("error %v", err)
	}
}

// TestDataCorruptConverted: fedaux data says a Planetoid set's converted
// .npz, which the presets read, is corrupt when a member fails its CRC (it
// said "verified" from the raw files, and runs failed).
func TestDataCorruptConverted(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "labels.npy", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("0123456789abcdef"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	good := b.Bytes()
	bad := bytes.Replace(slices.Clone(good), []byte("0123"), []byte("x123"), 1)
	for _, c := range []struct {
		data []byte
		want string
	}{{good, "converted  cora.npz (raw files absent)"}, {bad, "CORRUPT    cora.npz, which the presets read"}} {
		if err := os.WriteFile(filepath.Join(dir, "cora.npz"), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if err := dataCmd([]string{"-data", dir}, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout.String(), c.want) {
			t.Errorf("fedaux data lacks %q:\n%s", c.want, stdout.String())
		}
	}
}

// TestDataPresetsOnBadData: presets whose data is there but fails its
// check (a corrupt converted cora.npz, an actor.npz whose checksum
// differs) are not listed ready (they were, and their runs failed), and
// the corrupt file's hint says what removing it does (it said that
// `fedaux data get cora` makes cora.npz again, which it does not: it
// fetches the raw files).
func TestDataPresetsOnBadData(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cora.npz"), []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "heterophilous"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "heterophilous", "actor.npz"), []byte("not the published file"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := dataCmd([]string{"-data", dir}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok && strings.HasPrefix(k, "presets ") {
			lines[k] = " " + v + " "
		}
	}
	for _, p := range []string{"cora-10", "cora-10-ref", "actor-5"} {
		if strings.Contains(lines["presets ready"], " "+p+" ") {
			t.Errorf("%s listed ready:\n%s", p, out)
		}
		if !strings.Contains(lines["presets whose data fails its check (above)"], " "+p+" ") {
			t.Errorf("%s not listed as failing its check:\n%s", p, out)
		}
	}
	if !strings.Contains(lines["presets ready"], " sbm ") || strings.Contains(lines["presets ready"], " citeseer-10 ") {
		t.Errorf("presets ready: %s", lines["presets ready"])
	}
	if want := "cora.npz: zip: not a valid zip file; remove it: the presets then read the raw files (fedaux data get cora)"; !strings.Contains(out, want) {
		t.Errorf("fedaux data lacks %q:\n%s", want, out)
	}
}

// TestDataFlagHelp: every command's -data says the same default, the
// lookup of presets.DataDir (servercost's left out the per-user
// directory, data serve's named none), and data serve refuses an
// argument it does not take (it ignored it).
func TestDataFlagHelp(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(stderr *bytes.Buffer) error
	}{
		{"run", func(e *bytes.Buffer) error { return runCmd([]string{"-h"}, io.Discard, e) }},
		{"servercost", func(e *bytes.Buffer) error { return serverCostCmd([]string{"-h"}, io.Discard, e) }},
		{"data", func(e *bytes.Buffer) error { return dataCmd([]string{"-h"}, io.Discard, e) }},
		{"data get", func(e *bytes.Buffer) error { return dataCmd([]string{"get", "-h"}, io.Discard, e) }},
		{"data serve", func(e *bytes.Buffer) error { return dataCmd([]string{"serve", "-h"}, io.Discard, e) }},
	} {
		var stderr bytes.Buffer
		c.run(&stderr)
		const want = "default $FEDAUX_DATA, else ~/.local/share/fedaux"
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("%s -h does not say the data directory's default %q:\n%s", c.name, want, stderr.String())
		}
	}
	if err := dataCmd([]string{"serve", "-data", t.TempDir(), "extra"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), `unexpected argument "extra"`) {
		t.Errorf("data serve extra: %v", err)
	}
}
