package tui

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestDrillDown opens the drill-down on a client with c, moves to the
// next client in display order, goes back, and steps while it is open.
func TestDrillDown(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n", "n", "n", "c")
	if m.screen != drilling || m.drill.id != m.order[0] {
		t.Fatalf("c: screen %v, client %d; want the drill-down on %d", m.screen, m.drill.id, m.order[0])
	}
	scr := plain(m.Render())
	name := clientLabel(m.order[0], m.groups)
	for _, want := range []string{"client " + name, "train loss ", "top partners (self ", name + " ⣀ val",
		"weights of " + name + " over rounds", " nodes · round 3: "} {
		if !strings.Contains(scr, want) {
			t.Errorf("drill-down lacks %q:\n%s", want, scr)
		}
	}
	c, _ := m.drill.client(m.reports[2])
	if want := "test " + strconv.FormatFloat(c.TestAcc, 'f', 1, 64); !strings.Contains(scr, want) {
		t.Errorf("drill-down lacks the client's round-3 %q:\n%s", want, scr)
	}
	press(m, "down")
	if m.drill.id != m.order[1] {
		t.Errorf("down: client %d, want %d", m.drill.id, m.order[1])
	}
	press(m, "n") // steps with the drill-down open
	if m.Round() != 4 || m.screen != drilling {
		t.Errorf("n in the drill-down: round %d, screen %v", m.Round(), m.screen)
	}
	if !strings.Contains(plain(m.Render()), "round 4: ") {
		t.Errorf("the drill-down does not follow the rounds:\n%s", plain(m.Render()))
	}
	press(m, "esc")
	if m.screen != dashboard {
		t.Errorf("esc: screen %v", m.screen)
	}
}

// TestMouse clicks a client's bar (the drill-down opens on it) and a
// heat-map cell (its value is shown).
func TestMouse(t *testing.T) {
	m := newTestModel(t, true, 120, 40, small)
	press(m, "n")
	m.Render()
	click := func(x, y int) { m.Update(tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft}) }
	click(3, 1+1+4) // the fifth bar: header, bars' title, rows
	if m.screen != drilling || m.drill.id != m.order[4] {
		t.Fatalf("click on bar 5: screen %v, client %d; want the drill-down on %d", m.screen, m.drill.id, m.order[4])
	}
	press(m, "esc")
	m.Render()
	l := m.plan()
	cx, cy := 2, 3
	click(l.leftW+1+m.heat.geoColX+cx*m.heat.geoCellW, 1+m.heat.geoRowY+cy)
	if !m.heat.values || m.heat.cx != cx || m.heat.cy != cy {
		t.Fatalf("click on cell (%d, %d): values %v, cursor (%d, %d)", cx, cy, m.heat.values, m.heat.cx, m.heat.cy)
	}
	i, j := m.order[cy], m.order[cx]
	want := clientLabel(i, m.groups) + "×" + clientLabel(j, m.groups) + " = " + strconv.FormatFloat(m.reports[0].Similarity[i][j], 'g', 8, 64)
	if scr := plain(m.Render()); !strings.Contains(scr, want) {
		t.Errorf("the clicked cell's value %q is not shown:\n%s", want, scr)
	}
}
