package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/servercost"
)

// serverCostCmd measures the server's similarity step: `fedaux
// servercost [-rounds 50] [-reps 50] [-warm 5] [-out DIR]`.
func serverCostCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("servercost", stderr)
	dataDir := fs.String("data", "", "data `dir` ("+dataDirDefault+")")
	out := fs.String("out", filepath.Join("runs", "server-cost"), "output `dir`ectory (the committed results are results/server-cost)")
	rounds := fs.Int("rounds", 50, "rounds of the cora-10 engines before their uploads are taken")
	reps := fs.Int("reps", 50, "timed repetitions")
	warm := fs.Int("warm", 5, "warm-up repetitions")
	seed := seedFlag(42)
	fs.Var(&seed, "seed", "seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("servercost: unexpected argument %q", fs.Arg(0))
	}
	for _, c := range []struct {
		flag     string
		v, least int
	}{{"-rounds", *rounds, 1}, {"-reps", *reps, 1}, {"-warm", *warm, 0}} {
		if c.v < c.least {
			return fmt.Errorf("%s: %d, want >= %d", c.flag, c.v, c.least)
		}
	}
	if err := writableDir(*out); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	// No signal is caught: a measurement has nothing to save, and an
	// interrupt ends it at once.
	res, err := servercost.Run(context.Background(), servercost.Options{
		Env: presets.Env{DataDir: presets.DataDir(*dataDir)}, Rounds: *rounds, Reps: *reps, Warm: *warm, Seed: uint64(seed),
		Out: *out, Progress: stderr,
	})
	if err != nil {
		return err
	}
	return servercost.Render(stdout, res)
}
