package tui

import (
	"strings"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestDefaultViewComputed: on FedAvg the heat map opens on a view that
// no round computes unless it is shown (pc1). It said "computed from
// round 2 on" after round 1, "from round 3 on" after round 2, and so on
// for good: nothing asked the engine for it until m was pressed. Shown
// after a round, it is computed for that round when the console pauses,
// and by every round after.
func TestDefaultViewComputed(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small, func(c *sim.Config) { c.Algo = methods.FedAvg })
	press(m, "n")
	s, ok := m.heat.shown()
	if !ok || s.name != "pc1" {
		t.Fatalf("FedAvg's heat map shows %q, want pc1 (the test's premise)", s.name)
	}
	for round := 1; round <= 3; round++ {
		if round > 1 {
			press(m, "n")
		}
		if _, ok := m.reports[len(m.reports)-1].Views[sim.Source("pc1")]; !ok {
			t.Errorf("round %d: pc1 is shown but not computed", round)
		}
		if scr := plain(m.Render()); strings.Contains(scr, "computed from round") {
			t.Errorf("round %d: the heat map waits for a round:\n%s", round, scr)
		}
	}
}
