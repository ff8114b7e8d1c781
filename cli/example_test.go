package cli_test

import (
	"fmt"

	"github.com/fedaux/fedaux/cli"
)

// ExampleMain runs a command as a program's main would: the statistics
// of a small SBM scenario (the sbm-gauss preset with four clients). Main
// returns the exit status instead of exiting, so that a program of one's
// own (one that registers a method, say) can call it and exit with it.
func ExampleMain() {
	code := cli.Main([]string{"stats", "-preset", "sbm-gauss",
		"-set", "clients=4", "-set", "sbm.nodes=400", "-set", "sbm.groups=2", "-set", "sbm.intra=0.05,0.1"})
	fmt.Println("exit status", code)
	// Output:
	// sbm-gauss: 4 clients, partition sbm blocks, imbalance 0.000 (largest client over n/K, minus 1)
	// metric: accuracy
	// client  nodes  edges train   val  test       JS  homoph  labels (class:count)
	//      0    100    226    20    38    42   0.1326  0.6018  0:78 1:3 2:7 3:6 4:6
	//      1    100    238    19    38    43   0.1168  0.6513  0:80 1:5 2:4 3:6 4:5
	//      2    100    476    20    45    35   0.1397  0.6218  0:2 1:79 2:4 3:5 4:10
	//      3    100    514    21    39    40   0.1115  0.7179  0:6 1:83 2:3 3:2 4:6
	// edge homophily (same-label share of the clients' edges, Zhu et al. 2020): 0.6575 over all clients
	// JSD 0.1252  MMD 0.6368 (RBF bandwidth 30.33, all nodes)  xi 0.7619
	// exit status 0
}
