package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/tui"
)

// TestRunRefusesUnderflowingSigma checks that a sigma below sim.MinSigma
// is refused before anything runs, naming the flag and the limit, and
// that the limit itself runs.
func TestRunRefusesUnderflowingSigma(t *testing.T) {
	for _, sigma := range []string{"1e-200", "1e-160", "1.05e-154"} {
		var stdout, stderr bytes.Buffer
		err := runCmd([]string{"-preset", "sbm", "-rounds", "1", "-sigma", sigma}, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "-sigma") || !strings.Contains(err.Error(), ">= 1.055e-154") {
			t.Errorf("run -sigma %s: error %v, want one naming -sigma and the limit 1.055e-154", sigma, err)
		}
		if stdout.Len() > 0 || strings.Contains(stderr.String(), "round") {
			t.Errorf("run -sigma %s ran before refusing:\n%s%s", sigma, &stdout, &stderr)
		}
	}
	out := runOK(t, "-preset", "sbm", "-rounds", "1", "-hidden", "16", "-sigma", "1.055e-154")
	if !strings.Contains(out, "test at best val") {
		t.Errorf("run -sigma 1.055e-154 (the limit, rounded up) did not finish:\n%s", out)
	}
}

// driveConsole feeds cmd, and every command that follows, to the console
// until nothing is left (at most limit messages).
func driveConsole(t *testing.T, m *tui.Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 100000 {
			t.Fatal("the console does not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// pressKeys sends key presses (single characters) to the console.
func pressKeys(t *testing.T, m *tui.Model, keys string) {
	t.Helper()
	for _, r := range keys {
		k := tea.KeyPressMsg{Code: r, Text: string(r)}
		if r == '\r' {
			k = tea.KeyPressMsg{Code: tea.KeyEnter}
		}
		driveConsole(t, m, func() tea.Msg { return k })
	}
}

// roundLines returns the round lines of a run log, without their times.
func roundLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range stripVolatile(t, mustRead(t, path)) {
		if m["type"] == "round" {
			delete(m, "ground_truth") // a view: computed when shown
			out = append(out, m)
		}
	}
	return out
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// smallSBM returns the sbm preset at 600 nodes (-set nodes=600): the
// paper's 3000 took most of these tests' time under -race, and a run log
// of a scenario changed by -set replays as any other.
func smallSBM(t *testing.T) *presets.Preset {
	t.Helper()
	p, err := presets.Get("sbm")
	if err != nil {
		t.Fatal(err)
	}
	q, err := p.With([]string{"nodes=600"})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// steeredSession opens the console on smallSBM (seed 7, 2 workers,
// hidden 16, changed by tweak) at 120x40, logging to session.jsonl in
// dir, and returns the console, its log and the log's path.
func steeredSession(t *testing.T, dir string, tweak func(*sim.Config)) (*tui.Model, *sim.RunLog, string) {
	t.Helper()
	path := filepath.Join(dir, "session.jsonl")
	log, err := sim.OpenRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	p := smallSBM(t)
	cfg := p.Config()
	cfg.Seed, cfg.Workers, cfg.Hidden = 7, 2, 16
	if tweak != nil {
		tweak(&cfg)
	}
	m, err := tui.New(tui.Options{Preset: p, Config: cfg, Log: log, NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m, log, path
}

// steerSixRounds runs two rounds, presses before3, two rounds, before5,
// two rounds, checks that the session is steered and at round 6, and
// closes the console and its log.
func steerSixRounds(t *testing.T, m *tui.Model, log *sim.RunLog, before3, before5 string) {
	t.Helper()
	for _, keys := range []string{"nn", before3, "nn", before5, "nn"} {
		pressKeys(t, m, keys)
	}
	if !m.Steered() || m.Round() != 6 {
		t.Fatalf("session: steered %v, %d rounds", m.Steered(), m.Round())
	}
	m.Close()
	log.Close()
}

// TestReplayLiveSetting steers a method's live setting in the console
// (FedProx's mu, two local epochs so that it matters: 0.01 → 0.5 before
// round 3, → 0 before round 5, six rounds) and replays the log headless:
// every round line's metrics of the replay equal the console's, and they
// differ from an unsteered run's after the change (the metrics of round 3
// may not: its loss is taken before the second epoch's step).
func TestReplayLiveSetting(t *testing.T) {
	dir := t.TempDir()
	m, log, path := steeredSession(t, dir, func(c *sim.Config) { c.Epochs, c.Algo = 2, methods.FedProx })
	steerSixRounds(t, m, log, "o0.5\r", "o0\r")

	replayLog := filepath.Join(dir, "replay.jsonl")
	out := runOK(t, "-replay", path, "-log", replayLog, "-workers", "1")
	if !strings.Contains(out, "replayed 6 rounds and 2 knob changes") {
		t.Errorf("replay output:\n%s", out)
	}
	plainLog := filepath.Join(dir, "plain.jsonl")
	runOK(t, "-preset", "sbm", "-set", "nodes=600", "-seed", "7", "-hidden", "16", "-epochs", "2", "-algo", "fedprox", "-rounds", "6", "-log", plainLog, "-workers", "1")
	got, want, unsteered := roundLines(t, replayLog), roundLines(t, path), roundLines(t, plainLog)
	if len(got) != 6 || len(want) != 6 || len(unsteered) != 6 {
		t.Fatalf("%d replayed round lines, %d logged, %d unsteered, want 6 each", len(got), len(want), len(unsteered))
	}
	differ := 0
	for i := range want {
		a, _ := json.Marshal(got[i]["clients"])
		b, _ := json.Marshal(want[i]["clients"])
		c, _ := json.Marshal(unsteered[i]["clients"])
		if string(a) != string(b) {
			t.Errorf("round %d: the replay's clients differ from the console's:\n%s\n%s", i+1, a, b)
		}
		if i < 2 && string(b) != string(c) {
			t.Errorf("round %d, before any change: steered and unsteered clients differ", i+1)
		}
		if i >= 2 && string(b) != string(c) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("mu changed from round 3 on, yet rounds 3 to 6 equal the unsteered run's")
	}
}

// TestReplaySteeredSession steers a console session (alpha and sigma
// changed before round 3 and again before round 5, six rounds), then
// replays its log headless with run -replay: every round line's metrics
// of the replay equal the console's, and a log with one digit changed is
// refused.
func TestReplaySteeredSession(t *testing.T) {
	dir := t.TempDir()
	m, log, path := steeredSession(t, dir, nil)
	// Before round 3: alpha 10 → 12, sigma 1 → 2; before round 5: alpha
	// 12 → 5, sigma 2 → 0.2.
	steerSixRounds(t, m, log, "++>", "-------<<<")

	replayLog := filepath.Join(dir, "replay.jsonl")
	out := runOK(t, "-replay", path, "-log", replayLog, "-workers", "1")
	controls := 0
	for _, l := range stripVolatile(t, mustRead(t, path)) {
		if l["type"] == "control" {
			controls++
		}
	}
	if !strings.Contains(out, fmt.Sprintf("replayed 6 rounds and %d knob changes", controls)) || controls < 4 {
		t.Errorf("replay output:\n%s", out)
	}
	got, want := roundLines(t, replayLog), roundLines(t, path)
	if len(got) != 6 || len(want) != 6 {
		t.Fatalf("%d replayed round lines, %d logged, want 6 each", len(got), len(want))
	}
	for i := range want {
		for _, k := range []string{"alpha", "sigma", "clients", "mean_val", "mean_test", "weights", "similarity"} {
			a, _ := json.Marshal(got[i][k])
			b, _ := json.Marshal(want[i][k])
			if string(a) != string(b) {
				t.Errorf("round %d: %s differs:\n%s\n%s", i+1, k, a, b)
			}
		}
	}
	if w := want[2]; w["alpha"] != 12.0 || w["sigma"] != 2.0 {
		t.Errorf("round 3 ran with alpha %v sigma %v, want 12 and 2", w["alpha"], w["sigma"])
	}
	if w := want[4]; w["alpha"] != 5.0 || w["sigma"] != 0.2 {
		t.Errorf("round 5 ran with alpha %v sigma %v, want 5 and 0.2", w["alpha"], w["sigma"])
	}

	// Round 4's mean test accuracy changed by one ulp: refused.
	lines := strings.Split(string(mustRead(t, path)), "\n")
	changed := false
	for i, l := range lines {
		if strings.Contains(l, `"type":"round","round":4,`) {
			v := want[3]["mean_test"].(float64)
			lines[i] = strings.Replace(l, fmt.Sprintf(`"mean_test":%v`, v), fmt.Sprintf(`"mean_test":%v`, math.Nextafter(v, 200)), 1)
			changed = lines[i] != l
		}
	}
	if !changed {
		t.Fatal("round 4's mean_test not found in the log")
	}
	bad := filepath.Join(dir, "tampered.jsonl")
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := runCmd([]string{"-replay", bad}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "round 4 differs") {
		t.Errorf("replay of a tampered log: %v, want round 4 to differ", err)
	}
	if err := runCmd([]string{"-replay", path, "-alpha", "3"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-alpha") {
		t.Errorf("replay with -alpha: %v, want a refusal naming -alpha", err)
	}
}

// TestReplayForkOnAnotherAlgorithm forks a console session after round 2
// with branch B on Local (F), steers B's sigma before round 4, steps to
// round 5, and replays B's run log headless: the algorithm line switches
// the replay where the console did, and every round line's metrics of
// the replay equal the console's.
func TestReplayForkOnAnotherAlgorithm(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	log, err := sim.OpenRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	p := smallSBM(t)
	cfg := p.Config()
	cfg.Seed, cfg.Workers, cfg.Hidden = 7, 2, 16
	m, err := tui.New(tui.Options{Preset: p, Config: cfg, Log: log, NoColor: true, ExportDir: filepath.Join(dir, "export")})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	pressKeys(t, m, "nnF")
	// The picker offers fedaux (the run's), fedavg_mask, fedpub_apv, local.
	for range 3 {
		driveConsole(t, m, func() tea.Msg { return tea.KeyPressMsg{Code: tea.KeyDown} })
	}
	driveConsole(t, m, func() tea.Msg { return tea.KeyPressMsg{Code: tea.KeyEnter} })
	pressKeys(t, m, "nb>nne")
	driveConsole(t, m, func() tea.Msg { return tea.KeyPressMsg{Code: tea.KeyEnter} })
	m.Close()
	log.Close()

	fork := filepath.Join(dir, "session-B-r2.jsonl")
	if !strings.Contains(string(mustRead(t, fork)), `{"type":"algorithm","round":3,"from":"fedaux","to":"local"}`) {
		t.Fatalf("B's run log has no switch to local:\n%s", mustRead(t, fork))
	}
	replayLog := filepath.Join(dir, "replay.jsonl")
	out := runOK(t, "-replay", fork, "-log", replayLog, "-workers", "1")
	if !strings.Contains(out, "replayed 5 rounds and 1 knob changes (algorithm local from round 3)") {
		t.Errorf("replay output:\n%s", out)
	}
	got, want := roundLines(t, replayLog), roundLines(t, fork)
	if len(got) != 5 || len(want) != 5 {
		t.Fatalf("%d replayed round lines, %d logged, want 5 each", len(got), len(want))
	}
	for i := range want {
		for _, k := range []string{"alpha", "sigma", "clients", "mean_val", "mean_test", "weights", "similarity"} {
			a, _ := json.Marshal(got[i][k])
			b, _ := json.Marshal(want[i][k])
			if string(a) != string(b) {
				t.Errorf("round %d: %s differs:\n%s\n%s", i+1, k, a, b)
			}
		}
	}
	if w := want[3]; w["sigma"] != 2.0 || w["weights"] != nil {
		t.Errorf("B's round 4: sigma %v, weights %v; want 2 and none (local)", w["sigma"], w["weights"])
	}
	if !strings.Contains(string(mustRead(t, replayLog)), `"type":"algorithm"`) {
		t.Error("the replay's log lacks the algorithm line")
	}
	// B's export replays too.
	out = runOK(t, "-replay", filepath.Join(dir, "export", "B", "log.jsonl"), "-workers", "1")
	if !strings.Contains(out, "replayed 5 rounds and 1 knob changes (algorithm local from round 3)") {
		t.Errorf("replay of B's export:\n%s", out)
	}
}

// TestReplaySwitchOnBranch forks a console session after round 2 on the
// same algorithm, switches branch B to FedAvg_mask before its round 4 (F
// on a forked run) and replays B's run log: the replay switches where
// the console did, bit for bit.
func TestReplaySwitchOnBranch(t *testing.T) {
	dir := t.TempDir()
	m, log, _ := steeredSession(t, dir, nil)
	pressKeys(t, m, "nnfbnF")
	// The picker offers fedaux (B's), fedavg_mask, fedpub_apv, local.
	driveConsole(t, m, func() tea.Msg { return tea.KeyPressMsg{Code: tea.KeyDown} })
	driveConsole(t, m, func() tea.Msg { return tea.KeyPressMsg{Code: tea.KeyEnter} })
	pressKeys(t, m, "nn")
	m.Close()
	log.Close()

	fork := filepath.Join(dir, "session-B-r2.jsonl")
	out := runOK(t, "-replay", fork, "-workers", "1")
	if !strings.Contains(out, "replayed 5 rounds and 0 knob changes (algorithm fedavg_mask from round 4)") {
		t.Errorf("replay output:\n%s", out)
	}
	if w := roundLines(t, fork)[4]; w["weights"] == nil {
		t.Error("B's round 5 has no weights")
	}
}

// TestReplayHeadlessSettings replays the logs of headless runs whose
// settings the run line's own fields do not hold (float32, FedProx's mu):
// the replays equal the logs, as they do only when the run line holds
// every setting (with the defaults the first round differs).
func TestReplayHeadlessSettings(t *testing.T) {
	dir := t.TempDir()
	for name, flags := range map[string][]string{
		"f32": {"-precision", "f32"},
		"mu":  {"-algo", "fedprox", "-mu", "5", "-epochs", "2"},
	} {
		path := filepath.Join(dir, name+".jsonl")
		runOK(t, append([]string{"-preset", "sbm", "-set", "nodes=600", "-seed", "7", "-hidden", "16", "-rounds", "3", "-log", path, "-workers", "1"}, flags...)...)
		out := runOK(t, "-replay", path, "-workers", "1")
		if !strings.Contains(out, "replayed 3 rounds and 0 knob changes") {
			t.Errorf("%s: replay output:\n%s", name, out)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		run := strings.SplitN(string(b), "\n", 2)[0]
		// The run line has the run's method's own settings, not the
		// other methods'; a setting this build does not know (a method
		// of another build's, in a log written before) is passed over.
		if has := strings.Contains(run, `"mu":`); has != (name == "mu") || strings.Contains(run, `"eps1":`) {
			t.Errorf("%s: run line %s", name, run)
		}
		edited := strings.Replace(string(b), `"settings":{`, `"settings":{"othermethod_k":"3",`, 1)
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		if out := runOK(t, "-replay", path, "-workers", "1"); !strings.Contains(out, "replayed 3 rounds") {
			t.Errorf("%s: replay with an unknown setting:\n%s", name, out)
		}
	}
}

// TestReplayLogKeepsDropout: the run log of a replay (-log) names the
// client dropout of the run it replays, as the run's own log does (it
// said none: the line was written before the dropout was set).
func TestReplayLogKeepsDropout(t *testing.T) {
	dir := t.TempDir()
	path, again := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "replay.jsonl")
	runOK(t, "-preset", "sbm", "-set", "nodes=600", "-seed", "7", "-hidden", "16", "-rounds", "3", "-dropout", "0.3", "-log", path, "-workers", "1")
	if out := runOK(t, "-replay", path, "-log", again, "-workers", "1"); !strings.Contains(out, "replayed 3 rounds") {
		t.Fatalf("replay:\n%s", out)
	}
	for _, p := range []string{path, again} {
		runs, _, err := sim.ReadRunLog(p)
		if err != nil {
			t.Fatal(err)
		}
		if d := runs[0].Header.ClientDropout; d != 0.3 || len(runs) != 1 {
			t.Errorf("%s: %d runs, the first's client dropout %v, want 0.3", filepath.Base(p), len(runs), d)
		}
	}
}

// TestReplayEditedLogs: a log whose last line was cut short replays
// without it, with a note; a run line whose client count is not its
// scenario's, and a knob change after the run's end, are refused (they
// replayed "bit for bit").
func TestReplayEditedLogs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	runOK(t, "-preset", "sbm", "-set", "nodes=600", "-seed", "7", "-hidden", "16", "-rounds", "3", "-log", path, "-workers", "1")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var stdout, stderr bytes.Buffer
	torn := write("torn.jsonl", string(b)+`{"type":"round","rou`)
	if err := runCmd([]string{"-replay", torn, "-workers", "1"}, &stdout, &stderr); err != nil || !strings.Contains(stderr.String(), "the last line is cut short") {
		t.Errorf("torn last line: %v\n%s", err, stderr.String())
	}
	lines := strings.SplitAfter(string(b), "\n")
	for name, c := range map[string]struct{ log, want string }{
		"clients": {strings.Replace(string(b), `"clients":`+fmt.Sprint(countClients(t, lines[0])), `"clients":9`, 1), "the run line says 9 clients"},
		"late":    {string(b) + `{"type":"control","round":99,"name":"alpha","from":10,"to":5}` + "\n", "a change of alpha for round 99, but the run ends at round 3"},
		"middle":  {lines[0] + `{"type":"round","rou` + "\n" + strings.Join(lines[1:], ""), "not a JSON object"},
	} {
		err := runCmd([]string{"-replay", write(name+".jsonl", c.log), "-workers", "1"}, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}

// countClients returns the clients field of a run line.
func countClients(t *testing.T, line string) int {
	var h struct{ Clients int }
	if err := json.Unmarshal([]byte(line), &h); err != nil || h.Clients == 0 {
		t.Fatalf("run line %.80q: %v", line, err)
	}
	return h.Clients
}
