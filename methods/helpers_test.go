package methods

import (
	"context"
	"testing"

	"github.com/fedaux/fedaux/internal/simtest"
	"github.com/fedaux/fedaux/sim"
)

// The helpers of the package's tests, internal (package methods) and
// external (package methods_test, through export_test.go).

// smallData is sim's test federation: a two-group SBM of 240 nodes in 8
// clients (seed 3 or 7).
func smallData(t testing.TB, seed uint64) *sim.Data {
	t.Helper()
	f := simtest.Small(t, seed)
	return &sim.Data{Clients: f.Clients, NumFeatures: f.NumFeatures, NumClasses: f.NumClasses, Groups: f.Groups}
}

// smallConfig is sim's test configuration.
func smallConfig(algo sim.Algorithm) sim.Config {
	c := sim.DefaultConfig()
	c.Algo, c.Rounds, c.Hidden = algo, 4, 16
	return c
}

func run(t testing.TB, c sim.Config, d *sim.Data, want ...string) *sim.Engine {
	t.Helper()
	e, err := sim.New(c, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Want(want...)
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return e
}

func reports(e *sim.Engine) []sim.RoundReport {
	var out []sim.RoundReport
	for _, r := range e.Reports() {
		c := *r
		c.Seconds = 0
		out = append(out, c)
	}
	return out
}

// set sets settings of c, key then value, failing t on a parse error.
func set(t testing.TB, c *sim.Config, kv ...string) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		if err := c.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
}
