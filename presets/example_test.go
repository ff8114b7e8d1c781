package presets_test

import (
	"context"
	"fmt"
	"log"
	"slices"

	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// ExampleNewEngine runs FedAux for five rounds on a small SBM (the
// sbm-gauss preset, made smaller with the keys of a scenario file),
// prints the mean client test accuracy of each round, and runs it again
// with another number of workers: the engine gives the same bits.
func ExampleNewEngine() {
	p, err := presets.Get("sbm-gauss")
	if err != nil {
		log.Fatal(err)
	}
	p, err = p.With([]string{"clients=6", "sbm.nodes=600", "sbm.groups=2", "sbm.intra=0.05,0.1", "run.rounds=5", "run.hidden=16"})
	if err != nil {
		log.Fatal(err)
	}
	run := func(workers int) []float64 {
		cfg := p.Config() // the scenario's settings: FedAux, 5 rounds, hidden 16, ...
		cfg.Seed, cfg.Workers = 1, workers
		e, _, err := presets.NewEngine(p, presets.Env{}, cfg, nil)
		if err != nil {
			log.Fatal(err)
		}
		var acc []float64
		if _, err := e.Run(context.Background(), func(r *sim.RoundReport) { acc = append(acc, r.MeanTest) }); err != nil {
			log.Fatal(err)
		}
		return acc
	}
	one := run(1)
	for i, a := range one {
		fmt.Printf("round %d: mean test accuracy %.2f %%\n", i+1, a)
	}
	fmt.Println("same with 3 workers:", slices.Equal(one, run(3)))
	// Output:
	// round 1: mean test accuracy 72.83 %
	// round 2: mean test accuracy 74.08 %
	// round 3: mean test accuracy 74.50 %
	// round 4: mean test accuracy 74.50 %
	// round 5: mean test accuracy 74.50 %
	// same with 3 workers: true
}
