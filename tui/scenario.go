package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/fedaux/fedaux/presets"
)

// formKeys are the keys of the scenario panel; the footer lists them.
type formKeys struct {
	Next, Prev, Apply, Cancel key.Binding
}

func defaultFormKeys() formKeys {
	return formKeys{
		Next:   key.NewBinding(key.WithKeys("down", "tab"), key.WithHelp("↓/tab", "next")),
		Prev:   key.NewBinding(key.WithKeys("up", "shift+tab"), key.WithHelp("↑/shift+tab", "previous")),
		Apply:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply & rebuild")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp implements help.KeyMap.
func (k formKeys) ShortHelp() []key.Binding { return []key.Binding{k.Next, k.Prev, k.Apply, k.Cancel} }

// FullHelp implements help.KeyMap.
func (k formKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// formField is one key of the scenario in the panel.
type formField struct {
	key   string // "sbm.groups"
	doc   string
	orig  string // the value in the scenario being edited
	input textinput.Model
	err   string // why the value cannot be, "" when it can
}

// changed reports whether the field's value differs from the scenario's.
func (f *formField) changed() bool { return strings.TrimSpace(f.input.Value()) != f.orig }

// scenarioForm is the scenario panel: the keys of the current scenario
// (presets.Fields) in text inputs, checked on every change with the
// rules of scenario files and -set (Spec.Set, then Spec.Validate on a
// clone), each error shown beside the key it names.
type scenarioForm struct {
	styles *Styles
	keys   formKeys

	base   *presets.Preset
	fields map[string]*formField // every key the form has shown, by key
	shown  []string              // the keys shown, in file order
	focus  int                   // index into shown

	spec     *presets.Spec // base's scenario with the form's values, when they all parse
	general  string        // an error that names no key shown
	note     string        // what applying does, set by the console
	building bool          // an engine for the form's scenario is being built
	width    int
	height   int
}

// docs holds each key's documentation.
var docs = func() map[string]string {
	d := map[string]string{}
	for _, f := range presets.Fields() {
		d[f.Key] = f.Doc
	}
	return d
}()

// formKeysOf returns the keys the panel shows for s: an SBM's numbers,
// or a graph file's path, K and partitioner, and the split when it is
// not the partition file's.
func formKeysOf(s *presets.Spec) []string {
	get := func(k string) string { v, _ := s.Get(k); return v }
	var ks []string
	if s.IsSBM() {
		ks = []string{"clients", "sbm.nodes", "sbm.groups", "sbm.intra", "sbm.inter", "sbm.classes", "sbm.purity", "sbm.features"}
		if s.SBM.Features == "gaussian" {
			ks = append(ks, "sbm.feature_dim", "sbm.noise", "sbm.mean_scale")
		}
		return append(ks, "split.train", "split.test")
	}
	ks = []string{"graph", "clients", "partition.method"}
	method := get("partition.method")
	switch method {
	case "label-skew":
		ks = append(ks, "partition.beta")
	case "file":
		ks = append(ks, "partition.file", "partition.fallback")
		if s.Partition.Fallback == "label-skew" {
			ks = append(ks, "partition.beta")
		}
	}
	if method != "file" || s.Partition.Fallback != "" {
		ks = append(ks, "split.train", "split.test")
	}
	return ks
}

func newScenarioForm(st *Styles) scenarioForm {
	return scenarioForm{styles: st, keys: defaultFormKeys()}
}

// Open starts editing p's scenario; false when p has none (a preset
// built in code).
func (f *scenarioForm) Open(p *presets.Preset) (bool, tea.Cmd) {
	if p.Spec == nil {
		return false, nil
	}
	f.base, f.fields, f.shown, f.focus = p, map[string]*formField{}, nil, 0
	f.general, f.building = "", false
	f.check()
	return true, f.focusCmd()
}

// field returns the field of key k, making it with the base scenario's
// value the first time.
func (f *scenarioForm) field(k string) *formField {
	if fd, ok := f.fields[k]; ok {
		return fd
	}
	v, _ := f.base.Spec.Get(k)
	in := textinput.New()
	in.SetStyles(f.styles.Input)
	in.Prompt = ""
	in.CharLimit = 0            // no limit: a value cut short is another value
	in.SetWidth(f.inputW() - 1) // and a column for the cursor
	in.SetValue(v)
	fd := &formField{key: k, doc: docs[k], orig: v, input: in}
	f.fields[k] = fd
	return fd
}

// Column widths of the panel: the keys', and the narrowest and widest
// value field (the field takes what the width leaves beside the keys
// and room for an error).
const (
	keyW      = 19 // the widest key, partition.fallback, and a space
	minInputW = 24
	maxInputW = 64
)

// inputW is the width of the value fields at the panel's width.
func (f *scenarioForm) inputW() int {
	return max(minInputW, min(maxInputW, f.width-2-keyW-2-48))
}

// valueView renders field fd in w columns: the text input when focused,
// marked with "…" at the left when the input has scrolled past the
// value's start; otherwise the value from its start, with "…" at the
// right when it is cut. A value is never cut without a mark.
func valueView(fd *formField, focused bool, w int) string {
	v := fd.input.Value()
	if !focused {
		if ansi.StringWidth(v) > w {
			return ansi.Truncate(v, w, "…")
		}
		return fitLine(v, w)
	}
	view := fitLine(fd.input.View(), w)
	if n := min(len(v), w/2); ansi.StringWidth(v) >= w-1 && !strings.HasPrefix(ansi.Strip(view), v[:n]) {
		view = "…" + ansi.TruncateLeft(view, 1, "")
	}
	return view
}

// check re-reads every field: it sets the changed ones on a clone of the
// base scenario (Spec.Set: the value's form), validates the clone
// (Spec.Validate: the scenario as a whole), puts each error beside the
// key it names, and recomputes the keys shown (features = gaussian adds
// its three keys; a graph file's method its own).
func (f *scenarioForm) check() {
	f.general, f.spec = "", nil
	keys := f.shown
	if keys == nil {
		keys = formKeysOf(f.base.Spec)
	}
	var s *presets.Spec
	bad := false
	for range 3 { // the keys shown depend on the values set, and back
		s, bad = f.set(keys)
		next := formKeysOf(s)
		if slices.Equal(next, keys) {
			break
		}
		keys = next
	}
	f.setShown(keys)
	if bad {
		return
	}
	if err := s.Validate(); err != nil {
		f.attach(err)
		return
	}
	f.spec = s
}

// set returns a clone of the base scenario with the changed values of
// keys set, and whether one of them is malformed (its field then says
// why).
func (f *scenarioForm) set(keys []string) (s *presets.Spec, bad bool) {
	s = f.base.Spec.Clone()
	for _, fd := range f.fields {
		fd.err = ""
	}
	for _, k := range keys {
		fd := f.field(k)
		if !fd.changed() {
			continue
		}
		if err := s.Set(k, strings.TrimSpace(fd.input.Value())); err != nil {
			fd.err, bad = specMessage(err), true
		}
	}
	return s, bad
}

// setShown sets the keys shown, keeping the focus on the same key when
// it stays.
func (f *scenarioForm) setShown(keys []string) {
	cur := f.Focused()
	f.shown = keys
	for _, k := range keys {
		f.field(k)
	}
	f.focus = max(0, slices.Index(keys, cur))
}

// attach shows err beside the key it names, or under the fields.
func (f *scenarioForm) attach(err error) {
	var se *presets.SpecError
	if errors.As(err, &se) && slices.Contains(f.shown, se.Key) {
		f.fields[se.Key].err = specMessage(err)
		return
	}
	f.general = err.Error()
}

// specMessage is what a SpecError says is wrong, without the file and
// key (the field shows them).
func specMessage(err error) string {
	var se *presets.SpecError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	return err.Error()
}

// BuildFailed shows why the engine for the form's scenario could not be
// built (a graph file missing, K larger than its nodes): beside the key
// the error names, or under the fields.
func (f *scenarioForm) BuildFailed(err error) {
	f.building = false
	var se *presets.SpecError
	if errors.As(err, &se) && slices.Contains(f.shown, se.Key) {
		f.fields[se.Key].err = "cannot build: " + se.Err.Error()
		return
	}
	f.general = "cannot build: " + err.Error()
}

// Changes returns the changed keys as -set takes them ("groups=2"), in
// the order shown.
func (f *scenarioForm) Changes() []string {
	var sets []string
	for _, k := range f.shown {
		if fd := f.fields[k]; fd.changed() {
			sets = append(sets, k+"="+strings.TrimSpace(fd.input.Value()))
		}
	}
	return sets
}

// Summary says what changed, with keys as short as -set takes them:
// "groups 5 → 2, intra 0.2,0.4,0.6 → 0.2,0.6".
func (f *scenarioForm) Summary() string {
	var parts []string
	for _, k := range f.shown {
		if fd := f.fields[k]; fd.changed() {
			parts = append(parts, fmt.Sprintf("%s %s → %s", shortKey(k), fd.orig, strings.TrimSpace(fd.input.Value())))
		}
	}
	return strings.Join(parts, ", ")
}

// shortKey is a key without its table when no other key has that name
// ("sbm.groups" → "groups"; "split.train" stays).
func shortKey(k string) string {
	_, short, ok := strings.Cut(k, ".")
	if !ok {
		return k
	}
	for _, f := range presets.Fields() {
		if f.Key != k && (f.Key == short || strings.HasSuffix(f.Key, "."+short)) {
			return k
		}
	}
	return short
}

// Valid reports whether the form's scenario can be; else it moves the
// focus to the first field with an error.
func (f *scenarioForm) Valid() bool {
	if f.spec != nil {
		return true
	}
	for i, k := range f.shown {
		if f.fields[k].err != "" {
			f.moveTo(i)
			return false
		}
	}
	return false
}

// Update handles moving between fields and forwards other messages to
// the focused input; every change is checked at once.
func (f scenarioForm) Update(msg tea.Msg) (scenarioForm, tea.Cmd) {
	if len(f.shown) == 0 {
		return f, nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, f.keys.Next):
			return f, f.moveTo((f.focus + 1) % len(f.shown))
		case key.Matches(k, f.keys.Prev):
			return f, f.moveTo((f.focus + len(f.shown) - 1) % len(f.shown))
		}
	}
	fd := f.fields[f.shown[f.focus]]
	before := fd.input.Value()
	var cmd tea.Cmd
	fd.input, cmd = fd.input.Update(msg)
	if fd.input.Value() != before {
		f.check()
	}
	return f, cmd
}

// moveTo focuses field i.
func (f *scenarioForm) moveTo(i int) tea.Cmd {
	if f.focus < len(f.shown) {
		f.fields[f.shown[f.focus]].input.Blur()
	}
	f.focus = i
	return f.focusCmd()
}

func (f *scenarioForm) focusCmd() tea.Cmd {
	if f.focus >= len(f.shown) {
		return nil
	}
	return f.fields[f.shown[f.focus]].input.Focus()
}

// Close stops editing.
func (f *scenarioForm) Close() {
	if f.focus < len(f.shown) {
		f.fields[f.shown[f.focus]].input.Blur()
	}
	f.building = false
}

// Focused returns the key being edited.
func (f *scenarioForm) Focused() string {
	if f.focus < len(f.shown) {
		return f.shown[f.focus]
	}
	return ""
}

// SetSize sets the panel's size, and the value fields' width with it.
func (f *scenarioForm) SetSize(w, h int) {
	f.width, f.height = w, h
	for _, fd := range f.fields {
		fd.input.SetWidth(f.inputW() - 1)
	}
}

// View renders the panel: a title, one line per key (more when its error
// wraps), the focused key's documentation, what applying does, and the
// state of a build.
func (f scenarioForm) View() string {
	if f.base == nil {
		return ""
	}
	st := f.styles
	w := max(40, f.width)
	kind := "graph " + f.base.Spec.Graph
	if f.base.Spec.IsSBM() {
		kind = "generated SBM"
	}
	if f.base.File != "" {
		kind += " · " + f.base.File
	}
	head := []string{st.Title.Render("scenario "+f.base.Name) + st.Dim.Render(" · "+kind), ""}

	inputW := f.inputW()
	errW := max(20, w-keyW-inputW-4)
	var rows [][]string // each field's lines
	for i, k := range f.shown {
		fd := f.fields[k]
		mark, name := "  ", k
		if i == f.focus {
			mark = st.Prompt.Render("› ")
			name = st.Prompt.Render(k)
		}
		line := mark + name + strings.Repeat(" ", max(1, keyW-len(k))) + fitLine(valueView(fd, i == f.focus, inputW), inputW) + "  "
		var right []string
		switch {
		case fd.err != "":
			right = strings.Split(lipgloss.NewStyle().Width(errW).Render("✗ "+fd.err), "\n")
			for j := range right {
				right[j] = st.Error.Render(strings.TrimRight(right[j], " "))
			}
		case fd.changed():
			right = []string{st.Changed.Render("was " + fd.orig)}
		}
		lines := []string{line}
		if len(right) > 0 {
			lines[0] += right[0]
			pad := strings.Repeat(" ", 2+keyW+inputW+2)
			for _, r := range right[1:] {
				lines = append(lines, pad+r)
			}
		}
		rows = append(rows, lines)
	}

	var tail []string
	tail = append(tail, "")
	if k := f.Focused(); k != "" {
		for _, l := range strings.Split(lipgloss.NewStyle().Width(w).Render(k+": "+docs[k]), "\n") {
			tail = append(tail, st.Dim.Render(strings.TrimRight(l, " ")))
		}
	}
	switch {
	case f.general != "":
		for _, l := range strings.Split(lipgloss.NewStyle().Width(w-2).Render(f.general), "\n") {
			tail = append(tail, st.Error.Render("✗ "+strings.TrimRight(l, " ")))
		}
	case f.building:
		tail = append(tail, st.Busy.Render("building the new engine…"))
	case len(f.Changes()) == 0:
		tail = append(tail, st.Dim.Render("nothing changed yet"))
	}
	if f.note != "" {
		for _, l := range strings.Split(lipgloss.NewStyle().Width(w).Render(f.note), "\n") {
			tail = append(tail, st.Dim.Render(strings.TrimRight(l, " ")))
		}
	}

	// Scroll the fields when they do not fit, keeping the focus in view.
	room := f.height - len(head) - len(tail)
	var body []string
	total := 0
	for _, r := range rows {
		total += len(r)
	}
	if f.height <= 0 || total <= room {
		for _, r := range rows {
			body = append(body, r...)
		}
	} else {
		room = max(1, room)
		first := 0 // the first row shown: the focus's row must end inside the window
		for {
			n := 0
			for _, r := range rows[first : f.focus+1] {
				n += len(r)
			}
			if n <= room || first == f.focus {
				break
			}
			first++
		}
		for _, r := range rows[first:] {
			body = append(body, r...)
		}
		body = body[:min(len(body), room)]
	}
	return strings.Join(slices.Concat(head, body, tail), "\n")
}

// fitLine pads or cuts a one-line rendering to exactly w columns.
func fitLine(s string, w int) string {
	n := ansi.StringWidth(s)
	if n > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-n)
}
