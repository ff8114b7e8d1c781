package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// notRead says that the algorithm does not read knob name, or is "".
func (m *Model) notRead(name sim.Knob) string {
	if m.engine.ReadsKnob(name) {
		return ""
	}
	return fmt.Sprintf("%s does not read %s: the knob is fixed for this run", m.cfg.Algo, name)
}

// openKnobPrompt opens the prompt for a knob's exact value, unless the
// algorithm does not read it.
func (m *Model) openKnobPrompt(kind promptKind) tea.Cmd {
	name := map[promptKind]sim.Knob{askAlpha: sim.KnobAlpha, askSigma: sim.KnobSigma, askPartners: sim.KnobPartners}[kind]
	if why := m.notRead(name); why != "" {
		m.logf(true, "%s", why)
		return nil
	}
	hint := fmt.Sprintf("%s now %s; %s; %s", name, fmtKnob(m.Knobs().Value(name)), knobWant(name, m.k), m.fromRound())
	m.screen = prompting
	return m.prompt.Open(kind, fmtKnob(m.Knobs().Value(name)), hint)
}

// fromRound says from which round a knob changed now applies: "from
// round N", or while rounds run on (space, N) "from the round after the
// one in flight", which the prompt's hint keeps true while it stays open.
func (m *Model) fromRound() string {
	if m.running || m.stepsLeft > 0 {
		return "from the round after the one in flight"
	}
	return fmt.Sprintf("from round %d", m.nextRound())
}

// nextRound is the first round a knob changed now applies to.
func (m *Model) nextRound() int {
	if m.act == stepping {
		return len(m.reports) + 2
	}
	return len(m.reports) + 1
}

// openSettingPrompt opens the prompt for the exact value of the
// algorithm's live setting after the one asked for last (o; tab in the
// prompt moves on), or says that the algorithm has none.
func (m *Model) openSettingPrompt(after sim.Knob) tea.Cmd {
	live := sim.LiveSettings(m.cfg.Algo)
	if len(live) == 0 {
		m.logf(true, "%s has no live settings (the methods that have some: %s)", m.cfg.Algo, liveOwners())
		return nil
	}
	i := slices.IndexFunc(live, func(s sim.Setting) bool { return s.Key == string(after) }) + 1
	s := live[i%len(live)]
	name := sim.Knob(s.Key)
	hint := fmt.Sprintf("%s now %s; %s; %s", name, fmtKnob(m.Knobs().Value(name)), strings.TrimPrefix(s.Doc, string(m.cfg.Algo)+": "), m.fromRound())
	if len(live) > 1 {
		hint += "; tab: " + live[(i+1)%len(live)].Key
	}
	m.screen = prompting
	return m.prompt.OpenSetting(name, fmtKnob(m.Knobs().Value(name)), hint)
}

// liveOwners lists the registered methods with live settings and their
// keys: "fedprox mu, gcfl eps1 eps2".
func liveOwners() string {
	var out []string
	for _, a := range sim.Algorithms() {
		var keys []string
		for _, s := range sim.LiveSettings(a) {
			keys = append(keys, s.Key)
		}
		if keys != nil {
			out = append(out, string(a)+" "+strings.Join(keys, " "))
		}
	}
	if out == nil {
		return "none"
	}
	return strings.Join(out, ", ")
}

// setKnob changes a knob now, or after the round in flight.
func (m *Model) setKnob(name sim.Knob, v float64) tea.Cmd {
	if why := m.notRead(name); why != "" {
		m.logf(true, "%s", why)
		return nil
	}
	if err := checkKnob(name, v, m.k); err != nil {
		m.logf(true, "%v", knobError(err))
		return nil
	}
	from := m.Knobs().Value(name)
	if from == v { // the end of a key's range (alpha 0, partners K), or the value typed again
		m.logf(false, "%s stays %s", name, fmtKnob(v))
		return nil
	}
	if m.act == idle {
		m.applyKnob(name, v)
		return nil
	}
	// Changes of one knob during one round coalesce into one.
	tag := fmt.Sprintf("queued %s %d %d", name, m.act, len(m.reports))
	if i := slices.IndexFunc(m.queued, func(c export.Control) bool { return c.Name == name }); i >= 0 {
		from = m.queued[i].From
		m.queued = slices.Delete(m.queued, i, i+1)
	}
	if from != v {
		m.queued = append(m.queued, export.Control{Name: name, From: from, To: v})
	}
	text := fmt.Sprintf("%s %s → %s after the round in flight (from round %d)", name, fmtKnob(from), fmtKnob(v), len(m.reports)+2)
	switch m.act {
	case building:
		text = fmt.Sprintf("%s %s → %s once the new engine is ready", name, fmtKnob(from), fmtKnob(v))
	case computing:
		text = fmt.Sprintf("%s %s → %s once the view is computed (from round %d)", name, fmtKnob(from), fmtKnob(v), len(m.reports)+1)
	}
	if from == v {
		text = fmt.Sprintf("%s stays %s", name, fmtKnob(v))
	}
	m.knobLog(tag, text)
	return nil
}

// knobLog logs a knob change, replacing the last line when it reported
// a change of the same knob for the same round (tag), so that a run of
// < or > presses leaves one line.
func (m *Model) knobLog(tag, text string) {
	if m.knobEvent == tag && len(m.events) > 0 {
		m.events[len(m.events)-1] = event{text: text}
	} else {
		m.logf(false, "%s", text)
	}
	m.knobEvent = tag
}

// applyKnob sets a knob on the idle engine and records the change.
func (m *Model) applyKnob(name sim.Knob, v float64) {
	from := m.knobs.Value(name)
	if from == v {
		return
	}
	if err := m.engine.SetKnob(name, v); err != nil {
		m.logf(true, "%s: %v", name, err)
		return
	}
	m.knobs = m.engine.Knobs()
	m.steered = true
	round := len(m.reports) + 1
	// Changes of one knob before one round coalesce into one (the run
	// log keeps each, as the engine logged it).
	if n := len(m.controls); n > 0 && m.controls[n-1].Round == round && m.controls[n-1].Name == name {
		from = m.controls[n-1].From
		m.controls = m.controls[:n-1]
	}
	if from != v {
		m.controls = append(m.controls, export.Control{Round: round, Name: name, From: from, To: v})
	}
	note := ""
	switch {
	case name == "alpha" && m.knobs.Partners > 0:
		note = " (no effect while alpha is automatic)"
	case name == "partners" && v == 0:
		note = fmt.Sprintf(": auto alpha off, alpha %s", fmtKnob(m.knobs.Alpha))
	case name == "partners" && !slices.Contains(sim.AlgorithmSettings(m.cfg.Algo), "partners"):
		note = fmt.Sprintf(" (%s does not set alpha per client)", m.cfg.Algo)
	case round > m.cfg.Rounds:
		note = fmt.Sprintf(" (the run ends at round %d: no round uses it)", m.cfg.Rounds)
	}
	text := fmt.Sprintf("%s %s → %s from round %d%s", name, fmtKnob(from), fmtKnob(v), round, note)
	if from == v {
		text = fmt.Sprintf("%s back to %s for round %d", name, fmtKnob(v), round)
	}
	m.knobLog(fmt.Sprintf("applied %s %d", name, round), text)
}

// usesVariant reports whether algorithm algo uses the similarity source
// and apv-mix.
func usesVariant(algo sim.Algorithm) bool {
	return algo == methods.FedAux || algo == methods.FedAvgMask
}

// variant returns the source and apv-mix the next engine is built with.
func (m *Model) variant() (source sim.Source, apvMix bool) {
	if m.pending {
		return m.nextSource, m.nextMix
	}
	return m.cfg.Source, m.cfg.APVMix
}

// setVariant sets the variant of the next engine; it is pending while it
// differs from the engine's.
func (m *Model) setVariant(source sim.Source, apvMix bool) {
	m.nextSource, m.nextMix = source, apvMix
	m.pending = source != m.cfg.Source || apvMix != m.cfg.APVMix
	note := ""
	if !usesVariant(m.cfg.Algo) {
		note = fmt.Sprintf(" (%s uses neither)", m.cfg.Algo)
	}
	if m.pending {
		m.logf(false, "next engine: %s; R restarts with it at the same seed, r at the next%s", variantText(source, apvMix), note)
	} else {
		m.logf(false, "next engine: %s, as now", variantText(source, apvMix))
	}
}

// cycleSource moves the next engine's similarity source along sim.Sources.
func (m *Model) cycleSource() {
	src, mix := m.variant()
	all := sim.Sources()
	i := slices.Index(all, src)
	m.setVariant(all[(i+1)%len(all)], mix)
}

// toggleAPVMix switches apv-mix for the next engine.
func (m *Model) toggleAPVMix() {
	src, mix := m.variant()
	m.setVariant(src, !mix)
}

// variantText is "sim pc1, apv-mix off".
func variantText(source sim.Source, apvMix bool) string {
	mix := "on"
	if !apvMix {
		mix = "off"
	}
	return "sim " + string(source) + ", apv-mix " + mix
}

// withVariant applies the pending variant, if any, to c, and says so in
// why.
func (m *Model) withVariant(c sim.Config, why string) (sim.Config, string) {
	if !m.pending {
		return c, why
	}
	c.Source, c.APVMix = m.nextSource, m.nextMix
	return c, why + " with " + variantText(c.Source, c.APVMix)
}

// restartHint says how to start again.
const restartHint = "r restarts with the next seed, R with the same seed"

// reset builds a new engine for the preset, keeping the knobs and
// taking the pending variant (g, x) if any: with the next seed (r), or
// the same seed (R). One rule whatever else changed: r is a new sample,
// R the same run again with what changed (so that two runs differ in
// nothing else).
func (m *Model) reset(nextSeed bool) tea.Cmd {
	c := m.cfg
	kn := m.Knobs()
	c.Alpha, c.Sigma, c.Partners, c.Options = kn.Alpha, kn.Sigma, kn.Partners, kn.Settings
	why := fmt.Sprintf("restart with the same seed %d", c.Seed)
	if nextSeed {
		c.Seed++
		why = fmt.Sprintf("restart with the next seed, %d", c.Seed)
	}
	c, why = m.withVariant(c, why)
	return m.rebuild(m.preset, c, why)
}

// ladder steps sigma along 1-2-5 values: the next larger (dir > 0) or
// smaller one.
func ladder(v float64, dir int) float64 {
	e := math.Floor(math.Log10(v))
	var vals []float64
	for d := e - 1; d <= e+1; d++ {
		for _, b := range []float64{1, 2, 5} {
			vals = append(vals, b*math.Pow(10, d))
		}
	}
	const eps = 1e-9
	if dir > 0 {
		for _, x := range vals {
			if x > v*(1+eps) {
				return roundSig(x)
			}
		}
	} else {
		for i := len(vals) - 1; i >= 0; i-- {
			if vals[i] < v*(1-eps) {
				return roundSig(vals[i])
			}
		}
	}
	return v
}

// roundSig rounds to 6 significant digits (so that 0.1*2 prints as 0.2).
func roundSig(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return v
}

// checkKnob applies the engine's rules for knob values (sim.ValidateKnob),
// so that a bad value is refused while the user is still typing; k is
// the number of clients, the most partners there can be.
func checkKnob(name sim.Knob, v float64, k int) error {
	return sim.ValidateKnob(name, v, k)
}
