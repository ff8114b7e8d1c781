package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Live method settings.
//
// A method's own setting may be declared live (Setting.Live): a user may
// then change it between rounds like alpha and sigma, with Engine.SetKnob,
// the console's settings prompt or a replayed run log's control lines,
// under its own key as the Knob name. The engine applies a change by
// building the method's strategy again with Method.New from the run's
// Config whose Options carry the new value, handing the old strategy's
// state to the new one (Stateful) and the new strategy's ClientSide to the
// clients. A method whose strategy builds code of its own inside the
// clients (ClientHooker, RunnerBuilder) cannot have its settings changed
// during a run: SetKnob says so.

// liveSetting returns the declaration of the live method setting key,
// nil when no registered method declares key live.
func liveSetting(key string) *Setting {
	if s, ok := LookupSetting(key); ok && s.Live {
		return &s
	}
	return nil
}

// LookupSetting returns the declaration of the registered methods'
// setting key (false when no registered method declares key).
func LookupSetting(key string) (Setting, bool) {
	registry.RLock()
	defer registry.RUnlock()
	if s := registeredSetting(key); s != nil {
		return *s, true
	}
	return Setting{}, false
}

// LiveSettings returns the live settings of method a (Setting.Live), in
// the order the method declares them.
func LiveSettings(a Algorithm) []Setting {
	m, ok := LookupMethod(a)
	if !ok {
		return nil
	}
	var out []Setting
	for _, s := range m.Settings {
		if s.Live {
			out = append(out, s)
		}
	}
	return out
}

// liveKnobs lists the registered methods' live settings as knobs, in the
// order Settings lists them.
func liveKnobs() []Knob {
	registry.RLock()
	defer registry.RUnlock()
	var out []Knob
	for _, s := range registry.settings {
		if s.Live {
			out = append(out, Knob(s.Key))
		}
	}
	return out
}

// Value returns the value of knob name: alpha, sigma, partners or a live
// method setting (0 when name is none of them).
func (k Knobs) Value(name Knob) float64 {
	switch name {
	case KnobAlpha:
		return k.Alpha
	case KnobSigma:
		return k.Sigma
	case KnobPartners:
		return k.Partners
	}
	if liveSetting(string(name)) == nil {
		return 0
	}
	return k.Settings.Float(string(name))
}

// With returns k with knob name set to v (k itself when name is not a
// knob). It does not validate v: see ValidateKnob.
func (k Knobs) With(name Knob, v float64) Knobs {
	switch name {
	case KnobAlpha:
		k.Alpha = v
	case KnobSigma:
		k.Sigma = v
	case KnobPartners:
		k.Partners = v
	default:
		if s := liveSetting(string(name)); s != nil {
			k.Settings.set(s, liveValue(s, v))
		}
	}
	return k
}

// liveValue writes v as the canonical value of live setting s.
func liveValue(s *Setting, v float64) string {
	if s.Type == Int {
		return strconv.Itoa(int(v))
	}
	return fmtFloat(v)
}

// validateLive checks v as a value of the live method setting s.
func validateLive(s *Setting, v float64) error {
	if s.Type == Int && (v != math.Trunc(v) || math.Abs(v) > 1<<53) {
		return &SettingError{s.Key, fmtFloat(v), "an integer"}
	}
	c, err := s.parse(liveValue(s, v))
	if err != nil {
		return err
	}
	if s.Check != nil {
		if want := s.Check(c); want != "" {
			return &SettingError{s.Key, c, want}
		}
	}
	return nil
}

// liveKeys lists method a's live settings' keys.
func liveKeys(a Algorithm) []string {
	var out []string
	for _, s := range LiveSettings(a) {
		out = append(out, s.Key)
	}
	if out == nil {
		out = []string{"none"}
	}
	return out
}

// readsLive reports whether the engine's method declares the live
// setting name.
func (e *Engine) readsLive(name Knob) bool {
	return slices.ContainsFunc(LiveSettings(e.cfg.Algo), func(s Setting) bool { return s.Key == string(name) })
}

// liveSettings returns the run's Options with the changes of live
// settings in controls applied in order.
func liveSettings(o Options, controls []KnobChange) Options {
	k := Knobs{Settings: o}
	for _, c := range controls {
		if liveSetting(string(c.Name)) != nil {
			k = k.With(c.Name, c.To)
		}
	}
	return k.Settings
}

// tune builds the strategy again when the live settings in e.knobs
// differ from those it was built with (e.tuned): after a checkpoint's
// knobs replace the engine's, or a rollback's recomputation ends.
func (e *Engine) tune() error {
	differ := slices.ContainsFunc(LiveSettings(e.cfg.Algo), func(s Setting) bool {
		return e.knobs.Settings.String(s.Key) != e.tuned.String(s.Key)
	})
	if !differ {
		return nil
	}
	return e.retune()
}

// retune builds the strategy again from the run's Config with the live
// settings as e.knobs holds them, hands it the old strategy's state and
// gives the clients its ClientSide.
func (e *Engine) retune() error {
	switch e.strategy.(type) {
	case RunnerBuilder, ClientHooker:
		return fmt.Errorf("%s builds code of its own inside the clients once per run: its settings cannot change during a run", e.cfg.Algo)
	}
	cfg := e.cfg
	cfg.Options = e.knobs.Settings
	if m, ok := LookupMethod(cfg.Algo); ok && m.Check != nil {
		if err := m.Check(&cfg); err != nil { // the settings together
			return err
		}
	}
	st, err := newStrategy(&cfg)
	if err != nil {
		return err
	}
	if old, ok := e.strategy.(Stateful); ok {
		b, err := old.MarshalState()
		if err != nil {
			return fmt.Errorf("strategy %s: %w", old.(Strategy).Name(), err)
		}
		ns, ok := st.(Stateful)
		if !ok {
			return fmt.Errorf("strategy %s: rebuilt without its state", st.Name())
		}
		if err := ns.UnmarshalState(b); err != nil {
			return fmt.Errorf("strategy %s: %w", st.Name(), err)
		}
	}
	side := clientSide(st)
	for _, r := range e.runners {
		if c, ok := r.(*Client); ok {
			c.side = side
		}
	}
	e.strategy, e.tuned = st, cfg.Options
	return nil
}
