package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/fedaux/fedaux/sim"
)

// algoPicker chooses the algorithm branch B of a fork runs (F): the
// algorithms the run can go on under from its state (sim.Engine.CanSwitch:
// those whose client model is the run's), the run's own first; the
// others are listed apart, grouped by why they are not offered.
type algoPicker struct {
	styles    *Styles
	from      sim.Algorithm
	branch    string          // "B" for a fork; the shown branch when it switches a forked branch's algorithm
	switching bool            // the picker switches the shown branch's algorithm instead of forking
	model     string          // the run's client model (sim.Engine.ModelName)
	round     int             // the round the fork is at
	offer     []sim.Algorithm // the run's algorithm first
	why       []notOffered
	cur       int
	width     int
	height    int
}

// notOffered is a reason and the algorithms it excludes.
type notOffered struct {
	reason string
	algos  []sim.Algorithm
}

// newAlgoPicker lists e's algorithm and those e can switch to, and the
// others with the reason CanSwitch gives. branch is "" for a fork (B's
// algorithm), else the name of the forked branch whose algorithm it
// switches.
func newAlgoPicker(st *Styles, e *sim.Engine, branch string) algoPicker {
	from := e.Config().Algo
	p := algoPicker{styles: st, from: from, branch: "B", model: e.ModelName(), round: e.Round(), offer: []sim.Algorithm{from}}
	if branch != "" {
		p.branch, p.switching = branch, true
	}
	for _, a := range sim.Algorithms() {
		if a == from {
			continue
		}
		err := e.CanSwitch(a)
		if err == nil {
			p.offer = append(p.offer, a)
			continue
		}
		r := err.Error()
		i := slices.IndexFunc(p.why, func(n notOffered) bool { return n.reason == r })
		if i < 0 {
			p.why = append(p.why, notOffered{reason: r})
			i = len(p.why) - 1
		}
		p.why[i].algos = append(p.why[i].algos, a)
	}
	return p
}

// Selected is the algorithm under the cursor.
func (p *algoPicker) Selected() sim.Algorithm { return p.offer[p.cur] }

// Move moves the cursor by d, within the list.
func (p *algoPicker) Move(d int) { p.cur = min(max(p.cur+d, 0), len(p.offer)-1) }

// SetSize sets the room the picker has.
func (p *algoPicker) SetSize(w, h int) { p.width, p.height = w, h }

// View renders the picker: a title, the algorithms offered (the cursor's
// highlighted, each with its description), and why the others are not.
func (p *algoPicker) View() string {
	st := p.styles
	w := max(p.width, 20)
	lines := []string{
		st.Title.Render(p.title()),
		"",
	}
	nameW := 0
	for _, a := range p.offer {
		nameW = max(nameW, len(a))
	}
	for i, a := range p.offer {
		desc := a.Describe()
		switch {
		case a == p.from && p.switching:
			desc = "branch " + p.branch + "'s algorithm: no change"
		case a == p.from:
			desc = "the run's algorithm: B as A, with its own knobs"
		}
		mark, name := "  ", fmt.Sprintf("%-*s", nameW, a)
		if i == p.cur {
			mark, name = st.Selected.Render("›")+" ", st.Selected.Render(name)
		}
		lines = append(lines, fitLine(mark+name+"  "+st.Dim.Render(desc), w))
	}
	long := wrapTop(fmt.Sprintf("These train the run's client model (%s): its clients' parameters, optimiser moments and random streams, and the server's messages for round %d (mixed by %s), carry over bit for bit; the new algorithm's server starts fresh (no strategy state, such as GCFL's clusters, carries over).",
		p.model, p.round+1, p.from), w)
	short := fmt.Sprintf("Same client model (%s): B starts in A's state bit for bit; its server starts fresh.", p.model)
	if p.switching {
		short = fmt.Sprintf("Same client model (%s): %s goes on from its state; the new server starts fresh.", p.model, p.branch)
	}
	var why []string
	if len(p.why) > 0 {
		why = append(why, "", st.Dim.Render("not offered:"))
		for _, n := range p.why {
			names := make([]string, len(n.algos))
			for i, a := range n.algos {
				names[i] = string(a)
			}
			why = append(why, st.Dim.Render(wrapTop(strings.Join(names, ", ")+": "+n.reason, w)))
		}
	}
	// On a short screen the explanation takes one line (docs/console.md
	// has the rest), so that every algorithm not offered stays listed.
	out := strings.Join(slices.Concat(lines, []string{"", long}, why), "\n")
	if p.height > 0 && strings.Count(out, "\n")+1 > p.height {
		long = wrapTop(short, w)
		out = strings.Join(slices.Concat(lines, []string{"", long}, why), "\n")
	}
	if p.height > 0 && strings.Count(out, "\n")+1 > p.height {
		all := strings.Split(out, "\n")
		out = strings.Join(all[:p.height], "\n")
	}
	return out
}

// title says what the picker chooses.
func (p *algoPicker) title() string {
	if p.switching {
		return fmt.Sprintf("branch %s at round %d: its algorithm from round %d", p.branch, p.round, p.round+1)
	}
	return fmt.Sprintf("fork at round %d: the algorithm of branch B from round %d", p.round, p.round+1)
}

// help is the footer's key help while the picker is open: enter forks,
// or on a forked run switches the shown branch's algorithm.
func (p *algoPicker) help() []key.Binding {
	enter, esc := "fork", "back, no fork"
	if p.switching {
		enter, esc = "switch branch "+p.branch, "back, no switch"
	}
	return []key.Binding{
		key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑↓", "choose")),
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", enter)),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", esc)),
	}
}
