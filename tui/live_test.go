package tui

import (
	"strings"
	"testing"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestLiveSettingPrompt: o asks for the method's live setting (FedProx's
// mu), refuses a value out of its range with the reason, applies a good
// one from the next round, shows it in the header as old→new and logs it
// as a knob change, which the engine records.
func TestLiveSettingPrompt(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Algo = methods.FedProx; c.Epochs = 2 })
	press(m, "n")
	press(m, "o")
	if m.screen != prompting || m.prompt.setting != "mu" {
		t.Fatalf("o on fedprox: screen %v, setting %q; want the prompt for mu", m.screen, m.prompt.setting)
	}
	if scr := plain(m.Render()); !strings.Contains(scr, "mu now 0.01") || !strings.Contains(scr, "mu: ") {
		t.Errorf("the prompt for mu lacks its label or value now:\n%s", scr)
	}
	press(m, "-", "1", "enter")
	if m.screen != prompting || !strings.Contains(m.prompt.err, "mu -1 refused: want a finite value >= 0") {
		t.Errorf("mu -1: screen %v, refusal %q", m.screen, m.prompt.err)
	}
	press(m, "esc", "o", "0", ".", "5", "enter")
	if m.screen != dashboard {
		t.Fatalf("mu 0.5 was not applied: %q", m.prompt.err)
	}
	if got := m.engine.Knobs().Value("mu"); got != 0.5 {
		t.Errorf("engine mu %v after o 0.5, want 0.5", got)
	}
	if h := m.engine.KnobHistory(); len(h) != 1 || h[0] != (sim.KnobChange{Round: 2, Name: "mu", From: 0.01, To: 0.5}) {
		t.Errorf("engine knob history %+v, want mu 0.01 -> 0.5 from round 2", h)
	}
	scr := plain(m.Render())
	for _, want := range []string{"mu 0.01→0.5", "mu 0.01 → 0.5 from round 2"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	press(m, "n")
	if scr := plain(m.Render()); !strings.Contains(scr, "mu 0.5") || strings.Contains(scr, "→0.5") {
		t.Errorf("after round 2 the header should show mu 0.5 without an arrow:\n%s", scr)
	}
	// The help lists the method's settings as the next round uses them.
	press(m, "?")
	if scr := plain(m.Render()); !strings.Contains(scr, "fedprox's settings: mu 0.5 (live: o)") {
		t.Errorf("the help lacks fedprox's settings:\n%s", scr)
	}
	press(m, "esc")
	// A restart keeps the knobs as they are, mu included.
	press(m, "R")
	if m.cfg.Options.Float("mu") != 0.5 || m.engine.Knobs().Value("mu") != 0.5 || len(m.reports) != 0 {
		t.Errorf("after R: config mu %v, engine mu %v, %d rounds; want 0.5, 0.5, 0", m.cfg.Options.Float("mu"), m.engine.Knobs().Value("mu"), len(m.reports))
	}
}

// TestNoLiveSettings: o on a method without live settings says so and
// names those that have some.
func TestNoLiveSettings(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Algo = methods.FedAvg })
	press(m, "o")
	if m.screen != dashboard {
		t.Fatal("o opened a prompt on fedavg")
	}
	ev := flat(m.eventsView(len(m.events), 0))
	if !strings.Contains(ev, "fedavg has no live settings") || !strings.Contains(ev, "fedprox mu") {
		t.Errorf("events lack the reason:\n%s", ev)
	}
}

// TestKnobSymbol: the chart's marker names the kind of knob that changed.
func TestKnobSymbol(t *testing.T) {
	for _, c := range []struct {
		names []sim.Knob
		want  rune
	}{
		{[]sim.Knob{"alpha"}, 'α'},
		{[]sim.Knob{"partners"}, 'α'},
		{[]sim.Knob{"sigma"}, 'σ'},
		{[]sim.Knob{"mu"}, 'm'},
		{[]sim.Knob{"eps1", "eps2"}, 'e'},
		{[]sim.Knob{"alpha", "sigma"}, '*'},
		{[]sim.Knob{"sigma", "tau"}, '*'},
	} {
		var cs []export.Control
		for _, n := range c.names {
			cs = append(cs, export.Control{Round: 4, Name: n}, export.Control{Round: 5, Name: "alpha"})
		}
		if got := knobSymbol(cs, 4); got != c.want {
			t.Errorf("knobSymbol(%v) = %c, want %c", c.names, got, c.want)
		}
	}
}
