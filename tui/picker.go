package tui

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/fedaux/fedaux/presets"
)

// presetItem is a preset in the picker: a built-in one, or a scenario
// file (titled with its file name, ending in .toml).
type presetItem struct {
	p       *presets.Preset
	missing bool // a data file it needs is not in the data directory
}

// Title, Description and FilterValue make presetItem a list.DefaultItem.
func (i presetItem) Title() string {
	if i.p.File != "" {
		return filepath.Base(i.p.File)
	}
	return i.p.Name
}
func (i presetItem) Description() string {
	d := i.p.Description
	switch {
	case i.p.Needs == "":
	case i.missing: // first: the list cuts the end of a long line
		d = "[needs " + i.p.Needs + ": missing] " + d
	default:
		d += " [reads " + i.p.Needs + "]"
	}
	if i.p.File != "" {
		d = "file " + i.p.File + " · " + d
	}
	return d
}
func (i presetItem) FilterValue() string { return i.p.Name + " " + i.p.File }

// badFileItem is a scenario file that does not parse: listed with its
// error, never loaded.
type badFileItem struct {
	path string
	err  error
}

func (i badFileItem) Title() string       { return filepath.Base(i.path) + " ✗" }
func (i badFileItem) Description() string { return "✗ " + i.err.Error() }
func (i badFileItem) FilterValue() string { return i.path }

// pickerModel chooses a preset or a scenario file from a list (bubbles
// list).
type pickerModel struct {
	list    list.Model
	current *presets.Preset
	env     presets.Env
	w, h    int // the room it was given (SetSize)
}

// newPicker lists the presets all, each marked with whether its data
// are in env's data directory.
func newPicker(st *Styles, all []*presets.Preset, current *presets.Preset, env presets.Env) pickerModel {
	items := make([]list.Item, len(all))
	for i, p := range all {
		items[i] = presetItem{p, !p.Available(env)}
	}
	d := list.NewDefaultDelegate()
	d.Styles = st.ListItems
	l := list.New(items, d, 80, 20)
	l.Title = "choose a preset (enter: load · esc: back · /: filter)"
	l.Styles = st.List
	l.SetShowHelp(false)
	l.SetStatusBarItemName("preset", "presets")
	l.DisableQuitKeybindings()
	p := pickerModel{list: l, current: current, env: env}
	p.selectCurrent()
	return p
}

// pickerKeys is the picker's key hint, after its title.
const pickerKeys = " (enter: load · esc: back · /: filter)"

// SetDir names the directory whose scenario files the list shows.
func (p *pickerModel) SetDir(dir string) {
	p.list.Title = "choose a preset or a scenario file of " + filepath.Clean(dir) + "/" + pickerKeys
}

// selectCurrent highlights the preset the console runs: its file, or
// the built-in preset of its name.
func (p *pickerModel) selectCurrent() {
	if p.current == nil {
		return
	}
	for i, it := range p.list.Items() {
		if pi, ok := it.(presetItem); ok && pi.p.File == p.current.File && pi.p.Name == p.current.Name {
			p.list.Select(i)
			return
		}
	}
}

// addFiles puts a directory's scenario files, and those that do not
// parse with their errors, before the built-in presets.
func (p *pickerModel) addFiles(msg scenarioFilesMsg) tea.Cmd {
	var items []list.Item
	for _, f := range msg.files {
		items = append(items, presetItem{f, !f.Available(p.env)})
	}
	for _, err := range msg.errs {
		path := msg.dir
		var se *presets.SpecError
		if errors.As(err, &se) && se.File != "" {
			path = se.File
		}
		items = append(items, badFileItem{path, err})
	}
	for _, it := range p.list.Items() {
		if pi, ok := it.(presetItem); ok && pi.p.File == "" {
			items = append(items, it)
		}
	}
	switch n, bad := len(msg.files), len(msg.errs); {
	case n+bad == 0:
		p.list.Title = "choose a preset (no scenario files in " + msg.dir + "/)" + pickerKeys
	case bad == 0:
		p.list.Title = fmt.Sprintf("choose a preset; first %s of %s/", files(n), msg.dir) + pickerKeys
	default:
		p.list.Title = fmt.Sprintf("choose a preset; first %s of %s/ (%d broken)", files(n+bad), msg.dir, bad) + pickerKeys
	}
	cmd := p.list.SetItems(items)
	p.selectCurrent()
	if p.w > 0 {
		p.SetSize(p.w, p.h) // fitted again: the title, the items are others
	}
	return cmd
}

// files is "1 scenario file" or "n scenario files".
func files(n int) string {
	if n == 1 {
		return "1 scenario file"
	}
	return fmt.Sprintf("%d scenario files", n)
}

// SetSize sets the list's size so that its lines, padding included,
// are no wider than w (the list's styles pad its lines beyond the width
// it is given, which would leave a cut mark at the edge of every line).
func (p *pickerModel) SetSize(w, h int) {
	p.w, p.h = w, h
	p.list.SetSize(w, h)
	widest := 0
	for _, l := range strings.Split(p.list.View(), "\n") {
		widest = max(widest, ansi.StringWidth(l))
	}
	if widest > w {
		p.list.SetSize(max(1, w-(widest-w)), h)
	}
}

// Filtering reports whether the user is typing a filter (then enter and
// esc belong to the list).
func (p pickerModel) Filtering() bool { return p.list.FilterState() == list.Filtering }

// help is the picker's key hint for the console's bottom line: the
// list's keys, or, while a filter is typed, the filter's.
func (p pickerModel) help() []key.Binding {
	b := func(k, desc string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)) }
	if p.Filtering() {
		return []key.Binding{b("enter", "keep filter"), b("esc", "clear filter")}
	}
	return []key.Binding{
		key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑↓", "choose")),
		b("/", "filter"), b("enter", "load"), key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "back")),
	}
}

// Selected returns the highlighted preset (nil if none).
func (p pickerModel) Selected() *presets.Preset {
	if it, ok := p.list.SelectedItem().(presetItem); ok {
		return it.p
	}
	return nil
}

// SelectedError returns why the highlighted scenario file cannot be
// loaded (nil for a preset).
func (p pickerModel) SelectedError() error {
	if it, ok := p.list.SelectedItem().(badFileItem); ok {
		return it.err
	}
	return nil
}

// Update forwards a message to the list; it takes the scenario files
// read for it.
func (p pickerModel) Update(msg tea.Msg) (pickerModel, tea.Cmd) {
	if msg, ok := msg.(scenarioFilesMsg); ok {
		return p, p.addFiles(msg)
	}
	filtering := p.Filtering()
	var cmd tea.Cmd
	p.list, cmd = p.list.Update(msg)
	if filtering && p.list.FilterState() == list.Unfiltered {
		// A filter cancelled, or one that matched nothing: the whole list
		// again, on the preset that runs (the list puts its first entry
		// under the cursor, which a second enter would load).
		p.selectCurrent()
	}
	return p, cmd
}

// View renders the list.
func (p pickerModel) View() string { return p.list.View() }
