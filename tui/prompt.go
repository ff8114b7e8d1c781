package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/sim"
)

// promptKind is what a prompt asks for.
type promptKind int

const (
	askAlpha    promptKind = iota // an exact value of alpha
	askSigma                      // an exact value of sigma
	askPartners                   // auto alpha's partners (0: off)
	askExport                     // the export directory
)

// promptModel is a one-line text input (bubbles textinput) at the bottom
// of the screen, for an exact knob value or the export directory.
type promptModel struct {
	styles *Styles
	kind   promptKind
	input  textinput.Model
	err    string
}

func newPrompt(st *Styles) promptModel {
	in := textinput.New()
	in.SetStyles(st.Input)
	in.CharLimit = 256
	return promptModel{styles: st, input: in}
}

// Open starts asking for kind, with value filled in.
func (p *promptModel) Open(kind promptKind, value string) tea.Cmd {
	p.kind, p.err = kind, ""
	p.input.Prompt = map[promptKind]string{
		askAlpha:    "alpha (>= 0, from the next round): ",
		askSigma:    "sigma (> 0, from the next round): ",
		askPartners: "auto α partners (1..K; 0: fixed alpha; from the next round): ",
		askExport:   "export to directory: ",
	}[kind]
	p.input.SetValue(value)
	p.input.CursorEnd()
	return p.input.Focus()
}

// Close stops asking.
func (p *promptModel) Close() { p.input.Blur() }

// SetWidth sets the line's width.
func (p *promptModel) SetWidth(w int) {
	p.input.SetWidth(max(8, w-len(p.input.Prompt)-2))
}

// Update forwards a message to the text input.
func (p promptModel) Update(msg tea.Msg) (promptModel, tea.Cmd) {
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	p.err = ""
	return p, cmd
}

// Knob parses the input as a value of the knob being asked for; k is the
// number of clients.
func (p *promptModel) Knob(k int) (name sim.Knob, v float64, err error) {
	name = map[promptKind]sim.Knob{askAlpha: sim.KnobAlpha, askSigma: sim.KnobSigma, askPartners: sim.KnobPartners}[p.kind]
	v, err = strconv.ParseFloat(strings.TrimSpace(p.input.Value()), 64)
	if err != nil {
		return name, 0, fmt.Errorf("%q is not a number", p.input.Value())
	}
	return name, v, checkKnob(name, v, k)
}

// View renders the prompt line, with the last error if any.
func (p promptModel) View() string {
	s := p.styles.Prompt.Render("› ") + p.input.View()
	if p.err != "" {
		s += "  " + p.styles.Error.Render(p.err)
	} else {
		s += "  " + p.styles.Dim.Render("enter apply · esc cancel")
	}
	return s
}
