// Package cli is the command line of fedaux: personalised subgraph
// federated learning (FedAux and its baselines) round by round, headless
// with `fedaux run`, or in the terminal console.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/fedaux/fedaux/presets"
)

const usage = `fedaux: personalised subgraph federated learning, round by round.

Usage:
  fedaux                            the console on the sbm-gauss preset
  fedaux tui [-preset NAME] [flags] the console: step rounds, watch clients, tweak alpha and sigma
  fedaux run -preset NAME [flags]   headless run; progress on stderr, summary on stdout
            -scenario FILE          ... on a scenario file instead; -set KEY=VALUE changes one key (any command)
  fedaux presets                    list the presets and what they need
  fedaux scenario show NAME|FILE    print a scenario file (every preset is one) to copy and edit; also: keys, check FILE
  fedaux stats -preset NAME         per-client statistics and the non-IID degree xi
  fedaux data [-data DIR]           each dataset: present, verified, how to get it (docs/data.md)
  fedaux data get NAME... | all [-mirror URL] [-data DIR]
                                    download datasets from their public sources, checksums pinned
  fedaux data serve [-addr HOST:PORT] serve the data directory as a mirror for other machines
  fedaux table [-table main|ablation] [-datasets ...] [-clients ...] [-algos ...] [-seeds N] [-out DIR] [-shard I/N|auto]
                                    the paper's tables: every run, resumable, mean ± std beside the published values
  fedaux sweep -preset P[,P...] -grid 'KEY=V1,V2,...' [-grid ...] [-algos A,B] [-seeds N] [-out DIR] [-shard I/N|auto]
                                    a parameter sweep: every combination, resumable, sweep.md and figures
  fedaux convergence -preset P[,P...] [-algos fedaux,fedavg] [-seeds 3] [-out DIR] [-reuse DIR,...]
                                    mean test accuracy per round over seeds: a figure per preset, converged rounds
  fedaux similarity [-preset sbm] [-variants grid] [-seeds N] [-at 1,10,50,100] [-out DIR]
                                    how well each similarity view tracks the ground truth and recovers the groups
  fedaux servercost [-rounds 50] [-reps 50] [-warm 5] [-out DIR]
                                    time and peak memory of the server's similarity step: FedAux, FED-PUB, GCFL
  fedaux privacy [-preset cora-10] [-algos fedaux,fedavg,fedpub,fedgnn,fedgta] [-seeds 5] [-nonmembers test|other] [-out DIR]
                                    membership inference attack on the uploads: attack AUC per client, beside the paper's
  fedaux version                    the version and the commit the binary was built from

Run 'fedaux run -h' for the flags.
`

// Main runs the command line with args, the arguments after the
// program's name, and returns the process's exit status: 0, 1 for an
// error, 2 for an unknown command, 128 plus the signal's number for a
// study an interrupt stopped.
func Main(args []string) int {
	cmd := ""
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	setGCPercent(os.Getenv("GOGC"))
	var err error
	switch cmd {
	case "":
		err = tuiCmd(nil, os.Stderr)
	case "tui":
		err = tuiCmd(args, os.Stderr)
	case "run":
		err = runCmd(args, os.Stdout, os.Stderr)
	case "presets":
		err = presetsCmd(os.Stdout)
	case "stats":
		err = statsCmd(args, os.Stdout, os.Stderr)
	case "data":
		err = dataCmd(args, os.Stdout, os.Stderr)
	case "table":
		err = tableCmd(args, os.Stdout, os.Stderr)
	case "similarity":
		err = similarityCmd(args, os.Stdout, os.Stderr)
	case "sweep":
		err = sweepCmd(args, os.Stdout, os.Stderr)
	case "convergence":
		err = convergenceCmd(args, os.Stdout, os.Stderr)
	case "scenario":
		err = scenarioCmd(args, os.Stdout, os.Stderr)
	case "servercost":
		err = serverCostCmd(args, os.Stdout, os.Stderr)
	case "privacy":
		err = privacyCmd(args, os.Stdout, os.Stderr)
	case "version", "-version", "--version":
		fmt.Println("fedaux", presets.Version)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(os.Stderr, usage)
	default:
		fmt.Fprintf(os.Stderr, "fedaux: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "fedaux:", ee.err)
		}
		return ee.code
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fedaux:", err)
		return 1
	}
	return 0
}

// defaultGCPercent is the garbage collector's target heap growth, in
// percent of the live heap, unless GOGC says otherwise. A run's heap is
// nearly all long-lived (parameters, Adam moments, data) and made of
// pointer-free arrays that the collector marks without scanning, while a
// round leaves a few MB of garbage: at Go's default of 100 the heap
// doubles before a collection (cora-10-ref: 272 MB live, 553 MB peak
// RSS), at 25 it grows by a quarter (369 MB), for a collection every ten
// rounds or so at no measurable cost (see bench/results).
const defaultGCPercent = 25

// setGCPercent sets the collector's target to defaultGCPercent unless
// gogc, the GOGC environment variable, is set.
func setGCPercent(gogc string) {
	if gogc == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
}
