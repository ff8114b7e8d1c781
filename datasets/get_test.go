package datasets

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fedaux/fedaux/internal/datadir"
)

// server serves files by path, with faults on demand.
type server struct {
	mu      sync.Mutex
	files   map[string][]byte
	cutOnce map[string]int // path -> cut the first full response after this many bytes
	status  int            // answer every request with this status when set
	ranges  []string       // Range headers seen
	noRange bool           // ignore Range headers
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	body, ok := s.files[r.URL.Path]
	cut, cutting := s.cutOnce[r.URL.Path]
	if cutting && r.Header.Get("Range") == "" {
		delete(s.cutOnce, r.URL.Path)
	} else {
		cutting = false
	}
	status, noRange := s.status, s.noRange
	s.mu.Unlock()
	switch {
	case status != 0:
		http.Error(w, "injected", status)
	case !ok:
		http.NotFound(w, r)
	case cutting:
		// Promise the whole file, send a part, drop the connection.
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body[:cut])
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	case noRange:
		w.Write(body)
	default:
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// testSet is a dataset of two files published at canonical URLs on a
// host that does not exist; a mirror serves them.
func testSet(a, b []byte) (*Dataset, map[string][]byte) {
	d := &Dataset{Name: "toy", Files: []File{
		{Path: "raw/toy/a.bin", URL: "https://example.invalid/org/toy/raw/main/a.bin", Size: int64(len(a)), SHA256: sum(a)},
		{Path: "toy.npz", URL: "https://example.invalid/org/toy/raw/main/toy.npz", Size: int64(len(b)), SHA256: sum(b)},
	}}
	return d, map[string][]byte{"/org/toy/raw/main/a.bin": a, "/org/toy/raw/main/toy.npz": b}
}

func payload(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31) ^ seed
	}
	return b
}

func checkInstalled(t *testing.T, dir string, d *Dataset) {
	t.Helper()
	if st := d.StatusIn(dir); st.State != Verified {
		t.Fatalf("state %v %v, want verified", st.State, st.Bad)
	}
	for _, f := range d.Files {
		if _, err := os.Stat(filepath.Join(dir, f.Path+partialSuffix)); err == nil {
			t.Errorf("%s%s left behind", f.Path, partialSuffix)
		}
	}
}

func TestGetFromMirror(t *testing.T) {
	a, b := payload(5000, 1), payload(70000, 2)
	d, files := testSet(a, b)
	srv := &server{files: files}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	if st := d.StatusIn(dir); st.State != Missing {
		t.Fatalf("empty dir: state %v", st.State)
	}
	var bar bytes.Buffer
	if err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL + "/", Progress: &bar}); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir, d)
	if !strings.Contains(bar.String(), "100%") {
		t.Errorf("progress bar %q has no 100%%", bar.String())
	}
	// For a log, one line when each file starts and one when it ends, no
	// carriage returns.
	dir2 := t.TempDir()
	var log bytes.Buffer
	if err := Get(context.Background(), dir2, []*Dataset{d}, Options{Mirror: ts.URL, Progress: &log, PlainProgress: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if strings.Contains(log.String(), "\r") || len(lines) != 2*len(d.Files) ||
		!strings.HasSuffix(lines[0], ": downloading (0.0 MB)") || !strings.HasSuffix(lines[len(lines)-1], ": 0.1 MB downloaded") {
		t.Errorf("plain progress:\n%s", log.String())
	}
	// A second Get finds everything there and asks nothing.
	n := len(srv.ranges)
	if err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL}); err != nil {
		t.Fatal(err)
	}
	if len(srv.ranges) != n {
		t.Errorf("second Get made %d requests, want 0", len(srv.ranges)-n)
	}
}

func TestGetCanonical(t *testing.T) {
	a, b := payload(100, 3), payload(200, 4)
	srv := &server{files: map[string][]byte{"/a.bin": a, "/toy.npz": b}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	d, _ := testSet(a, b)
	d.Files[0].URL, d.Files[1].URL = ts.URL+"/a.bin", ts.URL+"/toy.npz"
	dir := t.TempDir()
	if err := Get(context.Background(), dir, []*Dataset{d}, Options{}); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir, d)
}

func TestGetResumesAfterCut(t *testing.T) {
	a, b := payload(10, 5), payload(100000, 6)
	d, files := testSet(a, b)
	srv := &server{files: files, cutOnce: map[string]int{"/org/toy/raw/main/toy.npz": 40000}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	if err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL}); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir, d)
	found := false
	for _, r := range srv.ranges {
		found = found || r == "bytes=40000-"
	}
	if !found {
		t.Errorf("no resume from byte 40000; Range headers %q", srv.ranges)
	}
}

func TestGetResumesAcrossRuns(t *testing.T) {
	a, b := payload(10, 7), payload(30000, 8)
	d, files := testSet(a, b)
	srv := &server{files: files, cutOnce: map[string]int{"/org/toy/raw/main/toy.npz": 12345}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	// One attempt only: the cut leaves toy.npz.partial and an error.
	err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL, Attempts: 1})
	if err == nil || !strings.Contains(err.Error(), "cut") {
		t.Fatalf("error %v, want a cut download", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "toy.npz")); err == nil {
		t.Fatal("a cut download was installed under its final name")
	}
	if fi, err := os.Stat(filepath.Join(dir, "toy.npz"+partialSuffix)); err != nil || fi.Size() != 12345 {
		t.Fatalf("partial file: %v %v", fi, err)
	}
	if st := d.StatusIn(dir); st.State != Partial {
		t.Errorf("state %v, want partial", st.State)
	}
	if err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL}); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir, d)
	if last := srv.ranges[len(srv.ranges)-1]; last != "bytes=12345-" {
		t.Errorf("last Range %q, want bytes=12345-", last)
	}
}

func TestGetServerIgnoresRange(t *testing.T) {
	a, b := payload(10, 9), payload(3000, 10)
	d, files := testSet(a, b)
	srv := &server{files: files, noRange: true}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "toy.npz"+partialSuffix), []byte("garbage"), 0o644)
	if err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL}); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir, d)
}

func TestGetChecksumMismatch(t *testing.T) {
	a, b := payload(10, 11), payload(3000, 12)
	d, files := testSet(a, b)
	bad := bytes.Clone(b)
	bad[1500] ^= 1
	files["/org/toy/raw/main/toy.npz"] = bad
	ts := httptest.NewServer(&server{files: files})
	defer ts.Close()
	dir := t.TempDir()
	err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL})
	var fe *FileError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "sha256 "+sum(bad)+", want "+sum(b)) {
		t.Fatalf("error %v, want a checksum mismatch naming both sums", err)
	}
	for _, want := range []string{"place the file by hand at " + filepath.Join(dir, "toy.npz"), "or set Options.Mirror to a server that holds /org/toy/raw/main/toy.npz"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	for _, p := range []string{"toy.npz", "toy.npz" + partialSuffix} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s exists after a mismatch", p)
		}
	}
	// The good file of the same dataset was installed all the same.
	if _, err := os.Stat(filepath.Join(dir, "raw/toy/a.bin")); err != nil {
		t.Error(err)
	}
}

func TestGetLeavesDifferingFileAlone(t *testing.T) {
	a, b := payload(10, 13), payload(300, 14)
	d, files := testSet(a, b)
	ts := httptest.NewServer(&server{files: files})
	defer ts.Close()
	dir := t.TempDir()
	mine := []byte("a user's own file")
	os.WriteFile(filepath.Join(dir, "toy.npz"), mine, 0o644)
	err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL})
	if err == nil || !strings.Contains(err.Error(), "already there but differs") {
		t.Fatalf("error %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "toy.npz")); !bytes.Equal(got, mine) {
		t.Error("the user's file was overwritten")
	}
	if st := d.StatusIn(dir); st.State != Mismatched || len(st.Bad) != 1 {
		t.Errorf("status %+v, want one mismatched file", st)
	}
}

func TestGetServerError(t *testing.T) {
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusNotFound, http.StatusForbidden} {
		a, b := payload(10, 15), payload(30, 16)
		d, files := testSet(a, b)
		srv := &server{files: files, status: status}
		ts := httptest.NewServer(srv)
		dir := t.TempDir()
		err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL})
		ts.Close()
		if err == nil || !strings.Contains(err.Error(), http.StatusText(status)) {
			t.Errorf("status %d: error %v", status, err)
		}
		// 5xx is retried (3 attempts per file), 4xx is not.
		want := 2
		if status >= 500 {
			want = 6
		}
		if len(srv.ranges) != want {
			t.Errorf("status %d: %d requests, want %d", status, len(srv.ranges), want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 1 { // raw/ may exist, empty
			t.Errorf("status %d: files left: %v", status, entries)
		}
	}
}

func TestGetOffline(t *testing.T) {
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	d, _ := testSet([]byte("a"), []byte("b"))
	err = Get(context.Background(), t.TempDir(), []*Dataset{d}, Options{Mirror: "http://" + addr})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the server (offline?)") || !strings.Contains(err.Error(), "place the file by hand") {
		t.Fatalf("error %v", err)
	}
}

func TestBadMirror(t *testing.T) {
	d, _ := testSet([]byte("a"), []byte("b"))
	err := Get(context.Background(), t.TempDir(), []*Dataset{d}, Options{Mirror: "not a url"})
	if err == nil || !strings.Contains(err.Error(), `mirror "not a url"`) {
		t.Fatalf("error %v", err)
	}
}

func TestGetUnverifiedAndUnpack(t *testing.T) {
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, body := range map[string]string{"arxiv/raw/edge.csv.gz": "e", "arxiv/raw/node-label.csv.gz": "l", "arxiv/README": "r"} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	d := &Dataset{Name: "arch",
		Files:    []File{{Path: "ogb/arch.zip", URL: "http://x.invalid/ogb/arch.zip"}},
		Unpack:   map[string]string{"arxiv/raw/": "ogb/raw/"},
		Unpacked: []string{"ogb/raw/edge.csv.gz", "ogb/raw/node-label.csv.gz"},
	}
	srv := &server{files: map[string][]byte{"/ogb/arch.zip": zbuf.Bytes()}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL})
	if err == nil || !strings.Contains(err.Error(), "sha256 "+sum(zbuf.Bytes())) || !strings.Contains(err.Error(), "run again with Options.Unverified set to install it") {
		t.Fatalf("error %v, want a refusal naming the sha256", err)
	}
	if d.StatusIn(dir).State != Missing {
		t.Fatal("an unverified file was installed")
	}
	n := len(srv.ranges)
	var out bytes.Buffer
	if err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL, Unverified: true, Progress: &out}); err != nil {
		t.Fatal(err)
	}
	if len(srv.ranges) != n+1 || srv.ranges[n] == "" {
		t.Errorf("the second run did not resume the kept download: %q", srv.ranges[n:])
	}
	if !strings.Contains(out.String(), "installed unverified (sha256 "+sum(zbuf.Bytes())) {
		t.Errorf("output %q", out.String())
	}
	if st := d.StatusIn(dir); st.State != Present {
		t.Fatalf("state %v", st.State)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ogb/raw/edge.csv.gz")); string(b) != "e" {
		t.Errorf("edge.csv.gz = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "ogb/raw/README")); err == nil {
		t.Error("a member outside the prefix was extracted")
	}
}

func TestGitBlobCheck(t *testing.T) {
	// git hash-object of "hello\n" is ce013625030ba8dba906f756967f9e9ca394464a.
	f := File{GitBlob: "ce013625030ba8dba906f756967f9e9ca394464a"}
	p := filepath.Join(t.TempDir(), "h")
	os.WriteFile(p, []byte("hello\n"), 0o644)
	s, err := Checksum(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Check(s); err != nil {
		t.Error(err)
	}
	os.WriteFile(p, []byte("hellO\n"), 0o644)
	s, _ = Checksum(p)
	if err := f.Check(s); err == nil || !strings.Contains(err.Error(), "git blob id") {
		t.Errorf("error %v", err)
	}
}

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range All() {
		if seen[d.Name] {
			t.Errorf("%s twice", d.Name)
		}
		seen[d.Name] = true
		if d.Metric != "accuracy" && d.Metric != "rocauc" {
			t.Errorf("%s: metric %q", d.Name, d.Metric)
		}
		for _, f := range d.Files {
			if !f.Verified() && d.Name != "arxiv" {
				t.Errorf("%s: %s has no checksum", d.Name, f.Path)
			}
			if f.SHA256 != "" && len(f.SHA256) != 64 || f.GitBlob != "" && len(f.GitBlob) != 40 {
				t.Errorf("%s: %s: malformed checksum", d.Name, f.Path)
			}
		}
	}
	if d := ForGraph("cora.npz"); d == nil || d.Name != "cora" {
		t.Errorf("ForGraph(cora.npz) = %v", d)
	}
	if d := ForGraph("heterophilous/tolokers.npz"); d == nil || d.Metric != "rocauc" {
		t.Errorf("ForGraph(tolokers) = %v", d)
	}
}

// TestSharedDataVerifies checks the pinned checksums against the files
// of the data directory: every dataset it holds must verify.
func TestSharedDataVerifies(t *testing.T) {
	dir := datadir.Dir(t)
	n := 0
	for _, d := range All() {
		st := d.StatusIn(dir)
		switch st.State {
		case Verified:
			n++
		case Missing:
		default:
			t.Errorf("%s: %v %v", d.Name, st.State, st.Bad)
		}
	}
	if n < 9 {
		t.Errorf("%d datasets verified in %s, want the 9 the shared data holds", n, dir)
	}
}

// TestGetResumeOfOtherFile: a NAME.partial that is no prefix of the
// published file (left by a cut download from a server that serves
// another file, or damaged) made the resumed download differ, and the
// run failed ('the download does not match the published file'); the file
// is now fetched once more from its first byte and installed.
func TestGetResumeOfOtherFile(t *testing.T) {
	a, b := payload(10, 21), payload(3000, 22)
	d, files := testSet(a, b)
	srv := &server{files: files}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "toy.npz"+partialSuffix), []byte("not a prefix of it"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Get(context.Background(), dir, []*Dataset{d}, Options{Mirror: ts.URL}); err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir, d)
	if n := len(srv.ranges); n < 2 || srv.ranges[n-2] != "bytes=18-" || srv.ranges[n-1] != "" {
		t.Errorf("requests' Range headers %q, want the resume (bytes=18-) then the whole file", srv.ranges)
	}
}
