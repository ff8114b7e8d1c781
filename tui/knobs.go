package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/sim"
)

// knobOf returns the value of the live knob name in k.
func knobOf(k sim.Knobs, name sim.Knob) float64 {
	switch name {
	case "sigma":
		return k.Sigma
	case "partners":
		return k.Partners
	}
	return k.Alpha
}

// withKnob returns k with the live knob name set to v.
func withKnob(k sim.Knobs, name sim.Knob, v float64) sim.Knobs {
	switch name {
	case "sigma":
		k.Sigma = v
	case "partners":
		k.Partners = v
	default:
		k.Alpha = v
	}
	return k
}

// setKnob changes a knob now, or after the round in flight.
func (m *Model) setKnob(name sim.Knob, v float64) tea.Cmd {
	if err := checkKnob(name, v, m.k); err != nil {
		m.logf(true, "%v", err)
		return nil
	}
	from := knobOf(m.Knobs(), name)
	if from == v {
		return nil
	}
	if m.act == idle {
		m.applyKnob(name, v)
		return nil
	}
	m.queued = slices.DeleteFunc(m.queued, func(c export.Control) bool { return c.Name == name })
	m.queued = append(m.queued, export.Control{Name: name, From: from, To: v})
	if m.act == building {
		m.logf(false, "%s %s → %s once the new engine is ready", name, fmtKnob(from), fmtKnob(v))
	} else {
		m.logf(false, "%s %s → %s after the round in flight (from round %d)", name, fmtKnob(from), fmtKnob(v), len(m.reports)+2)
	}
	return nil
}

// applyKnob sets a knob on the idle engine and records the change.
func (m *Model) applyKnob(name sim.Knob, v float64) {
	from := knobOf(m.knobs, name)
	if from == v {
		return
	}
	if err := m.engine.SetKnob(name, v); err != nil {
		m.logf(true, "%s: %v", name, err)
		return
	}
	m.knobs = m.engine.Knobs()
	round := len(m.reports) + 1
	m.controls = append(m.controls, export.Control{Round: round, Name: name, From: from, To: v})
	note := ""
	switch {
	case name == "alpha" && m.knobs.Partners > 0:
		note = " (no effect while alpha is automatic)"
	case name == "partners" && v == 0:
		note = fmt.Sprintf(": auto alpha off, alpha %s", fmtKnob(m.knobs.Alpha))
	case name == "partners" && !slices.Contains(sim.AlgorithmSettings(m.cfg.Algo), "partners"):
		note = fmt.Sprintf(" (%s does not set alpha per client)", m.cfg.Algo)
	}
	m.logf(false, "%s %s → %s from round %d%s", name, fmtKnob(from), fmtKnob(v), round, note)
}

// usesVariant reports whether algorithm algo uses the similarity source
// and apv-mix.
func usesVariant(algo sim.Algorithm) bool { return algo == sim.FedAux || algo == sim.FedAvgMask }

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
		m.logf(false, "next engine: %s; r resets to it with the same seed%s", variantText(source, apvMix), note)
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

// reset builds a new engine for the preset, keeping the knobs: with the
// next seed, or with the same seed when the variant changes (so that the
// two runs differ in nothing else).
func (m *Model) reset() tea.Cmd {
	c := m.cfg
	kn := m.Knobs()
	c.Alpha, c.Sigma, c.Partners = kn.Alpha, kn.Sigma, kn.Partners
	if !m.pending {
		c.Seed++
	}
	c, why := m.withVariant(c, fmt.Sprintf("reset with seed %d", c.Seed))
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
