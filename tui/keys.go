package tui

import "charm.land/bubbles/v2/key"

// keyMap is every key the console answers to; the help view lists them.
type keyMap struct {
	Step, Step10, Run, Reset, Restart, Preset key.Binding
	Scenario                                  key.Binding
	AlphaUp, AlphaDown, SetAlpha              key.Binding
	SigmaUp, SigmaDown, SetSigma              key.Binding
	PartnersUp, PartnersDown, SetPartners     key.Binding
	Setting                                   key.Binding
	Source, APVMix                            key.Binding
	Matrix, Scale, Values, Cell, Pane, Export key.Binding
	Client, Fork, ForkAlgo, Branch            key.Binding
	Help, Quit, Cancel, Confirm               key.Binding
	cellUp, cellDown, cellLeft, cellRight     key.Binding

	// Short forms for the one-line help.
	shortAlpha, shortSigma key.Binding
}

func defaultKeys() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Step:         b("n", "step a round", "n"),
		Step10:       b("N", "step 10 rounds", "N"),
		Run:          b("space/p", "run/pause", "space", "p"),
		Reset:        b("r", "restart, next seed", "r"),
		Restart:      b("R", "restart, same seed", "R"),
		Preset:       b("P", "choose preset", "P"),
		Scenario:     b("S", "edit scenario", "S"),
		AlphaUp:      b("+/=", "alpha up", "+", "="),
		AlphaDown:    b("-/_", "alpha down", "-", "_"),
		SetAlpha:     b("a", "type alpha", "a"),
		SigmaUp:      b(">/.", "sigma up", ">", "."),
		SigmaDown:    b("</,", "sigma down", "<", ","),
		SetSigma:     b("s", "type sigma", "s"),
		PartnersUp:   b("]", "auto α partners up", "]"),
		PartnersDown: b("[", "partners down (0 off)", "["),
		SetPartners:  b("A", "type partners", "A"),
		Setting:      b("o", "type a method setting", "o"),
		Source:       b("g", "next sim source (r/R)", "g"),
		APVMix:       b("x", "apv-mix on/off (r/R)", "x"),
		Matrix:       b("m", "next matrix", "m"),
		Scale:        b("z", "raw/stretched scale", "z"),
		Values:       b("v", "show values", "v"),
		Cell:         b("←↑↓→", "move cell (hjkl)", "left", "up", "down", "right", "h", "j", "k", "l"),
		Pane:         b("tab", "heat map ⇄ chart", "tab"),
		Client:       b("c", "one client (or click)", "c"),
		Fork:         b("f", "fork here (A and B)", "f"),
		ForkAlgo:     b("F", "other algo: fork/branch", "F"),
		Branch:       b("b", "act on the other branch", "b"),
		Export:       b("e", "export run", "e"),
		Help:         b("?", "help", "?"),
		Quit:         b("q/^c", "quit", "q", "ctrl+c"),
		Cancel:       b("esc", "close/cancel", "esc"),
		Confirm:      b("enter", "apply", "enter"),
		shortAlpha:   b("+/-", "α", "+", "-"),
		shortSigma:   b("</>", "σ", "<", ">"),
		cellUp:       key.NewBinding(key.WithKeys("up", "k")),
		cellDown:     key.NewBinding(key.WithKeys("down", "j")),
		cellLeft:     key.NewBinding(key.WithKeys("left", "h")),
		cellRight:    key.NewBinding(key.WithKeys("right", "l")),
	}
}

// ShortHelp is the one-line help under the dashboard.
func (k keyMap) ShortHelp() []key.Binding {
	step, run, scale, export, quit := k.Step, k.Run, k.Scale, k.Export, k.Quit
	quit.SetHelp("q", "quit")
	step.SetHelp("n", "step")
	run.SetHelp("space", "run")
	scale.SetHelp("z", "scale")
	export.SetHelp("e", "export")
	return []key.Binding{step, run, k.shortAlpha, k.shortSigma, scale, export, k.Help, quit}
}

// helpScreen is the bottom line of the help screen, where any key
// returns and only ctrl+c quits.
func (k keyMap) helpScreen() []key.Binding {
	return []key.Binding{
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("any key", "back")),
		key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("^c", "quit")),
	}
}

// FullHelp is every key, in columns.
func (k keyMap) FullHelp() [][]key.Binding {
	var cols [][]key.Binding
	for _, b := range k.helpBlocks() {
		cols = append(cols, b...)
	}
	return cols
}

// helpBlocks is FullHelp in two blocks of columns, shown one above the
// other so that each fits 80 columns: the run and its knobs, then the
// variant, the heat map and the rest.
func (k keyMap) helpBlocks() [][][]key.Binding {
	return [][][]key.Binding{
		{
			{k.Step, k.Step10, k.Run, k.Reset, k.Restart, k.Preset},
			{k.AlphaUp, k.AlphaDown, k.SetAlpha, k.SigmaUp, k.SigmaDown, k.SetSigma},
			{k.PartnersUp, k.PartnersDown, k.SetPartners, k.Setting, k.Scenario},
		},
		{
			{k.Matrix, k.Scale, k.Values, k.Cell, k.Pane},
			{k.Client, k.Source, k.APVMix, k.Export, k.Help},
			{k.Fork, k.ForkAlgo, k.Branch, k.Cancel, k.Quit},
		},
	}
}
