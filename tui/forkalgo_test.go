package tui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// TestForkAnotherAlgorithm forks a FedAux session after round 2 with
// branch B on FedAvg_mask (F): the picker offers only the algorithms of
// FedAux's client model and says why the others are not offered; B's
// rounds are those of an engine restored from round 2's checkpoint with
// FedAvg_mask, A's those of a session never forked; the screen names
// both branches' algorithms, and B's run log and export hold the switch.
func TestForkAnotherAlgorithm(t *testing.T) {
	m, log, path := newSessionModel(t)
	dir := filepath.Dir(path)
	press(m, "n", "n")
	ckPath := filepath.Join(dir, "r2.ck")
	if err := m.engine.SaveCheckpoint(ckPath); err != nil {
		t.Fatal(err)
	}
	press(m, "F")
	if m.screen != choosing {
		t.Fatalf("F did not open the algorithm picker: %s", m.events[len(m.events)-1].text)
	}
	offer := m.algos.offer
	for _, a := range []sim.Algorithm{methods.FedAux, methods.FedAvgMask, methods.Local} {
		if !slices.Contains(offer, a) {
			t.Errorf("the picker does not offer %s (FedAux's client model): %v", a, offer)
		}
	}
	for _, a := range []sim.Algorithm{methods.FedAvg, methods.FedProx, methods.FedPer, methods.GCFL, methods.FedAuxHard, methods.FedSagePlus} {
		if slices.Contains(offer, a) {
			t.Errorf("the picker offers %s, whose client model is not FedAux's", a)
		}
	}
	if offer[0] != methods.FedAux {
		t.Errorf("the run's algorithm is not first: %v", offer)
	}
	scr := plain(m.Render())
	for _, want := range []string{"fork at round 2", "fedavg_mask", "not offered:", "fedavg, fedgnn, fedgta, fedper, fedprox, gcfl: another client model: GCN", "masked GCN + APV kernel head", "fedsage_plus"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the picker lacks %q:\n%s", want, scr)
		}
	}
	for m.algos.Selected() != methods.FedAvgMask {
		press(m, "down")
	}
	press(m, "enter")
	if m.other == nil || m.other.cfg.Algo != methods.FedAvgMask || m.cfg.Algo != methods.FedAux {
		t.Fatalf("enter did not fork on fedavg_mask: %s", m.events[len(m.events)-1].text)
	}
	if ev := m.events[len(m.events)-3].text + m.events[len(m.events)-2].text; !strings.Contains(ev, "runs fedavg_mask from round 3") || !strings.Contains(ev, "starts fresh") {
		t.Errorf("the fork's event lines: %s", ev)
	}
	press(m, "n", "n", "b")
	b, a := m.reports, m.other.reports
	if len(a) != 4 || len(b) != 4 || m.branchName != "B" {
		t.Fatalf("rounds: A %d, B %d (shown %s); want 4 each", len(a), len(b), m.branchName)
	}

	// B's rounds 3 and 4: an engine restored from round 2 with FedAvg_mask.
	ck, err := sim.LoadCheckpoint(ckPath)
	if err != nil {
		t.Fatal(err)
	}
	ck.Config.Algo, ck.Strategy = methods.FedAvgMask, nil
	ref, err := ck.Resume(m.engine.Data(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for r := 3; r <= 4; r++ {
		rep, err := ref.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if numbersText(t, rep) != numbersText(t, b[r-1]) {
			t.Errorf("branch B's round %d differs from a restored engine's with fedavg_mask", r)
		}
		if reportText(t, a[r-1]) == reportText(t, b[r-1]) {
			t.Errorf("round %d is the same on both branches although B runs fedavg_mask", r)
		}
	}
	for r := range 2 {
		if reportText(t, a[r]) != reportText(t, b[r]) {
			t.Errorf("round %d before the fork differs between the branches", r+1)
		}
	}
	never := newTestModel(t, true, 120, 40, small)
	press(never, "n", "n", "n", "n")
	for r := range 4 {
		if reportText(t, a[r]) != reportText(t, never.reports[r]) {
			t.Errorf("branch A's round %d differs from a session never forked", r+1)
		}
	}

	scr = plain(m.Render())
	for _, want := range []string{"sbm·fedavg_mask", "branch B", "B fedavg_mask ⣀ val", "─ A fedaux test"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the screen lacks %q:\n%s", want, scr)
		}
	}
	press(m, "e")
	m.prompt.input.SetValue(filepath.Join(dir, "export"))
	press(m, "enter")
	exp, err := os.ReadFile(filepath.Join(dir, "export", "B", "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(exp), `{"type":"algorithm","round":3,"from":"fedaux","to":"fedavg_mask"}`) {
		t.Errorf("B's export lacks the algorithm line:\n%.400s", exp)
	}
	m.Close()
	log.Close()
	bye := m.farewell()
	if want := "fedaux: branch B of the fork at round 2 (fedavg_mask from round 3); its run log is " + filepath.Join(dir, "session-B-r2.jsonl") +
		"\nreplay it headless with: fedaux run -replay " + filepath.Join(dir, "session-B-r2.jsonl") + "\n"; bye != want {
		t.Errorf("after quitting the console says\n%s\nwant\n%s", bye, want)
	}
	fork, err := os.ReadFile(filepath.Join(dir, "session-B-r2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fork), `{"type":"algorithm","round":3,"from":"fedaux","to":"fedavg_mask"}`) {
		t.Errorf("B's run log lacks the algorithm line:\n%.400s", fork)
	}
	if _, err := presets.Get("sbm"); err != nil {
		t.Fatal(err)
	}
}

// numbersText is what a round computed (knobs, every client's metrics,
// the means, the similarity, the weights and the per-client alphas) as
// JSON, without the optional views a console asks for.
func numbersText(t *testing.T, r *sim.RoundReport) string {
	t.Helper()
	return reportText(t, &sim.RoundReport{Round: r.Round, Alpha: r.Alpha, Sigma: r.Sigma, Clients: r.Clients,
		MeanVal: r.MeanVal, MeanTest: r.MeanTest, Similarity: r.Similarity, Weights: r.Weights, Alphas: r.Alphas})
}

// TestForkLocalShowsView forks on Local, whose server reads no
// similarity: switched to B, the heat map shows B's APV similarity of the
// last round (computed on demand, paused) and of the rounds after (asked
// of the engine), not a note that it is not computed.
func TestForkLocalShowsView(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n", "F")
	for m.algos.Selected() != methods.Local {
		press(m, "down")
	}
	press(m, "enter", "n", "b")
	if m.cfg.Algo != methods.Local || m.branchName != "B" {
		t.Fatalf("branch %s runs %s, want B on local", m.branchName, m.cfg.Algo)
	}
	for _, step := range []string{"after b", "after a round on B"} {
		scr := plain(m.Render())
		if strings.Contains(scr, "computed from round") || !strings.Contains(scr, "apv") {
			t.Errorf("%s, B's heat map does not show its APV similarity:\n%s", step, scr)
		}
		if m.reports[len(m.reports)-1].Views[sim.SourceAPV] == nil {
			t.Errorf("%s, B's last round has no APV view", step)
		}
		press(m, "n")
	}
}

// TestAlgoPickerFits shows the algorithm picker at 80x24 and 120x40:
// every algorithm is on screen, offered or with its reason, and no line
// is cut.
func TestAlgoPickerFits(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m := newPresetModel(t, "sbm-gauss", true, size[0], size[1], small)
		press(m, "n", "F")
		scr := plain(m.Render())
		for _, a := range sim.Algorithms() {
			if !strings.Contains(scr, string(a)) {
				t.Errorf("%dx%d: %s is not on screen:\n%s", size[0], size[1], a, scr)
			}
		}
		for i, l := range strings.Split(scr, "\n")[:size[1]-2] {
			// Descriptions (after two spaces) and the log's lines may be cut.
			if strings.HasSuffix(strings.TrimRight(l, " "), "…") && !strings.Contains(l, "  ") && !strings.HasPrefix(l, "· ") {
				t.Errorf("%dx%d: line %d is cut: %q", size[0], size[1], i, l)
			}
		}
		if !strings.Contains(scr, "enter fork") {
			t.Errorf("%dx%d: the footer does not say how to fork:\n%s", size[0], size[1], scr)
		}
		press(m, "esc")
		if m.screen != dashboard || m.other != nil {
			t.Errorf("esc: screen %v, forked %v", m.screen, m.other != nil)
		}
	}
}

// TestForkAtRoundZeroOnLocal forks before any round with B on Local: B's
// rounds are those of a session that runs Local from the start (the same
// seed, so the same initial model and streams).
func TestForkAtRoundZeroOnLocal(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "F")
	for m.algos.Selected() != methods.Local {
		press(m, "down")
	}
	press(m, "enter", "n", "n", "b")
	ref := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Algo = methods.Local })
	press(ref, "n", "n")
	if m.cfg.Algo != methods.Local || len(m.reports) != 2 {
		t.Fatalf("branch %s runs %s, %d rounds", m.branchName, m.cfg.Algo, len(m.reports))
	}
	for r := range 2 {
		if numbersText(t, m.reports[r]) != numbersText(t, ref.reports[r]) {
			t.Errorf("round %d of B (local from round 1) differs from a session of local", r+1)
		}
	}
}

// TestChartNamesOtherBranch: the chart's title names the other branch's
// curve at 80 columns too (its label shortened), on a fork on another
// algorithm.
func TestChartNamesOtherBranch(t *testing.T) {
	st := NewStyles(true)
	var reps []*sim.RoundReport
	for i := 1; i <= 5; i++ {
		reps = append(reps, &sim.RoundReport{Round: i, MeanVal: 70 + float64(i), MeanTest: 71 + float64(i)})
	}
	for _, c := range []struct {
		width      int
		name, want string
	}{
		{120, "B local", "─ B local test 76.0"},
		{47, "B local", "─ B local 76.0"},
		{40, "B fedavg_mask", "─ B 76.0"},
		{47, "B", "─ B test 76.0"},
	} {
		ch := chartModel{styles: &st, name: "A fedaux", other: reps, otherName: c.name}
		ch.SetSize(c.width, 10)
		ch.SetData(reps, nil)
		title := plain(strings.Split(ch.View(), "\n")[0])
		if !strings.Contains(title, c.want) {
			t.Errorf("%d columns, other branch %q: title %q lacks %q", c.width, c.name, title, c.want)
		}
	}
}

// TestSwitchBranchAlgorithm forks after round 2 on the same algorithm,
// steps once, and switches branch B to FedAvg_mask (F on a forked run):
// B's next rounds are those of an engine restored from B's checkpoint
// with FedAvg_mask, and B's run log holds the switch.
func TestSwitchBranchAlgorithm(t *testing.T) {
	m, log, path := newSessionModel(t)
	dir := filepath.Dir(path)
	press(m, "n", "n", "f", "b", "n")
	ckPath := filepath.Join(dir, "b3.ck")
	if err := m.engine.SaveCheckpoint(ckPath); err != nil {
		t.Fatal(err)
	}
	press(m, "F")
	if m.screen != choosing || !m.algos.switching || !strings.Contains(plain(m.Render()), "branch B at round 3: its algorithm from round 4") {
		t.Fatalf("F on a forked run:\n%s", plain(m.Render()))
	}
	if foot := plain(m.footer()); !strings.Contains(foot, "enter switch branch B") || strings.Contains(foot, "enter fork") {
		t.Errorf("F on a forked run: the footer says %q", foot)
	}
	for m.algos.Selected() != methods.FedAvgMask {
		press(m, "down")
	}
	press(m, "enter", "n", "n")
	if m.cfg.Algo != methods.FedAvgMask || m.other.cfg.Algo != methods.FedAux || len(m.switches) != 1 {
		t.Fatalf("branch %s runs %s (other %s), switches %v", m.branchName, m.cfg.Algo, m.other.cfg.Algo, m.switches)
	}
	ck, err := sim.LoadCheckpoint(ckPath)
	if err != nil {
		t.Fatal(err)
	}
	ck.Config.Algo, ck.Strategy = methods.FedAvgMask, nil
	ref, err := ck.Resume(m.engine.Data(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for r := 4; r <= 5; r++ {
		rep, err := ref.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if numbersText(t, rep) != numbersText(t, m.reports[r-1]) {
			t.Errorf("branch B's round %d differs from a restored engine's with fedavg_mask", r)
		}
		if numbersText(t, m.reports[r-1]) == numbersText(t, m.other.reports[r-1]) {
			t.Errorf("round %d is the same on both branches although B runs fedavg_mask", r)
		}
	}
	m.Close()
	log.Close()
	fork, err := os.ReadFile(filepath.Join(dir, "session-B-r2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fork), `{"type":"algorithm","round":4,"from":"fedaux","to":"fedavg_mask"}`) {
		t.Errorf("B's run log lacks the switch:\n%.300s", fork)
	}
}
