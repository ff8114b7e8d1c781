package sim_test

import (
	"context"
	"testing"

	"github.com/fedaux/fedaux/presets"
)

// BenchmarkStepRollback times rounds of the console's default scenarios
// with rollback off (a headless run) and on (the console, which keeps
// every client's state at the start of each round to undo a failed one).
func BenchmarkStepRollback(b *testing.B) {
	for _, name := range []string{"sbm", "sbm-gauss"} {
		for _, on := range []bool{false, true} {
			b.Run(name+map[bool]string{false: "/rollback=off", true: "/rollback=on"}[on], func(b *testing.B) {
				p, err := presets.Get(name)
				if err != nil {
					b.Fatal(err)
				}
				cfg := p.Config()
				cfg.Rounds = 1 << 20
				e, _, err := presets.NewEngine(p, presets.Env{}, cfg, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := e.SetRollback(on); err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				if _, err := e.Step(ctx); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if _, err := e.Step(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
