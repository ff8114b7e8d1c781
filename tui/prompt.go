package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/fedaux/fedaux/sim"
)

// promptKind is what a prompt asks for.
type promptKind int

const (
	askAlpha    promptKind = iota // an exact value of alpha
	askSigma                      // an exact value of sigma
	askPartners                   // auto alpha's partners (0: off)
	askExport                     // the export directory
	askSetting                    // a live setting of the method (promptModel.setting)
)

// promptModel is a text input (bubbles textinput) at the bottom of the
// screen, for an exact knob value or the export directory, under a line
// that says what the value does or why the last one was refused. A knob
// prompt starts empty, the current value shown greyed in the field
// (typing replaces it); the export prompt starts with the proposed
// directory, to edit.
type promptModel struct {
	styles  *Styles
	kind    promptKind
	setting sim.Knob // the live method setting asked for (askSetting)
	input   textinput.Model
	width   int
	current string // the knob's value now; "" for the export
	hint    string // what the value does, shown above the field
	err     string // why the last value was refused
	busy    string // an export in progress
}

func newPrompt(st *Styles) promptModel {
	in := textinput.New()
	in.SetStyles(st.Input)
	in.CharLimit = 0 // no limit: a value cut short is another value
	return promptModel{styles: st, input: in}
}

// promptLabels are the field's labels.
var promptLabels = map[promptKind]string{
	askAlpha:    "alpha: ",
	askSigma:    "sigma: ",
	askPartners: "auto α partners: ",
	askExport:   "export to: ",
}

// Open starts asking for kind. For a knob, current is its value now (the
// field starts empty); for the export, the proposed directory (the
// field starts with it). hint says what the value does.
func (p *promptModel) Open(kind promptKind, current, hint string) tea.Cmd {
	p.kind, p.err, p.busy, p.hint = kind, "", "", hint
	p.input.Prompt = promptLabels[kind]
	if kind == askExport {
		p.current = ""
		p.input.Placeholder = ""
		p.input.SetValue(current)
		p.input.CursorEnd()
	} else {
		p.current = current
		p.input.Placeholder = current
		p.input.SetValue("")
	}
	p.SetWidth(p.width)
	return p.input.Focus()
}

// OpenSetting starts asking for the live method setting name, whose
// value now is current.
func (p *promptModel) OpenSetting(name sim.Knob, current, hint string) tea.Cmd {
	cmd := p.Open(askSetting, current, hint)
	p.setting = name
	p.input.Prompt = string(name) + ": "
	p.SetWidth(p.width)
	return cmd
}

// Close stops asking.
func (p *promptModel) Close() { p.input.Blur() }

// SetWidth sets the lines' width.
func (p *promptModel) SetWidth(w int) {
	p.width = w
	p.input.SetWidth(max(8, w-ansi.StringWidth(p.input.Prompt)-3))
}

// Update forwards a message to the text input; a key clears the last
// refusal.
func (p promptModel) Update(msg tea.Msg) (promptModel, tea.Cmd) {
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	if _, ok := msg.(tea.KeyPressMsg); ok {
		p.err = ""
	}
	return p, cmd
}

// Knob parses the input as a value of the knob being asked for; k is the
// number of clients. The error says what was refused and what is
// allowed, in words that fit the hint line.
func (p *promptModel) Knob(k int) (name sim.Knob, v float64, err error) {
	name = map[promptKind]sim.Knob{askAlpha: sim.KnobAlpha, askSigma: sim.KnobSigma, askPartners: sim.KnobPartners, askSetting: p.setting}[p.kind]
	text := strings.TrimSpace(p.input.Value())
	if text == "" {
		return name, 0, fmt.Errorf("type a value for %s (esc keeps %s)", name, p.current)
	}
	v, err = sim.ParseFloat(text)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return name, 0, fmt.Errorf("%s refused: %s is beyond float64's range; %s wants %s", name, quoteTyped(text), name, knobWant(name, k))
	case errors.Is(err, sim.ErrUnderflow):
		return name, 0, fmt.Errorf("%s refused: %s is %v; %s wants %s", name, quoteTyped(text), sim.ErrUnderflow, name, knobWant(name, k))
	case err != nil:
		return name, 0, fmt.Errorf("%s refused: %s is not a number; %s wants %s", name, quoteTyped(text), name, knobWant(name, k))
	}
	return name, v, knobError(checkKnob(name, v, k))
}

// quoteTyped quotes a text typed into a prompt for its refusal: whole
// when short, else its ends and its length ("xxx…xxx" (2000 characters)),
// so that a long paste leaves the reason and the field on screen.
func quoteTyped(text string) string {
	const ends = 24
	r := []rune(text)
	if len(r) <= 3*ends {
		return strconv.Quote(text)
	}
	return fmt.Sprintf("%s (%d characters)", strconv.Quote(string(r[:ends])+"…"+string(r[len(r)-ends:])), len(r))
}

// knobWant says which values knob name takes, for k clients.
func knobWant(name sim.Knob, k int) string {
	switch name {
	case sim.KnobSigma:
		return "a number >= " + fmtKnob(sim.MinSigma)
	case sim.KnobPartners:
		return fmt.Sprintf("0 (fixed alpha) or a number from 1 to %d", k)
	case sim.KnobAlpha:
		return "a number >= 0"
	}
	if s, ok := sim.LookupSetting(string(name)); ok && s.Type == sim.Int {
		return "an integer"
	}
	return "a number"
}

// knobError rewords a *sim.SettingError for the prompt: "sigma 1e-160
// refused: want >= 1.055e-154: ...".
func knobError(err error) error {
	var se *sim.SettingError
	if errors.As(err, &se) {
		return fmt.Errorf("%s %s refused: want %s", se.Key, se.Value, se.Want)
	}
	return err
}

// View renders the prompt: the hint line (or the refusal, or the export
// in progress) above the field, each fitted to the width.
func (p promptModel) View() string {
	st := p.styles
	var top string
	switch {
	case p.err != "":
		top = st.Error.Render("✗ " + p.err)
	case p.busy != "":
		top = st.Busy.Render(p.busy)
	default:
		keys := "enter apply · esc cancel"
		if p.current != "" {
			keys = "enter apply · esc keeps " + p.current
		}
		top = st.Dim.Render(joinFit(p.width, p.hint, keys))
	}
	return wrapTop(top, p.width) + "\n" + st.Prompt.Render("› ") + p.input.View()
}

// joinFit joins the parts with " · ", leaving out from the end what does
// not fit in w columns (the first part is always kept).
func joinFit(w int, parts ...string) string {
	out := ""
	for _, s := range parts {
		switch {
		case s == "":
		case out == "":
			out = s
		case ansi.StringWidth(out)+3+ansi.StringWidth(s) <= w:
			out += " · " + s
		}
	}
	return out
}

// wrapTop wraps a hint or a refusal onto as many lines of w columns as
// it needs (the console gives the prompt the lines of its log), so that
// the reason is never cut.
func wrapTop(s string, w int) string {
	if w < 1 || ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Wrap(s, w, " ")
}
