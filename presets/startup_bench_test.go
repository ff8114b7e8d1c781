package presets

import (
	"testing"

	"github.com/fedaux/fedaux/internal/cputime"
	"github.com/fedaux/fedaux/internal/datadir"
	"github.com/fedaux/fedaux/sim"
)

// BenchmarkStartup times what a run does before its first round on
// computer-10 (the Amazon graph of 13,752 nodes and 767 features, with
// its reference partition), each step on its own: the scenario (reading
// the graph, its checksum, the partition), the engine (ten clients'
// models), and the run log's facts (the non-IID degree on a sample of
// 5,000 nodes, written only when there is a log).
func BenchmarkStartup(b *testing.B) {
	env := Env{DataDir: datadir.Dir(b)}
	p, err := Get("computer-10")
	if err != nil {
		b.Fatal(err)
	}
	build := func(b *testing.B) *Scenario {
		cacheMu.Lock()
		clear(cache)
		cacheMu.Unlock()
		sc, err := p.Build(env, 0)
		if err != nil {
			b.Fatal(err)
		}
		return sc
	}
	b.Run("scenario", func(b *testing.B) {
		stop := cputime.Start(b)
		for b.Loop() {
			build(b)
		}
		stop()
	})
	sc := build(b)
	b.Run("engine", func(b *testing.B) {
		stop := cputime.Start(b)
		for b.Loop() {
			if _, err := sim.New(p.Config(), sc.Data, nil); err != nil {
				b.Fatal(err)
			}
		}
		stop()
	})
	b.Run("facts", func(b *testing.B) {
		stop := cputime.Start(b)
		for b.Loop() {
			if _, err := NonIID(sc.Data); err != nil {
				b.Fatal(err)
			}
		}
		stop()
	})
}
