package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestFirstScreenRuns opens the console as `fedaux` does (five start
// rounds) at 120x40 and 80x24, without a key press: it runs the rounds,
// pauses, and its screen shows the clients' accuracies and the
// similarity matrix in group order.
func TestFirstScreenRuns(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		m := newPresetModel(t, "sbm-gauss", true, w, h, small)
		m.opts.StartRounds = 5
		o := &observer{}
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h),
			teatest.WithProgramOptions(tea.WithFilter(o.filter)))
		o.waitFor(t, tm, "five rounds, paused", func(o *observer) bool { return o.round == 5 && !o.busy })
		time.Sleep(20 * time.Millisecond)
		o.waitFor(t, tm, "the screen", func(o *observer) bool { return strings.Contains(o.screen, "round 5/100") })
		o.mu.Lock()
		scr := o.screen
		o.mu.Unlock()
		wants := []string{"round 5/100", "⏸ paused", "A00", "E19", "apv  stretched"}
		if w >= 100 {
			wants = append(wants, "running the first 5 rounds, then pausing", "A  A  A  A  B  B  B  B", "mean ⣀ val")
		}
		for _, want := range wants {
			if !strings.Contains(scr, want) && !strings.Contains(flat(scr), want) {
				t.Errorf("%dx%d: first screen lacks %q:\n%s", w, h, want, scr)
			}
		}
		quit(t, m, tm)
	}
}

// TestSpaceDuringStartRuns checks that space while the start rounds run
// runs on instead of pausing (as a user who presses space at once means).
func TestSpaceDuringStartRuns(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	m.opts.StartRounds = 5
	cmd := m.Init()
	m.key(keyMsg("space"))
	if !m.running {
		t.Error("space during the start rounds paused the console")
	}
	m.running = false // let the round in flight end the test
	drive(m, cmd)
}
