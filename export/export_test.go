package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fedaux/fedaux/sim"
)

// fakeRun is a run of rounds rounds of k clients in groups of two.
func fakeRun(k, rounds int) *Run {
	r := &Run{Header: sim.RunHeader{Preset: "sbm", Algo: "fedaux", Seed: 3, Rounds: rounds, Clients: k}}
	for g := 0; g < k; g++ {
		r.Groups = append(r.Groups, g/2)
	}
	for t := 1; t <= rounds; t++ {
		rep := &sim.RoundReport{Round: t, Alpha: 10, Sigma: 1, MeanVal: 50 + float64(t), MeanTest: 49 + float64(t)}
		m := make([][]float64, k)
		for i := range m {
			m[i] = make([]float64, k)
			for j := range m[i] {
				m[i][j] = 0.1
				if r.Groups[i] == r.Groups[j] {
					m[i][j] = 0.9
				}
			}
			rep.Clients = append(rep.Clients, sim.ClientMetrics{ID: i, Nodes: 100 + i, TrainLoss: 1, ValAcc: 50, TestAcc: 49})
		}
		rep.Similarity, rep.Weights, rep.GroundTruth = m, m, m
		rep.Views = map[sim.Source][][]float64{"apv": m, "functional": m}
		rep.WeightsFrom = sim.SourceAPV
		r.Reports = append(r.Reports, rep)
	}
	r.Controls = []Control{{Round: 2, Name: "alpha", From: 10, To: 12}, {Round: rounds + 1, Name: "sigma", From: 1, To: 2}}
	return r
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	files, err := Write(dir, fakeRun(4, 3))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := []string{LogFile, MetricsFile, ConvergenceFile, SimilarityFile, SimilarityStretchedFile,
		WeightsFile, WeightsStretchedFile, GroundTruthFile, GroundTruthStretchedFile,
		"view-apv.png", "view-apv-stretched.png", "view-functional.png", "view-functional-stretched.png"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("wrote %v, want %v", names, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(want) {
		t.Errorf("directory holds %d entries (temporary files left?), want %d", len(entries), len(want))
	}

	// The log: run, control (from round 2) before round 2, the trailing
	// control, then the summary.
	b, err := os.ReadFile(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		types = append(types, line["type"].(string))
		if line["type"] == "summary" && line["best_round"].(float64) != 3 {
			t.Errorf("summary %v, want best round 3", line)
		}
	}
	wantTypes := []string{"run", "round", "control", "round", "round", "control", "summary"}
	if !reflect.DeepEqual(types, wantTypes) {
		t.Errorf("log line types %v, want %v", types, wantTypes)
	}

	f, err := os.Open(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3*4 || !reflect.DeepEqual(rows[0], MetricsHeader) {
		t.Errorf("csv: %d rows, header %v", len(rows), rows[0])
	}
	if got := strings.Join(rows[4], ","); got != "1,10,1,3,1,103,1,50,49" {
		t.Errorf("csv row 4 = %s", got)
	}

	for _, name := range want[2:] {
		pf, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(pf); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		pf.Close()
	}
}

// TestWriteNoRounds exports a run that has not run a round: the log, the
// CSV and an empty chart, and no heat maps.
func TestWriteNoRounds(t *testing.T) {
	files, err := Write(t.TempDir(), &Run{Header: sim.RunHeader{Preset: "sbm"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Errorf("wrote %v", files)
	}
}

// TestWriteRaggedMatrix: a matrix of the last round that is not square
// is an error naming the round, the matrix and the row, not a panic.
func TestWriteRaggedMatrix(t *testing.T) {
	r := fakeRun(4, 3)
	last := r.Reports[2]
	w := make([][]float64, 4)
	for i := range w {
		w[i] = []float64{0.25, 0.25, 0.25, 0.25}
	}
	w[2] = w[2][:3]
	last.Weights = w
	_, err := Write(t.TempDir(), r)
	if err == nil || err.Error() != "export: round 3: weights: row 2 has 3 entries, want 4" {
		t.Errorf("Write = %v, want the ragged row named", err)
	}
	if err := WriteHeatMap(io.Discard, "w", w, nil, RawScale(Weights)); err == nil || err.Error() != "export: row 2 has 3 entries, want 4" {
		t.Errorf("WriteHeatMap = %v, want the ragged row named", err)
	}
	if got := ClientOrder(4, nil, w); !reflect.DeepEqual(got, []int{0, 1, 2, 3}) {
		t.Errorf("ClientOrder of a ragged matrix = %v, want by id", got)
	}
}

func TestWriteFileAtomicKeepsOldOnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomic(p, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("no error")
	}
	b, _ := os.ReadFile(p)
	if string(b) != "old" {
		t.Errorf("file holds %q after a failed write", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}

func TestClientOrder(t *testing.T) {
	// By group, stable by id.
	if got := ClientOrder(5, []int{2, 0, 1, 0, 2}, nil); !reflect.DeepEqual(got, []int{1, 3, 2, 0, 4}) {
		t.Errorf("by group: %v", got)
	}
	// By clustering: clients 0,2,4 alike, 1,3 alike.
	m := [][]float64{
		{1, .1, .9, .1, .8},
		{.1, 1, .1, .9, .1},
		{.9, .1, 1, .1, .85},
		{.1, .9, .1, 1, .1},
		{.8, .1, .85, .1, 1},
	}
	got := ClientOrder(5, nil, m)
	pos := map[int]int{}
	for i, id := range got {
		pos[id] = i
	}
	if d := pos[1] - pos[3]; d != 1 && d != -1 {
		t.Errorf("clients 1 and 3 not adjacent in %v", got)
	}
	if lo, hi := min(pos[0], pos[2], pos[4]), max(pos[0], pos[2], pos[4]); hi-lo != 2 {
		t.Errorf("clients 0, 2, 4 not together in %v", got)
	}
	if !reflect.DeepEqual(got, ClientOrder(5, nil, m)) {
		t.Error("order not deterministic")
	}
	// Nothing known: by id.
	if got := ClientOrder(3, nil, nil); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("by id: %v", got)
	}
}

func TestRangeLabels(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		a, b   string
	}{{0.1, 0.9, "0.1", "0.9"}, {0.99991, 0.99999, "0.99991", "0.99999"}, {1, 1, "1", "1"}} {
		if a, b := RangeLabels(c.lo, c.hi); a != c.a || b != c.b {
			t.Errorf("RangeLabels(%v, %v) = %s, %s, want %s, %s", c.lo, c.hi, a, b, c.a, c.b)
		}
	}
}

func TestDefaultDir(t *testing.T) {
	got := DefaultDir("sbm", time.Date(2025, 12, 1, 9, 8, 7, 0, time.UTC))
	if want := filepath.Join("runs", "sbm-20251201-090807"); got != want {
		t.Errorf("DefaultDir = %s, want %s", got, want)
	}
}

// nearlyUniform is a 4 x 4 cosine matrix like the sbm preset's: every
// entry within 1e-4 of 1.
func nearlyUniform() [][]float64 {
	return [][]float64{
		{1, 0.99995, 0.99991, 0.99993},
		{0.99995, 1, 0.99992, 0.99994},
		{0.99991, 0.99992, 1, 0.99997},
		{0.99993, 0.99994, 0.99997, 1},
	}
}

func TestScales(t *testing.T) {
	m := nearlyUniform()
	if sc := RawScale(Cosine); sc != (Scale{Lo: -1, Hi: 1}) {
		t.Errorf("raw cosine scale %+v", sc)
	}
	if sc := RawScale(Weights); sc != (Scale{Lo: 0, Hi: 1}) {
		t.Errorf("raw weights scale %+v", sc)
	}
	if sim.SourceKind("pc1") != AbsCosine || sim.SourceKind("apv") != Cosine {
		t.Error("SourceKind")
	}
	sc := StretchedScale(m)
	if sc != (Scale{Lo: 0.99991, Hi: 0.99997, Stretched: true}) {
		t.Errorf("stretched scale %+v, want the off-diagonal range", sc)
	}
	if a, b := sc.Labels(); a != "0.99991" || b != "0.99997" {
		t.Errorf("stretched labels %s, %s", a, b)
	}
	if a, b := RawScale(Cosine).Labels(); a != "-1" || b != "1" {
		t.Errorf("raw labels %s, %s", a, b)
	}
	if sc := StretchedScale([][]float64{{1}}); sc.Lo != 1 || sc.Hi != 1 {
		t.Errorf("one client: %+v", sc)
	}
	if _, _, ok := OffDiagRange([][]float64{{1}}); ok {
		t.Error("a 1 x 1 matrix has an off-diagonal range")
	}
	w := [][]float64{{0.5, 0.25, 0.25}, {0.2, 0.6, 0.2}, {0.3, 0.3, 0.4}}
	if r, ok := WeightSpread(w); !ok || math.Abs(r-1.5) > 1e-12 {
		t.Errorf("WeightSpread = %v, %v, want 1.5", r, ok)
	}
	w[0][1] = 0
	if r, _ := WeightSpread(w); !math.IsInf(r, 1) {
		t.Errorf("WeightSpread with a zero weight = %v, want +Inf", r)
	}
	raw := scaleCaption(m, RawScale(Cosine))
	if want := "raw scale [-1, 1]\nmin 0.99991, max 1; off-diagonal 0.99991 to 0.99997"; raw != want {
		t.Errorf("raw caption %q, want %q", raw, want)
	}
	if s := scaleCaption(m, sc); !strings.HasPrefix(s, "stretched over the off-diagonal range [0.99991, 0.99997]\n") {
		t.Errorf("stretched caption %q", s)
	}
}

// TestHeatMapPNG writes both variants of a nearly uniform matrix (set
// FEDAUX_PNG_DIR to keep them for a look).
func TestHeatMapPNG(t *testing.T) {
	dir := os.Getenv("FEDAUX_PNG_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	m := nearlyUniform()
	for name, sc := range map[string]Scale{"raw.png": RawScale(Cosine), "stretched.png": StretchedScale(m)} {
		var buf bytes.Buffer
		if err := WriteHeatMap(&buf, "sbm fedaux: apv similarity, round 10", m, []int{0, 0, 1, 1}, sc); err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(buf.Bytes())); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteOverEarlierExport: a second export into a directory leaves no
// heat map of the first that it does not write itself (a run without the
// first's views kept their pictures, as if its own), and keeps files that
// are not an export's.
func TestWriteOverEarlierExport(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, fakeRun(4, 3)); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := Write(dir, &Run{Header: sim.RunHeader{Preset: "sbm"}}) // no round: no heat map
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{ConvergenceFile, LogFile, MetricsFile, "notes.txt"}; !reflect.DeepEqual(names, want) || len(files) != 3 {
		t.Errorf("directory holds %v, want %v", names, want)
	}
}

// TestFromLog reads back the log an export wrote (sim.ReadRunLog) and
// exports it again: the same log and metrics, bit for bit.
func TestFromLog(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	fake := fakeRun(4, 3)
	fake.Header.Kernel, fake.Header.Source, fake.Header.Score = sim.KernelAuto, sim.SourceAPV, "cosine" // as an engine's
	if _, err := Write(a, fake); err != nil {
		t.Fatal(err)
	}
	runs, torn, err := sim.ReadRunLog(filepath.Join(a, LogFile))
	if err != nil || torn != 0 || len(runs) != 1 {
		t.Fatalf("ReadRunLog: %d runs, torn %d, %v", len(runs), torn, err)
	}
	run := FromLog(runs[0])
	run.Groups = fake.Groups // the data's, not the log's
	if !reflect.DeepEqual(run.Controls, fakeRun(4, 3).Controls) {
		t.Errorf("controls %v", run.Controls)
	}
	if _, err := Write(b, &run); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{LogFile, MetricsFile} {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs after a round trip through the log:\n%.300s\n%.300s", name, x, y)
		}
	}
}
