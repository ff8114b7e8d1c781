package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/fedaux/fedaux/presets"
)

// TestViewGolden compares the screen after three rounds of a fixed-seed
// run of the sbm preset as users open it (3000 nodes, not testNodes)
// with the files in testdata/TestViewGolden (go test -update rewrites
// them). The round time is masked.
func TestViewGolden(t *testing.T) {
	p, err := presets.Get("sbm")
	if err != nil {
		t.Fatal(err)
	}
	m := openPreset(t, p, false, 80, 24)
	press(m, "n", "n", "n")
	if m.Round() != 3 {
		t.Fatalf("after 3 steps the console shows %d rounds", m.Round())
	}
	for _, tc := range []struct {
		w, h    int
		noColor bool
	}{{80, 24, false}, {120, 40, false}, {80, 24, true}, {120, 40, true}} {
		name := fmt.Sprintf("%dx%d", tc.w, tc.h)
		if tc.noColor {
			name += "-nocolor"
		}
		t.Run(name, func(t *testing.T) {
			restyle(m, tc.noColor)
			m.Update(tea.WindowSizeMsg{Width: tc.w, Height: tc.h})
			view := m.View()
			if !view.AltScreen {
				t.Error("the console does not use the alternate screen")
			}
			out := masked(view.Content)
			checkSize(t, out, tc.w, tc.h)
			if tc.noColor && (strings.Contains(out, "\x1b[38") || strings.Contains(out, "\x1b[48")) {
				t.Error("NO_COLOR view has colour sequences")
			}
			wants := []string{"round 3/100", "α 10", "σ 1", "w max/min 1.0", "paused", "A00", "E19",
				"apv  stretched 0.9999"}
			if tc.w >= 100 {
				wants = append(wants, "seed 7", "min 0.9999", "auto: span")
			}
			for _, want := range wants {
				if !strings.Contains(plain(out), want) {
					t.Errorf("view lacks %q", want)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
}

// restyle switches m to colour or NO_COLOR styles, as if it had been
// opened so.
func restyle(m *Model, noColor bool) {
	*m.styles = NewStyles(noColor)
	m.help.Styles = m.styles.Help
	m.chart.invalidate()
	m.heat.invalidate()
}

// checkSize fails unless s has exactly h lines of exactly w columns.
func checkSize(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("view has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Errorf("line %d is %d columns wide, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
}

// TestViewSizes renders every screen at many sizes, smallest to large,
// and checks that the frame always fills the terminal exactly.
func TestViewSizes(t *testing.T) {
	m := newTestModel(t, false, 80, 24, small)
	press(m, "n", "+")
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {200, 60}, {60, 20}, {40, 12}} {
		for _, keys := range [][]string{nil, {"v"}, {"tab"}, {"m"}, {"z"}, {"?"}, {"a"}, {"A"}, {"P"}} {
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			press(m, keys...)
			checkSize(t, m.Render(), sz[0], sz[1])
			press(m, "esc")
			if keys != nil && (keys[0] == "v" || keys[0] == "tab" || keys[0] == "z") {
				press(m, keys...) // toggle back
			}
		}
	}
}

// TestLongErrorWraps: an error wider than the screen wraps onto the log's
// lines above it, so that its end (often the part that says what is
// allowed) is read; one too long for them shows its head and its end; a
// screen with a one-line log shows its head, cut.
func TestLongErrorWraps(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	m.logf(false, "an earlier line")
	msg := "export: open /home/someone/a/directory/whose/name/is/rather/long/and/goes/on/for/a/while/" +
		"before/it/ends/figures/view-apv.png: permission denied; choose a directory you can write to (e again)"
	m.logf(true, "%s", msg)
	scr := plain(m.Render())
	checkSize(t, scr, 120, 40)
	if !strings.Contains(scr, "you can write to (e again)") || !strings.Contains(scr, "! export: open") {
		t.Errorf("the wrapped error is not on screen whole:\n%s", scr)
	}
	if strings.Contains(scr, "an earlier line") {
		t.Errorf("the earlier line is shown although the error fills the log's three lines:\n%s", scr)
	}
	// Too long for three lines: the head, and the end on the last.
	m.logf(true, "%s", strings.Repeat("a-directory-name-without-spaces/", 20)+": file name too long")
	scr = plain(m.Render())
	checkSize(t, scr, 120, 40)
	if !strings.Contains(scr, "! a-directory-name") || !strings.Contains(scr, "…") || !strings.Contains(scr, "spaces/: file name too long") {
		t.Errorf("an error too long for the log's lines does not show its head and its end:\n%s", scr)
	}
	m.logf(true, "%s", msg)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	scr = plain(m.Render())
	checkSize(t, scr, 80, 24)
	if !strings.Contains(scr, "! export: open /home/someone") || strings.Contains(scr, "(e again)") {
		t.Errorf("a one-line log does not show the error's head, cut:\n%s", scr)
	}
}
