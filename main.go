// Command fedaux runs personalised subgraph federated learning (FedAux and
// its baselines) round by round: headless with `fedaux run`, or in the
// terminal console. The command line is package cli.
package main

import (
	"os"

	"github.com/fedaux/fedaux/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
