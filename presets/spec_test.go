package presets

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

// TestEveryPresetIsAFile checks that every preset comes from an embedded
// scenario file that renders and reads back to the same scenario.
func TestEveryPresetIsAFile(t *testing.T) {
	for _, p := range All() {
		if p.Spec == nil || p.Source == "" || !p.builtin {
			t.Errorf("%s: not an embedded scenario file", p.Name)
			continue
		}
		if p.Fingerprint() != "" {
			t.Errorf("%s: a preset as shipped has fingerprint %q, want none (its results keys must not change)", p.Name, p.Fingerprint())
		}
		again, err := ParseSpec(p.Name, "", []byte(p.Spec.Render()))
		if err != nil {
			t.Errorf("%s: rendered file does not read back: %v", p.Name, err)
			continue
		}
		if a, b := p.Spec.Render(), again.Render(); a != b {
			t.Errorf("%s: render, parse, render differs:\n%s\n---\n%s", p.Name, a, b)
		}
		if !reflect.DeepEqual(p.Config(), again.Config()) {
			t.Errorf("%s: settings differ after a round trip", p.Name)
		}
	}
}

// TestSpecErrors checks that a bad scenario file names its file, the line
// of the key and the key, and says what is allowed.
func TestSpecErrors(t *testing.T) {
	const head = "graph = \"sbm\"\nclients = 4\n[sbm]\nnodes = 100\ngroups = 2\n"
	cases := []struct {
		name, text string
		want       []string
	}{
		{"probability", head + "intra = [0.2, 1.5]\n", []string{"f.toml:6:", "sbm.intra", "1.5", "[0, 1]"}},
		{"inter", head + "intra = [0.2, 0.4]\ninter = -0.1\n", []string{"f.toml:7:", "sbm.inter", "[0, 1]"}},
		{"groups>clients", "clients = 4\n[sbm]\ngroups = 5\nintra = [0.1,0.1,0.1,0.1,0.1]\n", []string{"f.toml:3:", "sbm.groups", "1..clients = 4"}},
		{"intra length", head + "intra = [0.2]\n", []string{"f.toml:6:", "sbm.intra", "1 values", "groups = 2"}},
		{"unknown key", head + "intra = [0.2, 0.4]\nnodez = 3\n", []string{"f.toml:7:", "sbm.nodez", "unknown key"}},
		{"unknown table", "[sbn]\nnodes = 3\n", []string{"f.toml:1:", "unknown table [sbn]"}},
		{"top-level key in a table", head + "intra = [0.2, 0.4]\n[run]\nclients = 3\n", []string{"f.toml:8:", "top-level key"}},
		{"type", "clients = \"ten\"\n", []string{"f.toml:1:", "clients", "got a string, want an integer"}},
		{"twice", "clients = 4\nclients = 5\n", []string{"f.toml:2:", "set twice (first at line 1)"}},
		{"syntax", "clients = \n", []string{"f.toml:1:", "toml:"}},
		{"nodes<clients", "clients = 40\n[sbm]\nnodes = 30\n", []string{"f.toml:3:", "sbm.nodes", "clients = 40"}},
		{"sbm key on a file graph", "graph = \"g.npz\"\nclients = 3\n[sbm]\nnodes = 30\n", []string{"f.toml:4:", "sbm.nodes", `graph = "g.npz"`}},
		{"method", "graph = \"g.npz\"\n[partition]\nmethod = \"metis\"\n", []string{"f.toml:3:", "partition.method", "louvain"}},
		{"beta", "graph = \"g.npz\"\n[partition]\nmethod = \"label-skew\"\nbeta = 0\n", []string{"f.toml:4:", "partition.beta", "> 0"}},
		{"split", "[split]\ntrain = 0.7\ntest = 0.4\n", []string{"f.toml:3:", "split.test", "< 1"}},
		{"run setting", "[run]\nrounds = 0\n", []string{"f.toml:2:", "run.rounds", ">= 1"}},
		{"run setting syntax", "[run]\nalgo = \"fedfoo\"\n", []string{"f.toml:2:", "run.algo", "fedfoo"}},
		{"huge", "clients = 2\n[sbm]\nnodes = 2000000\ngroups = 1\nintra = [0.5]\n", []string{"sbm.intra", "edges"}},
		{"features", "[sbm]\nfeatures = \"dense\"\n", []string{"f.toml:2:", "onehot or gaussian"}},
		{"one client", "clients = 1\n", []string{"f.toml:1:", "clients", "want >= 2"}},
		{"classes>nodes", head + "intra = [0.2, 0.4]\nclasses = 101\n", []string{"f.toml:7:", "sbm.classes", "2..nodes = 100"}},
		{"feature values", head + "intra = [0.2, 0.4]\nfeatures = \"gaussian\"\nfeature_dim = 3000000\n", []string{"f.toml:8:", "sbm.feature_dim", "3e+08 values", "268435456"}},
	}
	for _, c := range cases {
		_, err := ParseSpec("f", "f.toml", []byte(c.text))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		var se *SpecError
		if !errors.As(err, &se) {
			t.Errorf("%s: %T %v, want a *SpecError", c.name, err, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
}

// TestSpecByteOrderMark: a file that an editor began with a byte order
// mark reads as the same file without it (it was 'f.toml:1: toml: invalid
// character at start of key', of a character the editor does not show),
// and its errors keep their lines.
func TestSpecByteOrderMark(t *testing.T) {
	text := "clients = 10\n[sbm]\ngroups = 2\nintra = [0.2, 0.6]\n"
	want, err := ParseSpec("f", "f.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseSpec("f", "f.toml", []byte("\uFEFF"+text))
	if err != nil {
		t.Fatalf("with a byte order mark: %v", err)
	}
	if got.Render() != want.Render() {
		t.Errorf("with a byte order mark:\n%s\nwant\n%s", got.Render(), want.Render())
	}
	if _, err := ParseSpec("f", "f.toml", []byte("\uFEFFclients = 10\nclients = 3\n")); err == nil || !strings.Contains(err.Error(), "f.toml:2: clients: set twice (first at line 1)") {
		t.Errorf("an error after a byte order mark: %v", err)
	}
}

// TestSetEqualsFile checks that -set and a file give one scenario.
func TestSetEqualsFile(t *testing.T) {
	p, err := Get("sbm")
	if err != nil {
		t.Fatal(err)
	}
	q, err := p.With([]string{"groups=2", "clients=20", "intra=0.2,0.6", "sbm.classes=2", "run.rounds=7"})
	if err != nil {
		t.Fatal(err)
	}
	file := "clients = 20\n[sbm]\ngroups = 2\nintra = [0.2, 0.6]\nclasses = 2\n[run]\nrounds = 7\n"
	f, err := ParseSpec("sbm", "x.toml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	f.Description = q.Spec.Description
	if q.Spec.Render() != f.Render() {
		t.Errorf("-set and file differ:\n%s\n---\n%s", q.Spec.Render(), f.Render())
	}
	if q.Config().Rounds != 7 {
		t.Errorf("run.rounds = %d, want 7", q.Config().Rounds)
	}
	if q.Fingerprint() == "" || q.Fingerprint() == p.Fingerprint() {
		t.Errorf("changed preset fingerprint %q, want one of its own", q.Fingerprint())
	}
	for _, bad := range []struct{ set, want string }{
		{"grups=2", "unknown key"},
		{"seed=3", "-seed"},
		{"groups=2", "sbm.intra: 5 values"},
		{"intra=0.1,x", "not a finite number"},
		{"clients", "key=value"},
	} {
		_, err := p.With([]string{bad.set})
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("-set %s: %v, want an error saying %q", bad.set, err, bad.want)
		}
	}
}

// TestScenarioBuilds builds an SBM from a file and checks its shape.
func TestScenarioBuilds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "two.toml")
	text := "clients = 6\n[sbm]\nnodes = 120\ngroups = 3\nintra = [0.1, 0.2, 0.3]\nclasses = 3\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "two" || p.File != path {
		t.Errorf("name %q file %q", p.Name, p.File)
	}
	sc, err := p.Build(Env{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Data.Clients) != 6 || sc.Data.NumClasses != 3 {
		t.Errorf("%d clients, %d classes; want 6 and 3", len(sc.Data.Clients), sc.Data.NumClasses)
	}
	want := []int{0, 0, 1, 1, 2, 2}
	if !reflect.DeepEqual(sc.Data.Groups, want) {
		t.Errorf("groups %v, want %v", sc.Data.Groups, want)
	}
	// A graph file that is not there names the key, where it looked, and the file.
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("graph = \"nothere.npz\"\nclients = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := Load(bad)
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.Build(Env{DataDir: dir}, 1)
	if err == nil || !strings.Contains(err.Error(), "bad.toml:1: graph: graph") || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing graph: %v", err)
	}
	// A malformed graph file says so.
	if err := os.WriteFile(filepath.Join(dir, "nothere.npz"), []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = q.Build(Env{DataDir: dir}, 1); err == nil || !strings.Contains(err.Error(), "nothere.npz") {
		t.Errorf("malformed graph: %v", err)
	}
}

// TestLoadDir reads the good files of a directory and reports the bad.
func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.toml"), []byte("clients = 4\n[sbm]\nnodes = 40\ngroups = 2\nintra = [0.1, 0.2]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.toml"), []byte("clients = 0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "c.txt"), []byte("x"), 0o644)
	ps, errs := LoadDir(dir)
	if len(ps) != 1 || ps[0].Name != "a" {
		t.Errorf("presets %v, want a", ps)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "b.toml:1: clients") {
		t.Errorf("errors %v, want b.toml's", errs)
	}
	if ps, errs := LoadDir(filepath.Join(dir, "none")); len(ps)+len(errs) != 0 {
		t.Errorf("missing dir: %v %v", ps, errs)
	}
}

// FuzzParseSpec feeds the parser arbitrary text: it returns a scenario
// or an error, never panics, and what it accepts renders and reads back.
func FuzzParseSpec(f *testing.F) {
	for _, p := range All() {
		f.Add(p.Source)
	}
	f.Add("clients = 4\n[sbm]\nnodes = 1e3\n")
	f.Add("sbm = {nodes = 100, groups = 1, intra = [0.5]}\n")
	f.Add("[run]\nalgo = 3\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec("fuzz", "fuzz.toml", []byte(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml") {
				t.Errorf("error without the file: %v", err)
			}
			return
		}
		again, err := ParseSpec("fuzz", "fuzz.toml", []byte(s.Render()))
		if err != nil {
			t.Fatalf("accepted %q, but its rendering fails: %v\n%s", text, err, s.Render())
		}
		if s.Render() != again.Render() {
			t.Fatalf("rendering of %q does not read back the same", text)
		}
	})
}

// TestLateMethodSettings checks that a method registered after this
// package's init (one whose import path sorts after presets, or one that
// package main registers) has its settings as scenario keys: they were
// once collected at init, so such a method's key was "unknown".
func TestLateMethodSettings(t *testing.T) {
	sim.Register(sim.Method{
		Name: "latemethod", Describe: "a method registered after presets' init (tests)",
		Settings: []sim.Setting{{Key: "latemethod_k", Type: sim.Int, Default: "1", Doc: "latemethod: a count"}},
		New:      func(*sim.Config) (sim.Strategy, error) { return nil, errors.New("not run") },
	})
	s, err := ParseSpec("late", "late.toml", []byte("graph = \"sbm\"\nclients = 5\n[run]\nalgo = \"latemethod\"\nlatemethod_k = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Run["latemethod_k"]; got != "3" {
		t.Errorf("run.latemethod_k = %q, want 3", got)
	}
	var doc string
	for _, f := range Fields() {
		if f.Key == "run.latemethod_k" {
			doc = f.Doc
		}
		if f.Key == "run.algo" && !strings.Contains(f.Doc, "latemethod") {
			t.Errorf("run.algo's doc %q does not list latemethod", f.Doc)
		}
	}
	if doc != "latemethod: a count" {
		t.Errorf("run.latemethod_k's doc %q, want the setting's", doc)
	}
}
