package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// Options configure a console.
type Options struct {
	// Preset is the scenario to open; Config its settings (usually
	// Preset.Config() with the user's flags applied).
	Preset *presets.Preset
	Config sim.Config
	// Env says where presets read data.
	Env presets.Env
	// Log, when set, receives the run log of every engine the console
	// builds (a run line per reset).
	Log *sim.RunLog
	// ScenarioDir is the directory whose scenario files (*.toml) the
	// preset list shows beside the built-in presets; empty means the
	// working directory's scenarios/ (DefaultScenarioDir).
	ScenarioDir string
	// ExportDir is the directory the export prompt proposes; empty means
	// ./runs/<preset>-<timestamp>.
	ExportDir string
	// NoColor draws without colour (the NO_COLOR convention).
	NoColor bool
	// StartRounds is the number of rounds the console runs as it opens,
	// before pausing, so that its first screen shows the run (groups in
	// the similarity, accuracies apart); 0 opens paused at round 0.
	StartRounds int
	// Stderr, when set, receives what the console says after its screen
	// has closed: where the run log of a session that changed knobs is.
	Stderr io.Writer
	// Context, when set, bounds the console's work.
	Context context.Context
	// Now is the clock for default export names; nil means time.Now.
	Now func() time.Time
}

// screen is what the body of the console shows.
type screen int

const (
	dashboard screen = iota
	picking          // the preset picker
	prompting        // a value prompt at the bottom of the dashboard
	helping          // the full help
	editing          // the scenario panel
	drilling         // the drill-down on one client
	choosing         // the algorithm of a fork's branch B (F)
)

// Model is the console's root model. It owns the engine and the copies of
// its results that the views draw, switches between screens and forwards
// messages to the component models.
type Model struct {
	opts   Options
	keys   keyMap
	styles *Styles
	drv    *driver

	screen        screen
	back          screen // the screen the prompt or the help closes to: the dashboard, or the drill-down it was opened from
	width, height int

	// The session: an engine and what it has produced. While a round is in
	// flight, only the step command touches the engine; the views draw the
	// copies kept here.
	preset   *presets.Preset
	cfg      sim.Config
	engine   *sim.Engine
	header   sim.RunHeader
	k        int
	groups   []int
	order    []int
	reports  []*sim.RoundReport
	controls []export.Control
	switches []sim.AlgorithmChange // the shown branch's changes of algorithm (F)
	knobs    sim.Knobs             // what the engine will use next
	queued   []export.Control      // changes made during a round, applied after it
	// rebuilt, from the moment a rebuild is asked for until its engine
	// is ready, holds the knobs that engine starts with (a preset's own),
	// which the knob keys then count from.
	rebuilt *sim.Knobs
	// stepKnobs are the knobs of the round in flight, lastKnobs those of
	// the last round shown.
	stepKnobs, lastKnobs sim.Knobs

	// The variant (similarity source and apv-mix, fixed per engine) of
	// the next engine that a reset or a preset builds; pending while it
	// differs from the engine's.
	nextSource sim.Source
	nextMix    bool
	pending    bool

	// Activity.
	act         activity
	job         int // id of the command in flight (round or build)
	done        int // clients done in the round in flight
	running     bool
	stepsLeft   int
	afterRound  func() tea.Cmd // work waiting for the round in flight (a rebuild)
	undoCancel  bool           // the rollback in flight undoes a round cancelled for a rebuild that failed
	exportDir   string         // an export waiting for the round in flight, or for its views
	exportJob   int            // the job computing the views of the export waiting
	exportViews bool           // the export waiting has its views: it can be written
	pane        int            // 0: heat map, 1: chart, when only one fits
	autoNoted   bool           // the log explains the heat map's automatic stretch
	tried       string         // the view completeShown computed last, with its round
	ended       *sim.Engine    // the engine whose summary line endRun wrote
	steered     bool           // a knob changed in the session
	switched    bool           // the session's own run (not a fork's B) changed algorithm (F)
	edited      bool           // the session ran a scenario edited in the panel (S)
	starting    bool           // the start rounds (Options.StartRounds) are running
	other       *branch        // the branch not shown, when the run is forked (f)
	forkLogs    []forkLog      // the run logs of the session's forks, for farewell
	branchName  string         // the shown branch's name ("A" or "B"), "" without a fork

	events []event
	// knobEvent identifies the knob change the last log line reports
	// (knob and round), so that the next change of the same knob for the
	// same round replaces the line instead of adding one.
	knobEvent string

	hdr    headerModel
	bars   barsModel
	chart  chartModel
	heat   heatModel
	prompt promptModel
	picker pickerModel
	scen   scenarioForm
	drill  drillModel
	algos  algoPicker
	help   help.Model
}

// event is a line of the console's log.
type event struct {
	text string
	bad  bool
}

// New builds the engine for opts.Preset (synchronously, so that a missing
// data file is reported before the screen opens) and returns the console.
func New(opts Options) (*Model, error) {
	if opts.Preset == nil {
		return nil, errors.New("tui: no preset")
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	st := NewStyles(opts.NoColor)
	m := &Model{opts: opts, keys: defaultKeys(), styles: &st, drv: newDriver(opts.Context), width: 80, height: 24}
	e, sc, err := newEngine(opts.Preset, opts.Env, opts.Config, opts.Log)
	if err != nil {
		return nil, err
	}
	m.hdr.styles, m.bars.styles, m.chart.styles, m.heat.styles, m.drill.styles = m.styles, m.styles, m.styles, m.styles, m.styles
	m.prompt = newPrompt(m.styles)
	m.scen = newScenarioForm(m.styles)
	m.help = help.New()
	m.help.Styles = st.Help
	m.help.FullSeparator = "  "
	m.adopt(opts.Preset, e, sc)
	m.logf(false, "%s: %s", opts.Preset.Name, opts.Preset.Description)
	m.resize()
	return m, nil
}

// adopt makes e the console's engine.
func (m *Model) adopt(p *presets.Preset, e *sim.Engine, sc *presets.Scenario) {
	m.preset, m.engine, m.cfg = p, e, e.Config()
	m.header = presets.Header(p, sc, e, m.opts.Now())
	m.k = len(e.Data().Clients)
	m.groups = e.Data().Groups
	m.chart.metric = e.Data().Metric
	m.reports, m.controls, m.queued, m.switches = nil, nil, nil, nil
	m.knobs = e.Knobs()
	m.stepKnobs, m.lastKnobs = sim.Knobs{}, sim.Knobs{}
	m.knobEvent = ""
	if err := e.SetRollback(true); err != nil {
		m.logf(false, "note: %v", err)
	}
	m.pending = m.pending && (m.nextSource != m.cfg.Source || m.nextMix != m.cfg.APVMix)
	m.act, m.running, m.stepsLeft = idle, false, 0
	m.heat.SetOffered(e.Offered())
	m.wantViews()
	m.reorder()
	m.sync()
}

// wantViews tells the engine which optional matrices the console reads
// from the next round on: the view on the heat map and the ground truth
// (see viewsWanted). A view that is not shown is not computed. The view
// shown by default (no m pressed) counts when the engine computes it
// only on request (Local's APV, which sets no weights).
func (m *Model) wantViews() {
	name := m.heat.src
	if s, ok := m.heat.shown(); ok && name == "" && s.later {
		name = s.name
	}
	m.engine.Want(viewsWanted(name)...)
}

// reorder recomputes the display order of the clients.
func (m *Model) reorder() {
	var mat [][]float64
	if n := len(m.reports); n > 0 {
		mat = m.reports[n-1].Similarity
		if mat == nil {
			mat = m.reports[n-1].GroundTruth
		}
	}
	m.order = export.ClientOrder(m.k, m.groups, mat)
}

// Engine returns the console's engine. Do not use it while a round is in
// flight (Busy).
func (m *Model) Engine() *sim.Engine { return m.engine }

// Busy reports whether a round, a build or a view is in flight.
func (m *Model) Busy() bool { return m.act != idle }

// Round returns the number of rounds the console has shown.
func (m *Model) Round() int { return len(m.reports) }

// Knobs returns the knob values the next round will use, including the
// changes waiting for the round in flight.
func (m *Model) Knobs() sim.Knobs {
	k := m.knobs
	if m.rebuilt != nil {
		k = *m.rebuilt
	}
	for _, q := range m.queued {
		k = k.With(q.Name, q.To)
	}
	return k
}

// Steered reports whether a knob changed during the session.
func (m *Model) Steered() bool { return m.steered }

// LogPath returns the path of the session's run log ("" when none).
func (m *Model) LogPath() string {
	if m.opts.Log == nil {
		return ""
	}
	return m.opts.Log.Path()
}

// Close cancels the work in flight, waits for it to stop, and ends the
// run log with the summary of the rounds run (see endRun).
func (m *Model) Close() {
	m.drv.Close()
	m.endRun()
	m.endFork()
}

// summaryLine is the run log's last line of a run.
type summaryLine struct {
	Type string `json:"type"`
	sim.Summary
}

// endRun writes the summary line of the engine's rounds to the run log,
// once, when the console leaves the engine (a restart, another preset,
// quitting); nothing when no round ran. Call it when no work is in
// flight.
func (m *Model) endRun() {
	e := m.engine
	if e == nil || m.ended == e || e.Log() == nil || e.Round() == 0 {
		return
	}
	m.ended = e
	if err := e.Log().Write(summaryLine{Type: "summary", Summary: e.Summary()}); err != nil {
		m.logf(true, "run log: %v", err)
	}
}

// logf adds a line to the console's log.
func (m *Model) logf(bad bool, format string, args ...any) {
	m.knobEvent = ""
	m.events = append(m.events, event{fmt.Sprintf(format, args...), bad})
	if len(m.events) > 100 {
		m.events = m.events[len(m.events)-100:]
	}
}

// Init implements tea.Model: it runs the first Options.StartRounds
// rounds, then pauses.
func (m *Model) Init() tea.Cmd {
	n := min(m.opts.StartRounds, m.cfg.Rounds)
	if n <= 0 {
		return nil
	}
	m.logf(false, "running the first %d rounds, then pausing: n steps, space runs on", n)
	m.starting = true
	return m.addSteps(n)
}

// Update implements tea.Model: it handles the driver's messages in any
// screen, and keys according to the screen.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
	case stepDoneMsg:
		cmd = m.roundDone(msg)
	case progressRelay:
		if msg.job == m.job && m.act == stepping {
			m.done = max(m.done, msg.done)
			cmd = msg.next()
		}
	case builtMsg:
		cmd = m.built(msg)
	case viewDoneMsg:
		cmd = m.viewDone(msg)
	case rolledBackMsg:
		cmd = m.rolledBack(msg)
	case exportedMsg:
		m.exported(msg)
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	case tea.MouseClickMsg:
		m.click(msg.Mouse())
	default:
		cmd = m.forward(msg)
	}
	m.sync()
	return m, cmd
}

// exported takes the result of an export: on success the export prompt
// closes and the log says where the files are; on failure the prompt, if
// still open, stays with the error, so that the user can name another
// directory.
func (m *Model) exported(msg exportedMsg) {
	open := m.screen == prompting && m.prompt.kind == askExport && m.prompt.busy != ""
	if open {
		m.prompt.busy = ""
	}
	if msg.err != nil {
		m.logf(true, "export failed: %v", msg.err)
		if open {
			m.prompt.err = "export failed: " + msg.err.Error()
		}
		return
	}
	m.logf(false, "exported %d files to %s", len(msg.files), msg.dir)
	if open {
		m.prompt.Close()
		m.closeOverlay()
	}
}

// closeOverlay closes the prompt or the help, back to the screen it was
// opened from.
func (m *Model) closeOverlay() { m.screen, m.back = m.back, dashboard }

// forward passes other messages (cursor blinks, filter results) to the
// component that has the focus.
func (m *Model) forward(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch m.screen {
	case prompting:
		m.prompt, cmd = m.prompt.Update(msg)
	case picking:
		m.picker, cmd = m.picker.Update(msg)
	case editing:
		m.scen, cmd = m.scen.Update(msg)
	}
	return cmd
}

// sync pushes the session's state into the component models.
func (m *Model) sync() {
	var last *sim.RoundReport
	if n := len(m.reports); n > 0 {
		last = m.reports[n-1]
	}
	h := &m.hdr
	h.preset, h.algo, h.round, h.rounds, h.seed = m.preset.Label(), string(m.cfg.Algo), len(m.reports), m.cfg.Rounds, m.cfg.Seed
	h.branch = m.branchName
	h.source, h.apvMix, h.nextSource, h.nextMix = string(m.cfg.Source), m.cfg.APVMix, "", ""
	if !usesVariant(m.cfg.Algo) { // its weights come from elsewhere (FED-PUB's functional view, ...)
		h.source, h.apvMix = "", true
	}
	if m.pending {
		if m.nextSource != m.cfg.Source {
			h.nextSource = string(m.nextSource)
		}
		if m.nextMix != m.cfg.APVMix {
			h.nextMix = map[bool]string{true: "on", false: "off"}[m.nextMix]
		}
	}
	k := m.Knobs()
	h.alpha, h.sigma, h.partners = k.Alpha, k.Sigma, k.Partners
	h.hasLast, h.hasSpread = last != nil, false
	h.readsAlpha, h.readsSigma = m.engine.ReadsKnob(sim.KnobAlpha), m.engine.ReadsKnob(sim.KnobSigma)
	h.hasPrev = last != nil || m.act == stepping
	h.settings = h.settings[:0]
	for _, s := range sim.LiveSettings(m.cfg.Algo) {
		name := sim.Knob(s.Key)
		v := liveView{name: s.Key, next: k.Value(name), last: k.Value(name)}
		if last != nil {
			v.last = m.lastKnobs.Value(name)
		} else if m.act == stepping {
			v.last = m.stepKnobs.Value(name)
		}
		h.settings = append(h.settings, v)
	}
	if last != nil {
		h.seconds = last.Seconds
		h.prevAlpha, h.prevSigma, h.prevPartn = last.Alpha, last.Sigma, m.lastKnobs.Partners
		h.spread, h.hasSpread = export.WeightSpread(last.Weights)
	} else if m.act == stepping {
		h.prevAlpha, h.prevSigma, h.prevPartn = m.stepKnobs.Alpha, m.stepKnobs.Sigma, m.stepKnobs.Partners
	}
	h.act, h.running, h.stepsLeft, h.done, h.total = m.act, m.running, m.stepsLeft, m.done, m.k
	if m.act == idle && len(m.reports) >= m.cfg.Rounds {
		h.act = finished
	}
	barOrder := m.order
	if len(m.groups) != m.k {
		barOrder = nil // without groups, bars stay in id order while the heat map reorders
	}
	m.bars.SetData(m.k, last, barOrder, m.groups)
	m.chart.SetData(m.reports, m.controls)
	m.chart.name, m.chart.other, m.chart.otherName = m.branchName, nil, ""
	m.bars.other, m.bars.otherName = nil, ""
	if o := m.other; o != nil {
		m.chart.other, m.chart.otherName = o.reports, o.name
		if o.cfg.Algo != m.cfg.Algo { // a fork on another algorithm (F): name both
			m.chart.name += " " + string(m.cfg.Algo)
			m.chart.otherName += " " + string(o.cfg.Algo)
		}
		if n := len(o.reports); n > 0 {
			m.bars.other, m.bars.otherName = o.reports[n-1], o.name
		}
	}
	m.heat.SetData(m.k, last, m.order, m.groups, string(m.cfg.Algo))
	m.drill.SetData(m.k, m.reports, m.groups, m.order)
	note := m.heat.AutoNote()
	if note != "" && !m.autoNoted {
		m.logf(false, "%s", note)
	}
	m.autoNoted = note != ""
}
