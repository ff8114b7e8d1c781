package tui

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/sim"
)

// observer sees the model inside the program's event loop (through a
// message filter) and keeps what the tests wait for.
type observer struct {
	mu     sync.Mutex
	round  int
	busy   bool
	events []event
	screen string // the last frame while idle, without ANSI sequences
}

// ping is a message that only wakes the filter up.
type ping struct{}

func (o *observer) filter(m tea.Model, msg tea.Msg) tea.Msg {
	if c, ok := m.(*Model); ok {
		o.mu.Lock()
		o.round, o.busy, o.events = c.Round(), c.Busy(), append([]event(nil), c.events...)
		if !c.Busy() { // the frames the tests wait for; cheaper under -race
			o.screen = plain(c.Render())
		}
		o.mu.Unlock()
	}
	if _, ok := msg.(ping); ok {
		return nil
	}
	return msg
}

// waitFor pings the program until cond holds for what the observer saw.
func (o *observer) waitFor(t *testing.T, tm *teatest.TestModel, what string, cond func(o *observer) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // generous: -race on two cores
	for time.Now().Before(deadline) {
		tm.Send(ping{})
		time.Sleep(10 * time.Millisecond)
		o.mu.Lock()
		ok := cond(o)
		o.mu.Unlock()
		if ok {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func (o *observer) logged(s string) bool {
	for _, e := range o.events {
		if strings.Contains(e.text, s) {
			return true
		}
	}
	return false
}

// start runs the console in a teatest program.
func start(t *testing.T, w, h int) (*Model, *teatest.TestModel, *observer) {
	t.Helper()
	m := newTestModel(t, false, w, h, small)
	o := &observer{}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithFilter(o.filter)))
	return m, tm, o
}

// quit ends the program and waits for the console's work to stop.
func quit(t *testing.T, m *Model, tm *teatest.TestModel) *Model {
	t.Helper()
	tm.Send(keyMsg("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).(*Model)
	m.Close()
	return fm
}

func TestFlowStep(t *testing.T) {
	m, tm, o := start(t, 80, 24)
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 1", func(o *observer) bool { return o.round == 1 && !o.busy })
	tm.Send(keyMsg("N"))
	o.waitFor(t, tm, "round 11", func(o *observer) bool { return o.round == 11 && !o.busy })
	fm := quit(t, m, tm)
	if got := fm.Engine().Round(); got != 11 {
		t.Errorf("engine ran %d rounds, want 11", got)
	}
	if !strings.Contains(plain(fm.Render()), "round 11/100") {
		t.Errorf("header does not show round 11/100:\n%s", plain(fm.Render()))
	}
}

func TestFlowAlpha(t *testing.T) {
	m, tm, o := start(t, 80, 24)
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 1", func(o *observer) bool { return o.round == 1 && !o.busy })
	tm.Send(keyMsg("+")) // 10 -> 11 from round 2
	tm.Send(keyMsg("a")) // then type an exact value
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tm.Type("12.5")
	tm.Send(keyMsg("enter"))
	// The two changes before round 2 coalesce into one line and one marker.
	o.waitFor(t, tm, "alpha 12.5", func(o *observer) bool { return o.logged("alpha 10 → 12.5 from round 2") })
	fm := quit(t, m, tm)
	if got := fm.Engine().Knobs().Alpha; got != 12.5 {
		t.Errorf("engine alpha = %v, want 12.5", got)
	}
	if !strings.Contains(plain(fm.Render()), "α 10→12.5") {
		t.Errorf("header does not show the change α 10→12.5:\n%s", plain(fm.Render()))
	}
	want := []export.Control{{Round: 2, Name: "alpha", From: 10, To: 12.5}}
	if !slices.Equal(fm.controls, want) {
		t.Errorf("controls = %+v, want %+v", fm.controls, want)
	}
}

// TestFlowAlphaDuringRound changes alpha while rounds run: the change
// waits for the round in flight and applies from the one after.
func TestFlowAlphaDuringRound(t *testing.T) {
	m, tm, o := start(t, 80, 24)
	tm.Send(keyMsg("N"))
	o.waitFor(t, tm, "a round in flight", func(o *observer) bool { return o.busy })
	tm.Send(keyMsg("-"))
	o.waitFor(t, tm, "10 rounds", func(o *observer) bool { return o.round == 10 && !o.busy })
	fm := quit(t, m, tm)
	if len(fm.controls) != 1 {
		t.Fatalf("controls = %+v, want one", fm.controls)
	}
	c := fm.controls[0]
	for _, r := range fm.reports {
		want := 10.0
		if r.Round >= c.Round {
			want = 9
		}
		if r.Alpha != want {
			t.Errorf("round %d ran with alpha %v, want %v (change from round %d)", r.Round, r.Alpha, want, c.Round)
		}
	}
}

func TestFlowExport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	m, tm, o := start(t, 100, 30)
	m.opts.ExportDir = dir
	tm.Send(keyMsg("n"))
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 2", func(o *observer) bool { return o.round == 2 && !o.busy })
	tm.Send(keyMsg("e"))
	tm.Send(keyMsg("enter"))
	o.waitFor(t, tm, "the export", func(o *observer) bool { return o.logged("exported") })
	quit(t, m, tm)
	checkExport(t, dir, 2, m.k)
}

// TestFlowScale toggles the heat map's scale: sbm's APV cosines open
// stretched by the rule (the legend says stretched, shows the
// off-diagonal range and "auto"); z goes raw, and z again stretched.
func TestFlowScale(t *testing.T) {
	m, tm, o := start(t, 120, 40)
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 1", func(o *observer) bool {
		return o.round == 1 && !o.busy && strings.Contains(o.screen, "apv  stretched ") && strings.Contains(o.screen, "auto: ")
	})
	tm.Send(keyMsg("z"))
	o.waitFor(t, tm, "the raw legend", func(o *observer) bool { return strings.Contains(o.screen, "apv  raw -1 ") })
	tm.Send(keyMsg("z"))
	o.waitFor(t, tm, "the stretched legend", func(o *observer) bool {
		return strings.Contains(o.screen, "apv  stretched ") && !strings.Contains(o.screen, "auto: ")
	})
	fm := quit(t, m, tm)
	lo, hi, _ := export.OffDiagRange(fm.reports[0].Similarity)
	a, b := export.RangeLabels(lo, hi)
	if scr := plain(fm.Render()); !strings.Contains(scr, "apv  stretched "+a+" ") || !strings.Contains(scr, " "+b) {
		t.Errorf("stretched legend lacks the off-diagonal range %s…%s:\n%s", a, b, scr)
	}
}

// TestFlowPartners turns auto alpha on with a typed value, raises it with
// ] and checks the engine and the header.
func TestFlowPartners(t *testing.T) {
	m, tm, o := start(t, 120, 40)
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 1", func(o *observer) bool { return o.round == 1 && !o.busy })
	tm.Send(keyMsg("A"))
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tm.Type("3")
	tm.Send(keyMsg("enter"))
	tm.Send(keyMsg("]"))
	o.waitFor(t, tm, "partners 4", func(o *observer) bool { return o.logged("partners 0 → 4 from round 2") })
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 2 with auto alpha", func(o *observer) bool {
		return o.round == 2 && !o.busy && strings.Contains(o.screen, "auto α (4 partners)")
	})
	fm := quit(t, m, tm)
	if p := fm.Engine().Knobs().Partners; p != 4 {
		t.Errorf("engine partners = %v, want 4", p)
	}
	if a := fm.reports[1].Alphas; len(a) != fm.k {
		t.Errorf("round 2 has %d per-client alphas, want %d", len(a), fm.k)
	}
	want := []export.Control{{Round: 2, Name: "partners", From: 0, To: 4}}
	if !slices.Equal(fm.controls, want) {
		t.Errorf("controls = %+v, want %+v", fm.controls, want)
	}
}

// TestFlowSource cycles the similarity source, which waits for a reset,
// and resets into a new engine that uses it.
func TestFlowSource(t *testing.T) {
	m, tm, o := start(t, 120, 40)
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 1", func(o *observer) bool { return o.round == 1 && !o.busy })
	tm.Send(keyMsg("g"))
	tm.Send(keyMsg("g"))
	o.waitFor(t, tm, "the pending source", func(o *observer) bool { return strings.Contains(o.screen, "on r/R: sim pc1") })
	tm.Send(keyMsg("R")) // restart at the same seed
	o.waitFor(t, tm, "the new engine", func(o *observer) bool { return o.logged("ready") && !o.busy })
	tm.Send(keyMsg("n"))
	o.waitFor(t, tm, "round 1 of the new engine", func(o *observer) bool { return o.round == 1 && !o.busy })
	fm := quit(t, m, tm)
	c := fm.Engine().Config()
	if c.Source != "pc1" || c.Seed != 7 {
		t.Errorf("new engine: source %s seed %d, want pc1 and the same seed 7", c.Source, c.Seed)
	}
	if scr := plain(fm.Render()); !strings.Contains(scr, "sbm·fedaux·pc1") || strings.Contains(scr, "on r:") {
		t.Errorf("header after the reset:\n%s", scr)
	}
	if got := fm.reports[0].WeightsFrom; got != "pc1" {
		t.Errorf("the new engine's weights come from %s, want pc1", got)
	}
}

// checkExport checks that dir holds a parsable export of a run of rounds
// rounds of k clients.
func checkExport(t *testing.T, dir string, rounds, k int) {
	t.Helper()
	var views []string
	for _, s := range sim.Sources() {
		views = append(views, string(s))
	}
	checkExportViews(t, dir, rounds, k, views)
}

// checkExportViews is checkExport for an engine that offers the views
// named (as Engine.Offered lists them).
func checkExportViews(t *testing.T, dir string, rounds, k int, views []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, export.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var types []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		types = append(types, line.Type)
	}
	if len(types) < rounds+2 || types[0] != "run" || types[len(types)-1] != "summary" {
		t.Errorf("log line types %v", types)
	}
	cf, err := os.Open(filepath.Join(dir, export.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	rows, err := csv.NewReader(cf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+rounds*k {
		t.Errorf("metrics.csv has %d rows, want %d", len(rows), 1+rounds*k)
	}
	// Every view of the last round, shown or not (the export completes
	// the round with the views nobody showed), and the ground truth.
	files := []string{export.ConvergenceFile, export.SimilarityFile, export.SimilarityStretchedFile,
		export.WeightsFile, export.WeightsStretchedFile, export.GroundTruthFile}
	for _, s := range views {
		files = append(files, export.ViewFile(s, false))
	}
	for _, name := range files {
		pf, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(pf)
		pf.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < 200 || b.Dy() < 200 {
			t.Errorf("%s is only %v", name, b)
		}
	}
}

// TestQuitMidRound quits while rounds run and checks that nothing touches
// the engine after Close returns.
func TestQuitMidRound(t *testing.T) {
	m, tm, o := start(t, 80, 24)
	tm.Send(keyMsg("space"))
	o.waitFor(t, tm, "a round in flight", func(o *observer) bool { return o.busy })
	start := time.Now()
	quit(t, m, tm)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("quitting took %v", d)
	}
	e := m.Engine()
	n := e.Round()
	time.Sleep(200 * time.Millisecond)
	if e.Round() != n {
		t.Errorf("the engine went on after Close: %d then %d rounds", n, e.Round())
	}
}
