package sim_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fedaux/fedaux/internal/datadir"
	"github.com/fedaux/fedaux/presets"
)

// BenchmarkRound runs whole rounds (Engine.Step: local training,
// evaluation, signatures, mixing) of a headless FedAux run on the
// reference scenarios, after one round of warm-up. Beside time and
// allocations per round it reports the process's CPU time per round
// (cpu-ms/op, user and system: less sensitive than wall time to other
// programs on a shared machine), the heap the engine keeps between rounds
// (live-MB, after a collection) and the heap obtained from the operating
// system (heap-sys-MB), which bounds what the runtime could hand back.
func BenchmarkRound(b *testing.B) {
	for _, name := range []string{"cora-10-ref", "computer-10"} {
		b.Run(name, func(b *testing.B) {
			env := presets.Env{DataDir: filepath.Dir(datadir.File(b, "cora.npz"))}
			p, err := presets.Get(name)
			if err != nil {
				b.Fatal(err)
			}
			cfg := p.Config()
			cfg.Rounds = 1 << 20 // never done
			e, _, err := presets.NewEngine(p, env, cfg, nil)
			if err != nil {
				b.Skip(err) // the data files are missing
			}
			ctx := context.Background()
			if _, err := e.Step(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				if _, err := e.Step(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
			b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MB")
			runtime.KeepAlive(e)
		})
	}
}
