package export

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fedaux/fedaux/internal/atomicfile"
	"github.com/fedaux/fedaux/sim"
)

// File names written by Write.
const (
	LogFile         = "log.jsonl"
	MetricsFile     = "metrics.csv"
	ConvergenceFile = "convergence.png"
	SimilarityFile  = "similarity.png"
	WeightsFile     = "weights.png"
	GroundTruthFile = "groundtruth.png"

	// The same matrices on the stretched scale (see StretchedScale).
	SimilarityStretchedFile  = "similarity-stretched.png"
	WeightsStretchedFile     = "weights-stretched.png"
	GroundTruthStretchedFile = "groundtruth-stretched.png"
)

// Control is a knob change made during a run: from round Round on, the
// knob Name is To instead of From. It is the run log's control line.
type Control struct {
	Round int      `json:"round"`
	Name  sim.Knob `json:"name"`
	From  float64  `json:"from"`
	To    float64  `json:"to"`
}

// Run is what Write exports: the run line, the rounds run so far, the knob
// changes and, when known, each client's true group (used to order the
// heat maps).
type Run struct {
	Header   sim.RunHeader
	Reports  []*sim.RoundReport
	Controls []Control
	// Switches are the run's changes of algorithm (a console fork on
	// another algorithm), logged as "algorithm" lines before the round
	// they apply to.
	Switches []sim.AlgorithmChange
	Groups   []int
}

// FromLog returns the Run of a logged run (sim.ReadRunLog), to write its
// figures again; a log does not hold the clients' groups.
func FromLog(r *sim.LoggedRun) Run {
	run := Run{Header: r.Header, Reports: r.Reports, Switches: r.Switches}
	for _, c := range r.Controls {
		run.Controls = append(run.Controls, Control(c))
	}
	return run
}

// DefaultDir returns ./runs/<preset>-<timestamp>, the directory used when
// the user names none.
func DefaultDir(preset string, t time.Time) string {
	if preset == "" {
		preset = "run"
	}
	return filepath.Join("runs", preset+"-"+t.Format("20060102-150405"))
}

// Write creates dir (and its parents) and writes the run into it: the log,
// the metrics CSV, the convergence chart and, when the run has at least one
// round, heat maps of the last round's matrices (similarity.png for the
// similarity that set the weights, weights.png for the mixing weights,
// groundtruth.png for the embedding similarity; each only when the round
// has that matrix), and view-<source>.png for every similarity view the
// round carries (sim.Sources: apv, apv-delta, pc1, readout, functional).
// Each heat map is written twice: on the matrix's raw scale (RawScale)
// and, as name-stretched.png, on the stretched scale over its
// off-diagonal range (StretchedScale). It returns the paths written.
// The heat maps of an earlier export into dir that this one does not
// write (a view this run's last round lacks) are removed, so that dir
// holds one run's export.
func Write(dir string, r *Run) (written []string, err error) {
	defer func() {
		if err == nil {
			err = removeStale(dir, written)
		}
	}()
	return write(dir, r)
}

// removeStale removes the heat maps in dir that Write writes, by their
// names, but that are not among written.
func removeStale(dir string, written []string) error {
	names := []string{SimilarityFile, SimilarityStretchedFile, WeightsFile, WeightsStretchedFile, GroundTruthFile, GroundTruthStretchedFile}
	views, err := filepath.Glob(filepath.Join(dir, "view-*.png"))
	if err != nil {
		return err
	}
	for _, n := range names {
		views = append(views, filepath.Join(dir, n))
	}
	for _, p := range views {
		if slices.Contains(written, p) {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}

func write(dir string, r *Run) ([]string, error) {
	if dir == "" {
		return nil, fmt.Errorf("export: no directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var written []string
	put := func(name string, write func(io.Writer) error) error {
		p := filepath.Join(dir, name)
		if err := WriteFileAtomic(p, write); err != nil {
			return fmt.Errorf("export: %s: %w", p, err)
		}
		written = append(written, p)
		return nil
	}
	if err := put(LogFile, r.writeLog); err != nil {
		return written, err
	}
	if err := put(MetricsFile, r.writeCSV); err != nil {
		return written, err
	}
	if err := put(ConvergenceFile, r.writeConvergence); err != nil {
		return written, err
	}
	if len(r.Reports) == 0 {
		return written, nil
	}
	last := r.Reports[len(r.Reports)-1]
	type heatMap struct {
		file, stretched, title string
		m                      [][]float64
		kind                   Kind
	}
	var heatMaps, views []heatMap
	for _, m := range last.Matrices() {
		if err := checkSquare(m.M); err != nil {
			return written, fmt.Errorf("export: round %d: %s: %w", last.Round, m.Name, err)
		}
		switch {
		case m.Name == sim.MatrixWeights:
			heatMaps = append(heatMaps, heatMap{WeightsFile, WeightsStretchedFile, "mixing weights (Eq. 4)", m.M, m.Kind})
		case m.Name == sim.MatrixGroundTruth:
			heatMaps = append(heatMaps, heatMap{GroundTruthFile, GroundTruthStretchedFile, "embedding similarity (ground truth)", m.M, m.Kind})
		default:
			if m.SetWeights {
				title := m.Name + " similarity"
				if m.Name == string(sim.SourceAPV) {
					title += " (Eq. 3)"
				}
				heatMaps = append([]heatMap{{SimilarityFile, SimilarityStretchedFile, title, m.M, m.Kind}}, heatMaps...)
			}
			if m.Name != sim.MatrixSimilarity {
				views = append(views, heatMap{ViewFile(m.Name, false), ViewFile(m.Name, true), m.Name + " similarity view", m.M, m.Kind})
			}
		}
	}
	heatMaps = append(heatMaps, views...)
	for _, h := range heatMaps {
		if len(h.m) == 0 {
			continue
		}
		title := fmt.Sprintf("%s %s: %s, round %d", r.Header.Preset, r.Header.Algo, h.title, last.Round)
		m := h.m
		order := ClientOrder(len(m), r.Groups, m)
		for _, v := range []struct {
			file string
			sc   Scale
		}{{h.file, RawScale(h.kind)}, {h.stretched, StretchedScale(m)}} {
			sc := v.sc
			if err := put(v.file, func(w io.Writer) error { return writeHeatMap(w, title, m, r.Groups, order, sc) }); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// ViewFile returns the heat map file name of a similarity view:
// view-<source>.png, or view-<source>-stretched.png on the stretched scale.
func ViewFile(source string, stretched bool) string {
	if stretched {
		return "view-" + source + "-stretched.png"
	}
	return "view-" + source + ".png"
}

// WriteFileAtomic writes a file through write so that readers, and a
// crash at any moment, see either the old file or the whole new one (see
// atomicfile.Write).
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, write)
}
