package tui

import (
	"github.com/fedaux/fedaux/sim"
	"strings"
	"testing"
)

func TestCellNumber(t *testing.T) {
	for _, c := range []struct {
		v    float64
		w    int
		want string
	}{
		{0.99951, 6, " .9995"}, {1, 6, " 1.000"}, {-0.45, 6, " -.450"}, {0.05, 4, " .05"},
		{1, 4, " 1.0"}, {-1, 4, "  -1"}, {123.4, 4, " 123"},
	} {
		if got := cellNumber(c.v, c.w); got != c.want {
			t.Errorf("cellNumber(%v, %d) = %q, want %q", c.v, c.w, got, c.want)
		}
	}
}

func TestLadder(t *testing.T) {
	for _, c := range []struct {
		v    float64
		dir  int
		want float64
	}{{1, 1, 2}, {2, 1, 5}, {5, 1, 10}, {1, -1, 0.5}, {0.5, -1, 0.2}, {0.3, 1, 0.5}, {0.3, -1, 0.2}, {0.1, -1, 0.05}} {
		if got := ladder(c.v, c.dir); got != c.want {
			t.Errorf("ladder(%v, %d) = %v, want %v", c.v, c.dir, got, c.want)
		}
	}
}

func TestCheckKnob(t *testing.T) {
	for _, c := range []struct {
		name sim.Knob
		v    float64
		ok   bool
	}{{"alpha", 0, true}, {"alpha", -1, false}, {"sigma", 0, false}, {"sigma", 0.1, true},
		{"partners", 0, true}, {"partners", 0.5, false}, {"partners", 1, true}, {"partners", 20, true}, {"partners", 21, false}} {
		if err := checkKnob(c.name, c.v, 20); (err == nil) != c.ok {
			t.Errorf("checkKnob(%s, %v) = %v", c.name, c.v, err)
		}
	}
}

func TestFit(t *testing.T) {
	got := fit("abc\nlonger line", 5, 3)
	want := "abc  \nlong…\n     "
	if got != want {
		t.Errorf("fit = %q, want %q", got, want)
	}
}

// TestKeysHaveHelp checks that every key in the help has a description
// and that the one-line help fits 80 columns.
func TestKeysHaveHelp(t *testing.T) {
	k := defaultKeys()
	for _, col := range k.FullHelp() {
		for _, b := range col {
			if b.Help().Key == "" || b.Help().Desc == "" || len(b.Keys()) == 0 {
				t.Errorf("binding %v has no help", b.Keys())
			}
		}
	}
	m := newTestModel(t, false, 80, 24, small)
	if w := len([]rune(plain(m.footer()))); w > 80 {
		t.Errorf("short help is %d columns wide", w)
	}
	var full string
	for _, b := range k.helpBlocks() {
		block := plain(m.help.FullHelpView(b))
		for _, l := range strings.Split(block, "\n") {
			if w := len([]rune(l)); w > 80 {
				t.Errorf("help line is %d columns wide: %q", w, l)
			}
		}
		full += block + "\n"
	}
	for _, want := range []string{"step a round", "alpha up", "type sigma", "type partners", "partners down",
		"next matrix", "raw/stretched scale", "next sim source", "apv-mix on/off", "export", "quit",
		"+/=", "-/_", ">/.", "</,", "space/p", "hjkl", "q/^c"} { // every key that acts is named
		if !strings.Contains(full, want) {
			t.Errorf("full help at 80 columns lacks %q:\n%s", want, full)
		}
	}
	m.Update(keyMsg("?"))
	if scr := plain(m.Render()); !strings.Contains(scr, "Any key returns.") {
		t.Errorf("the help screen at 80 x 24 is cut:\n%s", scr)
	}
}

// TestResetAndPreset resets with a new seed, keeping a changed knob, and
// reloads a preset from the picker.
func TestResetAndPreset(t *testing.T) {
	m := newTestModel(t, false, 80, 24, small)
	press(m, "n", "n", "+")
	press(m, "r")
	if m.cfg.Seed != 8 || m.Round() != 0 || m.Engine().Round() != 0 {
		t.Fatalf("after reset: seed %d, %d rounds", m.cfg.Seed, m.Round())
	}
	if a := m.Engine().Knobs().Alpha; a != 11 {
		t.Errorf("reset dropped the changed alpha: %v", a)
	}
	if !strings.Contains(plain(m.Render()), "seed 8") {
		t.Errorf("header lacks the new seed:\n%s", plain(m.Render()))
	}
	press(m, "n")
	press(m, "P")
	if m.screen != picking {
		t.Fatal("P does not open the picker")
	}
	if got := m.picker.Selected(); got == nil || got.Name != "sbm" {
		t.Fatalf("picker opens on %v, want the current preset", got)
	}
	press(m, "enter")
	if m.screen != dashboard || m.Round() != 0 || m.preset.Name != "sbm" {
		t.Errorf("after picking sbm: screen %v, %d rounds, preset %s", m.screen, m.Round(), m.preset.Name)
	}
	if a := m.Engine().Knobs().Alpha; a != 10 {
		t.Errorf("a preset loads its own alpha, got %v", a)
	}
}

// TestResetDuringRound resets while a round is in flight: the round is
// cancelled and the new engine replaces the old one.
func TestResetDuringRound(t *testing.T) {
	m := newTestModel(t, false, 80, 24, small)
	step := m.key(keyMsg("n"))
	if m.act != stepping {
		t.Fatal("n does not start a round")
	}
	if cmd := m.key(keyMsg("r")); cmd != nil {
		t.Fatal("reset during a round starts at once")
	}
	drive(m, step)
	if m.cfg.Seed != 8 || m.Round() != 0 || m.act != idle {
		t.Errorf("after reset during a round: seed %d, %d rounds, activity %v", m.cfg.Seed, m.Round(), m.act)
	}
}
