package presets

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/fedaux/fedaux/datasets"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/sim"
)

// refData holds the reference partitions (small: 230 KB in all), so that
// the reference presets need only the graph file: cora_fedaux10.npz, the
// partition and split of FedAux's own published Cora-10 run (from
// JhuoW/FedAux's partition_*.pt files), and partitions/<dataset>_<K>.npz,
// made the way the reference generator makes them (METIS 5.1.0 k-way with
// default options on the largest connected component; the split a
// permutation from PyTorch's generator seeded 1234). A file of the same
// name in the data directory is read instead.
//
//go:embed refdata
var refData embed.FS

// embeddedPrefix marks a path resolved to an embedded file.
const embeddedPrefix = "(embedded)/"

// embeddedRef returns the embedded file a scenario's relative path names.
func embeddedRef(p string) ([]byte, bool) {
	if filepath.IsAbs(p) {
		return nil, false
	}
	b, err := refData.ReadFile(path.Join("refdata", filepath.ToSlash(p)))
	return b, err == nil
}

// exists reports whether path is there: an embedded file, all eight
// Planetoid raw files of a DIR/ind.NAME prefix, a file, or a directory
// holding an OGB dataset's raw files (an empty ogbn_arxiv, left by a
// download that failed, is not there).
func exists(p string) bool {
	if rest, ok := strings.CutPrefix(p, embeddedPrefix); ok {
		_, ok = embeddedRef(rest)
		return ok
	}
	if dir, name, ok := graphio.PlanetoidPrefix(p); ok {
		for _, part := range graphio.PlanetoidParts {
			if _, err := os.Stat(graphio.PlanetoidFile(dir, name, part)); err != nil {
				return false
			}
		}
		return true
	}
	fi, err := os.Stat(p)
	if err == nil && fi.IsDir() {
		return graphio.IsOGB(p)
	}
	return err == nil
}

// checksums returns the files behind path with their sha256 for the run
// log: an embedded file, the eight Planetoid raw files of a prefix, or
// the file itself (nothing for a directory).
func checksums(p string) ([]sim.DataFile, error) {
	if rest, ok := strings.CutPrefix(p, embeddedPrefix); ok {
		b, _ := embeddedRef(rest)
		h := sha256.Sum256(b)
		return []sim.DataFile{{Path: p, SHA256: hex.EncodeToString(h[:])}}, nil
	}
	var paths []string
	if dir, name, ok := graphio.PlanetoidPrefix(p); ok {
		for _, part := range graphio.PlanetoidParts {
			paths = append(paths, graphio.PlanetoidFile(dir, name, part))
		}
	} else if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		paths = append(paths, p)
	}
	var out []sim.DataFile
	for _, q := range paths {
		f, err := Checksum(q)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// startChecksums computes checksums(p) on a goroutine of its own and
// returns the function that waits for its result.
func startChecksums(p string) func() ([]sim.DataFile, error) {
	var (
		fs   []sim.DataFile
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		fs, err = checksums(p)
	}()
	return func() ([]sim.DataFile, error) {
		<-done
		return fs, err
	}
}

// alternate returns where else the data directory may hold the graph a
// scenario names: the Planetoid raw files that `fedaux data get` installs
// for cora.npz, citeseer.npz and pubmed.npz ("" when none).
func alternate(graph string, env Env) string {
	d := datasets.ForGraph(graph)
	if d == nil || d.Graph == graph {
		return ""
	}
	return filepath.Join(env.DataDir, filepath.FromSlash(d.Graph))
}
