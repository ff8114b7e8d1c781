package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/gnn"
)

// NumericsVersion numbers the arithmetic of a run in float64 (the
// default precision). Two runs with the same settings, scenario and
// numerics version (Numerics) give the same numbers, whatever the commit
// they were built from; result stores key finished runs on it. Bump it
// with any change that alters a run's numbers (summation order, an
// initialisation, a random draw), so that stored results are recomputed
// instead of reused.
const NumericsVersion = 1

// NumericsVersion32 numbers the arithmetic of a run at precision f32
// (gnn.F32), as NumericsVersion does in float64; a change of the float32
// arithmetic alone bumps it and leaves the float64 results' keys alone.
// Version 2 runs the heads (the classifier, the APV scores and the
// kernel head's products) in float32; version 1 ran them in float64.
const NumericsVersion32 = 2

// Numerics returns the numerics version of runs at precision p:
// NumericsVersion32 for gnn.F32, NumericsVersion otherwise.
func Numerics(p gnn.Precision) int {
	if p == gnn.F32 {
		return NumericsVersion32
	}
	return NumericsVersion
}

// A SettingError reports a setting of Config that does not parse or is
// out of range. Key is the setting's name as Settings lists it, or one
// of the run's settings Settings does not list: workers (Config.Workers)
// or client_dropout (Faults.Dropout, see Engine.SetFaults).
type SettingError struct {
	Key   string
	Value string
	Want  string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("sim: %s = %s, want %s", e.Key, e.Value, e.Want)
}

// setting is one named field of Config.
type setting struct {
	key     string
	numeric bool
	get     func(*Config) string
	set     func(*Config, string) error
	// algos, when not nil, lists the only algorithms that read the
	// setting; Fingerprint leaves it out for the others.
	algos []Algorithm
	// def, when not "", is a value that Fingerprint leaves out: a setting
	// added after results were stored, at the value runs had before it.
	def string
	// doc describes a method's setting (Setting.Doc); the shared
	// settings' are in docs.
	doc string
	// check is a method's setting's range check (Setting.Check).
	check func(string) string
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func intSetting(key string, p func(*Config) *int) setting {
	return setting{key: key, numeric: true,
		get: func(c *Config) string { return strconv.Itoa(*p(c)) },
		set: func(c *Config, s string) error {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return &SettingError{key, s, "an integer"}
			}
			*p(c) = v
			return nil
		}}
}

func floatSetting(key string, p func(*Config) *float64) setting {
	return setting{key: key, numeric: true,
		get: func(c *Config) string { return fmtFloat(*p(c)) },
		set: func(c *Config, s string) error {
			v, err := ParseFloat(s)
			if err != nil {
				return &SettingError{key, s, numberWant(err)}
			}
			*p(c) = v
			return nil
		}}
}

// settings lists Config's fields by name, in the order Settings returns.
var settings = []setting{
	{key: "algo", get: func(c *Config) string { return string(c.Algo) },
		set: func(c *Config, s string) error { return setName(&c.Algo, s, ParseAlgorithm) }},
	intSetting("rounds", func(c *Config) *int { return &c.Rounds }),
	intSetting("epochs", func(c *Config) *int { return &c.Epochs }),
	intSetting("hidden", func(c *Config) *int { return &c.Hidden }),
	func() setting {
		s := intSetting("layers", func(c *Config) *int { return &c.Layers })
		s.get = func(c *Config) string { return strconv.Itoa(c.layers()) }
		set := s.set
		s.set = func(c *Config, v string) error { // 0, Config's "the default", is not a depth to ask for
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n == 0 {
				return &SettingError{"layers", v, "1, 2 or 3"}
			}
			return set(c, v)
		}
		s.def = "2"
		return s
	}(),
	floatSetting("lr", func(c *Config) *float64 { return &c.LR }),
	floatSetting("wd", func(c *Config) *float64 { return &c.WD }),
	floatSetting("dropout", func(c *Config) *float64 { return &c.Dropout }),
	floatSetting("alpha", func(c *Config) *float64 { return &c.Alpha }), // read by the methods that Use it

	floatSetting("sigma", func(c *Config) *float64 { return &c.Sigma }),
	{key: "score", get: func(c *Config) string { return c.Score.String() },
		set: func(c *Config, s string) error {
			k, err := gnn.ParseScoreKind(s)
			if err != nil {
				return &SettingError{"score", s, "cosine or maxnorm"}
			}
			c.Score = k
			return nil
		}},
	{key: "kernel", get: func(c *Config) string { return string(c.Kernel) },
		set: func(c *Config, s string) error { return setName(&c.Kernel, s, ParseKernel) }},
	{key: "seed", numeric: false, get: func(c *Config) string { return strconv.FormatUint(c.Seed, 10) },
		set: func(c *Config, s string) error {
			v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return &SettingError{"seed", s, "a non-negative integer"}
			}
			c.Seed = v
			return nil
		}},
	{key: "sim", get: func(c *Config) string { return string(c.Source) },
		set: func(c *Config, s string) error { return setName(&c.Source, s, ParseSource) }},
	{key: "apv_mix", get: func(c *Config) string { return onOff(c.APVMix) },
		set: func(c *Config, s string) error {
			switch s {
			case "on", "true":
				c.APVMix = true
			case "off", "false":
				c.APVMix = false
			default:
				return &SettingError{"apv_mix", s, "on or off"}
			}
			return nil
		}},
	{key: "precision", get: func(c *Config) string { return c.Precision.String() },
		set: func(c *Config, s string) error {
			p, err := gnn.ParsePrecision(strings.TrimSpace(s))
			if err != nil {
				return &SettingError{"precision", s, "f64 or f32"}
			}
			c.Precision = p
			return nil
		},
		// Added after results were stored, all of them in float64: left
		// out of the fingerprint at f64, so their keys are unchanged,
		// and in it at f32, so the two never share a key.
		def: "f64"},
	floatSetting("partners", func(c *Config) *float64 { return &c.Partners }), // read by the methods that Use it
}

// sharedSetting returns the shared setting key, nil if none.
func sharedSetting(key string) *setting {
	for i := range settings {
		if settings[i].key == key {
			return &settings[i]
		}
	}
	return nil
}

// allSettings returns the shared settings, then the registered methods'
// own (Method.Settings) in the order of their first declaration. Of the
// shared settings, alpha and partners are read by the methods that list
// them in Method.Uses only; a method's own setting by the methods that
// declare it.
func allSettings() []setting {
	own, readers := methodSettings()
	out := make([]setting, 0, len(settings)+len(own))
	for _, s := range settings {
		if slices.Contains(MethodSharedSettings(), s.key) {
			s.algos = readers[s.key]
			if s.algos == nil {
				s.algos = []Algorithm{}
			}
		}
		out = append(out, s)
	}
	for i := range own {
		out = append(out, optionSetting(&own[i], readers[own[i].Key]))
	}
	return out
}

// optionSetting is a method's setting as Config reads and writes it.
func optionSetting(s *Setting, algos []Algorithm) setting {
	doc := s.Doc
	if s.Live {
		doc += " (live: the console changes it between rounds)"
	}
	return setting{key: s.Key, numeric: s.Type == Int || s.Type == Float, algos: algos, def: s.Since, doc: doc,
		get: func(c *Config) string { return c.Options.String(s.Key) },
		set: func(c *Config, v string) error {
			canon, err := s.parse(v)
			if err != nil {
				return err
			}
			c.Options.set(s, canon)
			return nil
		},
		check: s.Check,
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// docs describe the settings, for flags and error messages.
var docs = map[string]string{
	"algo":      "algorithm: one of Algorithms",
	"rounds":    "communication rounds",
	"epochs":    "local epochs per round (one epoch = one full-batch Adam step)",
	"hidden":    "hidden width d",
	"layers":    "GCN layers L: 1, 2 or 3",
	"lr":        "Adam learning rate",
	"wd":        "weight decay (coupled L2)",
	"dropout":   "the model's dropout probability, 0 <= p < 1",
	"alpha":     "server temperature alpha (Eq. 4), >= 0",
	"sigma":     "kernel bandwidth sigma (Eq. 5), > 0",
	"score":     "APV score: cosine (reference code) or maxnorm (paper text)",
	"kernel":    "kernel transform: auto, dense or fast",
	"seed":      "random seed",
	"sim":       "similarity source for FedAux's weights: apv, apv-delta, pc1, readout, functional",
	"apv_mix":   "on: the server mixes the APV too (Eq. 6); off: each client keeps its own APV",
	"partners":  "auto alpha: target effective number of partners per client (exp of the weights' entropy); 0 for a fixed alpha",
	"precision": "arithmetic of the clients' models: f64 (default) or f32 (the GCN layers, their Adam steps and the head's products and APV scores; the kernel aggregate and the loss stay f64; every method whose client is the GCN, all but fedgnn and the fedsage ones)",
}

// Describe returns a one-line description of a setting, shared or a
// registered method's.
func Describe(key string) string {
	if d, ok := docs[key]; ok {
		return d
	}
	if s := lookup(key); s != nil {
		return s.doc
	}
	return ""
}

// ReadBy reports whether algorithm a reads the setting key: every
// algorithm reads the shared settings but alpha and partners, which the
// methods listing them in Method.Uses read, and a method's own setting
// is read by the methods that declare it. An unknown key is read by none.
func ReadBy(key string, a Algorithm) bool {
	for _, s := range allSettings() {
		if s.key == key {
			return s.algos == nil || slices.Contains(s.algos, a)
		}
	}
	return false
}

func lookup(key string) *setting {
	if s := sharedSetting(key); s != nil {
		return s
	}
	for _, s := range allSettings()[len(settings):] {
		if s.key == key {
			return &s
		}
	}
	return nil
}

// Settings lists the names of Config's settings (every field but
// Workers, which does not change a run's numbers), as Get and Set take
// them.
func Settings() []string {
	all := allSettings()
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = s.key
	}
	return out
}

// NumericSettings lists the settings whose values are numbers, the ones a
// sweep can vary (the seed aside).
func NumericSettings() []string {
	var out []string
	for _, s := range allSettings() {
		if s.numeric {
			out = append(out, s.key)
		}
	}
	return out
}

// AlgorithmSettings lists the settings that only algo and a few others
// read (fedaux: alpha and partners; fedprox: mu; fedpub: tau; gcfl:
// eps1 and eps2): its own (Method.Settings) and the shared ones it
// Uses.
func AlgorithmSettings(algo Algorithm) []string {
	var out []string
	for _, s := range allSettings() {
		if slices.Contains(s.algos, algo) {
			out = append(out, s.key)
		}
	}
	return out
}

// Get returns the value of the named setting, as Set reads it.
func (c *Config) Get(key string) (string, error) {
	s := lookup(key)
	if s == nil {
		return "", unknownSetting(key)
	}
	return s.get(c), nil
}

// Set parses value and sets the named setting. It checks the syntax
// only; Validate checks the range.
func (c *Config) Set(key, value string) error {
	s := lookup(key)
	if s == nil {
		return unknownSetting(key)
	}
	return s.set(c, value)
}

func unknownSetting(key string) error {
	return &SettingError{Key: key, Value: "(unknown setting)", Want: "one of " + strings.Join(Settings(), ", ")}
}

// Fingerprint spells every setting that can change the numbers of a run
// of c.Algo, as sorted key=value pairs joined by commas: the settings
// that only other algorithms read are left out, and so is the worker
// count.
func (c Config) Fingerprint() string {
	var parts []string
	for _, s := range allSettings() {
		if s.algos != nil && !slices.Contains(s.algos, c.Algo) {
			continue
		}
		v := s.get(&c)
		if s.def != "" && v == s.def {
			continue
		}
		parts = append(parts, s.key+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// checkRange returns a SettingError unless v is finite and at least lo
// (above lo when open).
func checkRange(key string, v, lo float64, open bool) error {
	bad := math.IsNaN(v) || math.IsInf(v, 0) || v < lo || (open && v == lo)
	if !bad {
		return nil
	}
	want := "a finite value >= " + fmtFloat(lo)
	if open {
		want = "a finite value > " + fmtFloat(lo)
	}
	return &SettingError{key, fmtFloat(v), want}
}
