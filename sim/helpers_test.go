package sim

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/internal/simtest"
)

// The helpers of sim's tests, internal (package sim) and external
// (package sim_test, through export_test.go).

// smallData is a 240-node SBM with 8 clients in 2 groups.
func smallData(t testing.TB, seed uint64) *Data {
	t.Helper()
	f := simtest.Small(t, seed)
	return &Data{Clients: f.Clients, NumFeatures: f.NumFeatures, NumClasses: f.NumClasses, Groups: f.Groups}
}

func smallConfig(algo Algorithm) Config {
	c := DefaultConfig()
	c.Algo, c.Rounds, c.Hidden = algo, 4, 16
	return c
}

// runEngine builds an engine for c on d, wanting the optional matrices
// named in want (see Engine.Want), and runs it to the end.
func runEngine(t testing.TB, c Config, d *Data, want ...string) *Engine {
	t.Helper()
	e, err := New(c, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Want(want...)
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// stripTimes removes the wall-clock fields from a report.
func stripTimes(reps []*RoundReport) []RoundReport {
	out := make([]RoundReport, len(reps))
	for i, r := range reps {
		out[i] = *r
		out[i].Seconds = 0
	}
	return out
}

// setOpts sets settings of c, key then value, failing t on a parse error.
func setOpts(t testing.TB, c *Config, kv ...string) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		if err := c.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
}

// unregister removes a method registered by a test, so that the tests
// that go through every algorithm (the golden digests) see the built-ins
// only.
func unregister(name Algorithm) {
	registry.Lock()
	defer registry.Unlock()
	m := registry.methods[name]
	if m == nil {
		return
	}
	delete(registry.methods, name)
	registry.order = slices.DeleteFunc(registry.order, func(a Algorithm) bool { return a == name })
	for _, s := range m.Settings {
		registry.owners[s.Key] = slices.DeleteFunc(registry.owners[s.Key], func(a Algorithm) bool { return a == name })
		if len(registry.owners[s.Key]) == 0 {
			delete(registry.owners, s.Key)
			registry.settings = slices.DeleteFunc(registry.settings, func(t Setting) bool { return t.Key == s.Key })
		}
	}
	for _, u := range m.Uses {
		registry.users[u] = slices.DeleteFunc(registry.users[u], func(a Algorithm) bool { return a == name })
	}
}

// settingKey returns the Key of a *SettingError, or "" for any other error.
func settingKey(err error) string {
	var se *SettingError
	if errors.As(err, &se) {
		return se.Key
	}
	return ""
}
