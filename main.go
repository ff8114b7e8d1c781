package main

import (
	"os"

	"github.com/fedaux/fedaux/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
