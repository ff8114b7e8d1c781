// Command fedaux-scaffold is fedaux with one more method, SCAFFOLD
// (package scaffold): every command of fedaux (the console, run, table,
// sweep, shards, exports) with "scaffold" beside the built-in methods.
//
//	go run ./examples/scaffold/cmd/fedaux-scaffold run -preset cora-10 -algo scaffold
//
// A method of one's own is added the same way: a package that registers
// it (sim.Register, from an init function), and a main that imports it
// and calls cli.Main.
package main

import (
	"os"

	"github.com/fedaux/fedaux/cli"
	_ "github.com/fedaux/fedaux/examples/scaffold" // registers "scaffold"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
