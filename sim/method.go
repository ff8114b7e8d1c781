package sim

import (
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// A Method describes a federated algorithm to fedaux: Register it once
// (from an init function) and the engine builds its Strategy for a run
// whose Config.Algo is Name, while the command line (-algo, -h, -set,
// scenario files, 'fedaux scenario keys', 'fedaux sweep -grid'), the
// tables' names and Settings line and the console read the rest. See
// docs/methods.md for a worked example (SCAFFOLD, in examples/scaffold).
type Method struct {
	// Name is the method's name as -algo and scenario files give it:
	// lower-case letters, digits and '_', starting with a letter.
	Name Algorithm
	// Describe is a one-line description, for 'fedaux presets' and the
	// console's method picker.
	Describe string
	// Display is the method's name in tables ("FedProx"); "" means Name.
	Display string
	// Settings are the method's own settings. Each appears beside the
	// shared ones (Settings) and is read back with Config.Options. Two
	// methods may declare the same key only with the same declaration
	// (FedGTA and FedGTA+APV share gta_eps); the key then belongs to both.
	Settings []Setting
	// Uses lists the shared settings that only some methods read (see
	// MethodSharedSettings: "alpha", "partners") that this method reads,
	// so that Fingerprint keys its results on them and tables print them.
	Uses []string
	// Check, when not nil, validates the settings together, after each
	// has passed its own Setting.Check (FedSage+: two layers); its error
	// should be a *SettingError naming the setting at fault.
	Check func(c *Config) error
	// Float32 reports that the method's client model can run in float32
	// (Config.Precision gnn.F32, -precision f32): it is the GCN of
	// gnn.Model, trained by the shared client loop. Its strategy's hooks
	// and server see the parameters and gradients in float64, holding
	// float32 values; what they add to a gradient is rounded to float32
	// by the step (FedProx's proximal term).
	Float32 bool
	// New builds the method's Strategy for a run. The engine calls it
	// once per engine (and once per resumed checkpoint), after Validate.
	New func(c *Config) (Strategy, error)
}

// MethodSharedSettings lists the shared settings that a Method may list
// in Uses: the server temperature alpha of Eq. 4 and auto alpha's target.
func MethodSharedSettings() []string { return []string{"alpha", "partners"} }

var methodName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// registry holds the registered methods and their settings.
var registry struct {
	sync.RWMutex
	methods map[Algorithm]*Method
	order   []Algorithm // registration order
	// settings are the methods' own settings, first declaration first;
	// owners[key] lists the methods that declare key, and users[key]
	// those that list a shared setting in Uses.
	settings []Setting
	owners   map[string][]Algorithm
	users    map[string][]Algorithm
}

// Register makes a method available under its name. It panics, naming
// the method and the field, when the descriptor is incomplete or
// conflicts with one already registered (a duplicate name, a setting key
// that is a shared setting's or another method's with a different
// declaration): like flag.Var or sql.Register, it is called from init
// functions, where a mistake is the program's, not the user's.
func Register(m Method) {
	if err := checkMethod(&m); err != nil {
		panic("sim.Register: " + err.Error())
	}
	registry.Lock()
	defer registry.Unlock()
	if err := registerLocked(&m); err != nil {
		panic("sim.Register: " + err.Error())
	}
}

func checkMethod(m *Method) error {
	switch {
	case !methodName.MatchString(string(m.Name)):
		return fmt.Errorf("method name %q: want lower-case letters, digits and '_', starting with a letter", m.Name)
	case m.Describe == "":
		return fmt.Errorf("method %s: no Describe", m.Name)
	case m.New == nil:
		return fmt.Errorf("method %s: no New", m.Name)
	}
	for _, u := range m.Uses {
		if !slices.Contains(MethodSharedSettings(), u) {
			return fmt.Errorf("method %s: Uses %q, want one of %v", m.Name, u, MethodSharedSettings())
		}
	}
	for i := range m.Settings {
		if err := m.Settings[i].check(); err != nil {
			return fmt.Errorf("method %s: %w", m.Name, err)
		}
	}
	return nil
}

func registerLocked(m *Method) error {
	if registry.methods == nil {
		registry.methods = map[Algorithm]*Method{}
		registry.owners = map[string][]Algorithm{}
		registry.users = map[string][]Algorithm{}
	}
	if _, dup := registry.methods[m.Name]; dup {
		return fmt.Errorf("method %s registered twice", m.Name)
	}
	for _, s := range m.Settings {
		if sharedSetting(s.Key) != nil {
			return fmt.Errorf("method %s: setting %q is a shared setting", m.Name, s.Key)
		}
		if old := registeredSetting(s.Key); old != nil && !old.same(&s) {
			return fmt.Errorf("method %s: setting %q declared differently by %v", m.Name, s.Key, registry.owners[s.Key])
		}
	}
	for _, s := range m.Settings {
		if registeredSetting(s.Key) == nil {
			registry.settings = append(registry.settings, s)
		}
		registry.owners[s.Key] = append(registry.owners[s.Key], m.Name)
	}
	for _, u := range m.Uses {
		registry.users[u] = append(registry.users[u], m.Name)
	}
	m.Settings = slices.Clone(m.Settings)
	registry.methods[m.Name] = m
	registry.order = append(registry.order, m.Name)
	return nil
}

// registeredSetting returns the method setting key (registry locked).
func registeredSetting(key string) *Setting {
	for i := range registry.settings {
		if registry.settings[i].Key == key {
			return &registry.settings[i]
		}
	}
	return nil
}

// LookupMethod returns the method registered under name.
func LookupMethod(name Algorithm) (Method, bool) {
	registry.RLock()
	defer registry.RUnlock()
	m, ok := registry.methods[name]
	if !ok {
		return Method{}, false
	}
	return *m, true
}

// Methods returns the registered methods, sorted by name.
func Methods() []Method {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Method, 0, len(registry.methods))
	for _, m := range registry.methods {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b Method) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}

// Algorithms lists the registered methods' names, sorted.
func Algorithms() []Algorithm {
	ms := Methods()
	out := make([]Algorithm, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// Describe returns the method's one-line description ("" when a is not
// registered).
func (a Algorithm) Describe() string {
	m, _ := LookupMethod(a)
	return m.Describe
}

// Display returns the method's name in tables (Method.Display, else its
// name).
func (a Algorithm) Display() string {
	if m, ok := LookupMethod(a); ok && m.Display != "" {
		return m.Display
	}
	return string(a)
}

// newStrategy returns the strategy that cfg.Algo names.
func newStrategy(cfg *Config) (Strategy, error) {
	m, ok := LookupMethod(cfg.Algo)
	if !ok {
		return nil, &SettingError{"algo", string(cfg.Algo), algorithmsWant()}
	}
	st, err := m.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name, err)
	}
	if st == nil {
		return nil, fmt.Errorf("%s: New returned no strategy", m.Name)
	}
	return st, nil
}

// methodSettings returns the methods' own settings and, per key, the
// methods that read it: the declaring methods for their settings, the
// methods listing it in Uses for alpha and partners.
func methodSettings() (ss []Setting, readers map[string][]Algorithm) {
	registry.RLock()
	defer registry.RUnlock()
	readers = make(map[string][]Algorithm, len(registry.owners)+len(registry.users))
	for k, v := range registry.owners {
		readers[k] = slices.Clone(v)
	}
	for k, v := range registry.users {
		readers[k] = slices.Clone(v)
	}
	return slices.Clone(registry.settings), readers
}
