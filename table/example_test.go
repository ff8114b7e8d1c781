package table_test

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
	"github.com/fedaux/fedaux/table"
)

// Example runs a small table (FedAvg and FedAux on a 6-client SBM, two
// seeds of five rounds) into a directory, renders it, and prints its
// rows. Run again with the same directory, it would run nothing: every
// result is in the directory's results file.
func Example() {
	dir, err := os.MkdirTemp("", "table")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	small := func(dataset string, clients int) (*presets.Preset, error) {
		p, err := presets.Get("sbm-gauss")
		if err != nil {
			return nil, err
		}
		return p.With([]string{fmt.Sprintf("clients=%d", clients), "sbm.nodes=600", "sbm.groups=2", "sbm.intra=0.05,0.1", "run.rounds=5", "run.hidden=16"})
	}
	res, err := table.Run(context.Background(), table.Options{
		Kind: table.Main, Datasets: []string{"sbm"}, Clients: []int{6}, Algos: []sim.Algorithm{methods.FedAvg, methods.FedAux},
		Seeds: 2, Seed: 1, Lookup: small, Out: dir,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d runs, %d run now\n", res.Mine, res.Ran)
	var md bytes.Buffer
	if err := table.Render(&md, res); err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(line, "|") || strings.HasPrefix(line, "Runs finished") {
			fmt.Println(line)
		}
	}
	// Output:
	// 4 runs, 4 run now
	// Runs finished: 4 of 4.
	// | method | 6 clients |
	// |---|---|
	// | FedAvg | 59.87 ± 14.63 |
	// | FedAux | 77.10 ± 2.60 |
}
