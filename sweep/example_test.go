package sweep_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/sweep"
)

// Example sweeps FedAux's learning rate on a small SBM (two seeds
// of five rounds each), renders the sweep, and prints its table: a row
// per value, the best in bold.
func Example() {
	dir, err := os.MkdirTemp("", "sweep")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	p, err := presets.Get("sbm-gauss")
	if err != nil {
		log.Fatal(err)
	}
	p, err = p.With([]string{"clients=6", "sbm.nodes=600", "sbm.groups=2", "sbm.intra=0.05,0.1", "run.rounds=5", "run.hidden=16"})
	if err != nil {
		log.Fatal(err)
	}
	lr, err := sweep.ParseKnob("lr=0.001,0.01,0.1")
	if err != nil {
		log.Fatal(err)
	}
	res, err := sweep.Run(context.Background(), sweep.Options{
		Presets: []*presets.Preset{p}, Knobs: []sweep.Knob{lr}, Algos: []sim.Algorithm{methods.FedAux},
		Seeds: 2, Seed: 1, Out: dir,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d runs, %d run now\n", res.Mine, res.Ran)
	var md bytes.Buffer
	if err := sweep.Render(&md, res); err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(line, "|") {
			fmt.Println(line)
		}
	}
	// Output:
	// 6 runs, 6 run now
	// | lr | fedaux |
	// |---|---|
	// | 0.001 | 36.78 ± 3.08 |
	// | 0.01 | **77.10 ± 2.60** |
	// | 0.1 | 77.10 ± 2.60 |
}
