package sim

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SettingType is the type of a method's setting (Setting.Type): how its
// values are written and read back.
type SettingType int

// The setting types.
const (
	// Int is an integer, as strconv.Atoi reads it.
	Int SettingType = iota + 1
	// Float is a float64, as strconv.ParseFloat reads it, written in its
	// shortest form ('g', -1).
	Float
	// OnOff is a switch, "on" or "off" ("true" and "false" read as them).
	OnOff
	// Choice is one of Setting.Choices.
	Choice
)

func (t SettingType) String() string {
	switch t {
	case Int:
		return "int"
	case Float:
		return "float"
	case OnOff:
		return "on/off"
	case Choice:
		return "choice"
	}
	return fmt.Sprintf("SettingType(%d)", int(t))
}

// A Setting is one of a method's own settings (Method.Settings). Its
// values travel as canonical strings (what Config.Get returns and
// Fingerprint keys results on): an Int as strconv.Itoa writes it, a Float
// in its shortest 'g' form, an OnOff as on or off, a Choice as itself.
type Setting struct {
	// Key names the setting in -set, scenario files, sweeps' -grid and
	// the flags (-KEY): lower-case letters, digits and '_'.
	Key  string
	Type SettingType
	// Default is the value a Config has until the setting is set, in
	// canonical form.
	Default string
	// Choices lists the values of a Choice setting.
	Choices []string
	// Doc says what the setting means, in one line, for -h, 'fedaux
	// scenario keys' and error messages; start it with the methods that
	// read it ("fedprox: proximal coefficient mu ...").
	Doc string
	// Check, when not nil, checks a parsed value's range (Validate calls
	// it on every setting a Config sets): it returns "" when v is
	// allowed, else what is ("a finite value >= 0"), which the
	// *SettingError then names.
	Check func(v string) (want string)
	// Normalize, when not nil, maps a parsed value to the one stored (as
	// gta_moments stores 0, "the default", as the default itself).
	Normalize func(v string) string
	// Live, for an Int or Float setting, lets a user change it between
	// rounds, like alpha and sigma: Engine.SetKnob under its key, the
	// console's settings prompt, a run log's control lines (see
	// KnobNames). The engine builds the method's Strategy again with New
	// for the new value, so New must be all that reads it.
	Live bool
	// Since, when not "", is the value that runs had before the setting
	// existed: Fingerprint leaves the setting out at this value, so that
	// results stored before the setting was added are found again.
	Since string
}

// NonNegative is a Setting.Check for Float settings: a finite value >= 0.
func NonNegative(v string) string {
	f, _ := strconv.ParseFloat(v, 64)
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return "a finite value >= 0"
	}
	return ""
}

// Finite is a Setting.Check for Float settings: a finite number.
func Finite(v string) string {
	f, _ := strconv.ParseFloat(v, 64)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "a finite number"
	}
	return ""
}

// AtLeast returns a Setting.Check for Int settings: an integer >= lo.
func AtLeast(lo int) func(string) string {
	return func(v string) string {
		if n, _ := strconv.Atoi(v); n < lo {
			return ">= " + strconv.Itoa(lo)
		}
		return ""
	}
}

// check reports what is wrong with the declaration.
func (s *Setting) check() error {
	if !methodName.MatchString(s.Key) {
		return fmt.Errorf("setting key %q: want lower-case letters, digits and '_', starting with a letter", s.Key)
	}
	if s.Type < Int || s.Type > Choice {
		return fmt.Errorf("setting %s: no Type", s.Key)
	}
	if s.Live && s.Type != Int && s.Type != Float {
		return fmt.Errorf("setting %s: a live %s; only int and float settings can be live", s.Key, s.Type)
	}
	if s.Doc == "" {
		return fmt.Errorf("setting %s: no Doc (-h, 'fedaux scenario keys' and the console show it)", s.Key)
	}
	if s.Type == Choice && len(s.Choices) == 0 {
		return fmt.Errorf("setting %s: a Choice without Choices", s.Key)
	}
	v, err := s.parse(s.Default)
	if err != nil {
		return fmt.Errorf("setting %s: Default: %w", s.Key, err)
	}
	if v != s.Default {
		return fmt.Errorf("setting %s: Default %q is not canonical (%q)", s.Key, s.Default, v)
	}
	if s.Check != nil {
		if want := s.Check(v); want != "" {
			return fmt.Errorf("setting %s: Default %s, want %s", s.Key, v, want)
		}
	}
	return nil
}

// same reports whether two declarations of a key agree.
func (s *Setting) same(t *Setting) bool {
	return s.Key == t.Key && s.Type == t.Type && s.Default == t.Default && slices.Equal(s.Choices, t.Choices) && s.Since == t.Since && s.Live == t.Live
}

// parse reads v as the setting's type and returns its canonical form
// (Normalize applied); the error is a *SettingError.
func (s *Setting) parse(v string) (string, error) {
	switch s.Type {
	case Int:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", &SettingError{s.Key, v, "an integer"}
		}
		v = strconv.Itoa(n)
	case Float:
		f, err := ParseFloat(v)
		if err != nil {
			return "", &SettingError{s.Key, v, numberWant(err)}
		}
		v = fmtFloat(f)
	case OnOff:
		b, err := parseOnOff(s.Key, v)
		if err != nil {
			return "", err
		}
		v = onOff(b)
	case Choice:
		if !slices.Contains(s.Choices, v) {
			return "", &SettingError{s.Key, v, joinOr(s.Choices)}
		}
	}
	if s.Normalize != nil {
		v = s.Normalize(v)
	}
	return v, nil
}

// Options holds the values of the methods' own settings (Method.Settings)
// in a Config, by key, in canonical form; a setting not set has its
// declared default. Set them with Config.Set, read them with the typed
// getters. Copying a Config copies its Options safely: a Set copies the
// values before it writes.
type Options struct {
	m map[string]string // only values that differ from the default
}

// value returns the canonical value of key: set or default ("", false
// when no registered method declares key).
func (o Options) value(key string) (string, bool) {
	if v, ok := o.m[key]; ok {
		return v, true
	}
	registry.RLock()
	defer registry.RUnlock()
	if s := registeredSetting(key); s != nil {
		return s.Default, true
	}
	return "", false
}

// String returns the value of the method setting key in canonical form
// ("" when no registered method declares it).
func (o Options) String(key string) string {
	v, _ := o.value(key)
	return v
}

// Int returns the value of an Int setting (0 when key is not one).
func (o Options) Int(key string) int {
	n, _ := strconv.Atoi(o.String(key))
	return n
}

// Float returns the value of a Float setting (0 when key is not one).
func (o Options) Float(key string) float64 {
	f, _ := strconv.ParseFloat(o.String(key), 64)
	return f
}

// On returns the value of an OnOff setting (false when key is not one).
func (o Options) On(key string) bool { return o.String(key) == "on" }

// set stores canonical value v of setting s, copying the map first; a
// default value is not stored, so that equal settings compare equal.
func (o *Options) set(s *Setting, v string) {
	m := maps.Clone(o.m)
	if v == s.Default {
		delete(m, s.Key)
	} else {
		if m == nil {
			m = map[string]string{}
		}
		m[s.Key] = v
	}
	if len(m) == 0 {
		m = nil
	}
	o.m = m
}

// GobEncode implements gob.GobEncoder: the values set, as key, value
// pairs sorted by key (so that equal Options encode to equal bytes).
func (o Options) GobEncode() ([]byte, error) {
	kv := make([]string, 0, 2*len(o.m))
	for _, k := range slices.Sorted(maps.Keys(o.m)) {
		kv = append(kv, k, o.m[k])
	}
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(kv)
	return buf.Bytes(), err
}

// GobDecode implements gob.GobDecoder.
func (o *Options) GobDecode(b []byte) error {
	var kv []string
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&kv); err != nil {
		return err
	}
	if len(kv)%2 != 0 {
		return fmt.Errorf("sim: options: %d strings, want key, value pairs", len(kv))
	}
	var m map[string]string
	for i := 0; i < len(kv); i += 2 {
		if m == nil {
			m = map[string]string{}
		}
		m[kv[i]] = kv[i+1]
	}
	o.m = m
	return nil
}
