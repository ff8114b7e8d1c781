package presets

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/internal/datadir"
	"github.com/fedaux/fedaux/sim"
)

// linkData makes a data directory holding only the given files of the
// shared one (symbolic links, same relative paths).
func linkData(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		from := datadir.File(t, f)
		to := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(from, to); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestEmbeddedPartitionsMatchShared checks that every embedded reference
// partition is byte for byte the shared data's file of the same name.
func TestEmbeddedPartitionsMatchShared(t *testing.T) {
	dir := datadir.Dir(t)
	n := 0
	for _, name := range append([]string{"cora_fedaux10.npz"}, partitionNames()...) {
		b, ok := embeddedRef(name)
		if !ok {
			t.Errorf("%s not embedded", name)
			continue
		}
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if sha256.Sum256(b) != sha256.Sum256(want) {
			t.Errorf("embedded %s differs from %s", name, filepath.Join(dir, name))
		}
		n++
	}
	if n != 13 {
		t.Errorf("%d embedded partitions, want 13", n)
	}
}

func partitionNames() []string {
	var out []string
	for _, ds := range []string{"cora", "citeseer", "computers", "photo"} {
		for _, k := range []string{"5", "10", "20"} {
			out = append(out, "partitions/"+ds+"_"+k+".npz")
		}
	}
	return out
}

// TestReferencePresetNeedsOnlyTheGraph builds cora-10-ref and cora-10 from
// a data directory that holds cora.npz alone: the clients come from the
// embedded partitions, the same as from the shared files.
func TestReferencePresetNeedsOnlyTheGraph(t *testing.T) {
	only := Env{DataDir: linkData(t, "cora.npz")}
	full := dataEnv(t)
	for _, name := range []string{"cora-10-ref", "cora-10"} {
		p, _ := Get(name)
		if !p.Available(only) {
			t.Fatalf("%s not available with cora.npz alone", name)
		}
		a, err := p.Build(only, 1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.Build(full, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(a.Partition, "ref "+embeddedPrefix) {
			t.Errorf("%s: partition %q, want the embedded file", name, a.Partition)
		}
		sameClients(t, a.Data, b.Data)
		last := a.Files[len(a.Files)-1]
		blob, _ := embeddedRef(strings.TrimPrefix(last.Path, embeddedPrefix))
		if h := sha256.Sum256(blob); last.SHA256 != hex.EncodeToString(h[:]) {
			t.Errorf("%s: logged checksum %s of %s is not its content's", name, last.SHA256, last.Path)
		}
	}
}

func sameClients(t *testing.T, a, b *sim.Data) {
	t.Helper()
	if len(a.Clients) != len(b.Clients) {
		t.Fatalf("%d clients, want %d", len(a.Clients), len(b.Clients))
	}
	for k := range a.Clients {
		ca, cb := a.Clients[k], b.Clients[k]
		if !equalInts(ca.Nodes, cb.Nodes) || len(ca.Roles) != len(cb.Roles) || ca.Graph.NumEdges() != cb.Graph.NumEdges() {
			t.Fatalf("client %d differs", k)
		}
		for i := range ca.Roles {
			if ca.Roles[i] != cb.Roles[i] {
				t.Fatalf("client %d: role of node %d differs", k, i)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPlanetoidRawStandsInForNPZ builds cora-10-ref from the Planetoid raw
// files alone (what `fedaux data get cora` installs): the same clients,
// features and labels as from cora.npz, and the eight raw files logged.
func TestPlanetoidRawStandsInForNPZ(t *testing.T) {
	var files []string
	for _, part := range graphio.PlanetoidParts {
		files = append(files, "raw/planetoid/ind.cora."+part)
	}
	raw := Env{DataDir: linkData(t, files...)}
	p, _ := Get("cora-10-ref")
	if !p.Available(raw) {
		t.Fatal("cora-10-ref not available from the raw files")
	}
	a, err := p.Build(raw, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Build(dataEnv(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	sameClients(t, a.Data, b.Data)
	for k := range a.Data.Clients {
		fa, fb := a.Data.Clients[k].Graph.Features, b.Data.Clients[k].Graph.Features
		if !equalInts(fa.Indices, fb.Indices) || len(fa.Values) != len(fb.Values) {
			t.Fatalf("client %d: features differ", k)
		}
		for i := range fa.Values {
			if fa.Values[i] != fb.Values[i] {
				t.Fatalf("client %d: feature value %d differs", k, i)
			}
		}
		if !equalInts(a.Data.Clients[k].Graph.Labels, b.Data.Clients[k].Graph.Labels) {
			t.Fatalf("client %d: labels differ", k)
		}
	}
	if len(a.Files) != 9 || !strings.HasSuffix(a.Files[0].Path, "ind.cora.x") {
		t.Errorf("logged files %v, want the eight raw files and the partition", a.Files)
	}
	// Missing both: the error says how to get it.
	_, err = p.Build(Env{DataDir: t.TempDir()}, 1)
	if err == nil || !strings.Contains(err.Error(), "fedaux data get cora") {
		t.Errorf("error %v, want one naming `fedaux data get cora`", err)
	}
}

// TestHeterophilousPresets checks the presets of the five graphs: their
// metric, their partition, and that each builds and passes the engine's
// metric check at 5, 10 and 20 clients.
func TestHeterophilousPresets(t *testing.T) {
	env := Env{DataDir: filepath.Dir(filepath.Dir(datadir.File(t, "heterophilous/minesweeper.npz")))}
	for _, ds := range []struct {
		name   string
		metric sim.Metric
	}{
		{"minesweeper", sim.ROCAUC}, {"tolokers", sim.ROCAUC}, {"actor", sim.Accuracy},
		{"chameleon-filtered", sim.Accuracy}, {"squirrel-filtered", sim.Accuracy},
	} {
		for _, k := range []int{5, 10, 20} {
			name := ds.name + "-" + itoa(k)
			p, err := Get(name)
			if err != nil {
				t.Fatal(err)
			}
			if p.MetricFor() != ds.metric {
				t.Errorf("%s: metric %v, want %v", name, p.MetricFor(), ds.metric)
			}
			// -short (the race pass) builds one graph of each metric.
			if testing.Short() && (k != 10 || (ds.name != "minesweeper" && ds.name != "actor")) {
				continue
			}
			sc, err := p.Build(env, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(sc.Data.Clients) != k || sc.Data.Metric != ds.metric || !strings.HasPrefix(sc.Partition, "multilevel") {
				t.Errorf("%s: %d clients, metric %v, partition %q", name, len(sc.Data.Clients), sc.Data.Metric, sc.Partition)
			}
			cfg := p.Config()
			cfg.Rounds = 1
			if _, err := sim.New(cfg, sc.Data, nil); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	// The metric key: set, checked, and accuracy forced on a binary set.
	p, _ := Get("minesweeper-10")
	if _, err := p.With([]string{"metric=auc"}); err == nil || !strings.Contains(err.Error(), `"auc", want accuracy, rocauc`) {
		t.Errorf("metric=auc: %v", err)
	}
	q, err := p.With([]string{"metric=accuracy"})
	if err != nil || q.MetricFor() != sim.Accuracy {
		t.Errorf("metric=accuracy: %v %v", q, err)
	}
	// ROC AUC on a 7-class graph is refused before a run.
	c, _ := Get("cora-10")
	c, err = c.With([]string{"metric=rocauc"})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := c.Build(dataEnv(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.New(c.Config(), sc.Data, nil); err == nil || !strings.Contains(err.Error(), "binary task") {
		t.Errorf("rocauc on cora: %v", err)
	}
}

func itoa(k int) string { return strconv.Itoa(k) }
