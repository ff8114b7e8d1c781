package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/fedaux/fedaux/presets"
)

// A command is one subcommand of fedaux: the usage text, `fedaux help
// NAME` and the flag set's own usage (-h) are all made from these lines.
type command struct {
	name     string
	synopsis string // the arguments after the name
	summary  string // what it does, in one line
	run      func(args []string, stdout, stderr io.Writer) error
}

// commands lists every command, in the order usage shows them (set by
// init: the commands' flag sets read it for their usage).
var commands []command

func init() {
	commands = []command{
		{"tui", "[-preset NAME | -scenario FILE] [run flags]", "the console: step rounds, watch clients, tweak alpha, sigma and the method's live settings, fork and compare",
			func(args []string, _, stderr io.Writer) error { return tuiCmd(args, stderr) }},
		{"run", "-preset NAME | -scenario FILE [flags]", "a headless run: progress on stderr, summary on stdout (-seeds, -json, -log, -resume, -replay)", runCmd},
		{"presets", "", "list the presets and the scenario files in ./scenarios, with what they need, and the methods",
			func(args []string, stdout, stderr io.Writer) error {
				fs := newFlagSet("presets", stderr)
				if err := fs.Parse(args); err != nil {
					return err
				}
				if fs.NArg() > 0 {
					return fmt.Errorf("presets: unexpected argument %q", fs.Arg(0))
				}
				return presetsCmd(stdout)
			}},
		{"scenario", "show NAME|FILE | keys | check FILE...", "print a scenario file (every preset is one) to copy and edit, list its keys, check files", scenarioCmd},
		{"stats", "-preset NAME | -scenario FILE [flags]", "per-client statistics and the non-IID degree xi", statsCmd},
		{"data", "[-data DIR] | get NAME...|all | serve", "each dataset: present, verified, how to get it; download them (checksums pinned); serve them as a mirror", dataCmd},
		{"table", "[-table main|ablation|transfer] [flags]", "the paper's tables: every run, resumable, shardable, mean ± std beside the published values", tableCmd},
		{"sweep", "-preset P[,P...] -grid KEY=V1,V2,... [-grid ...] [flags]", "a parameter sweep: every combination, resumable, shardable; sweep.md and figures", sweepCmd},
		{"convergence", "-preset P[,P...] [flags]", "mean test accuracy per round over seeds: a figure per preset, converged rounds", convergenceCmd},
		{"similarity", "[-preset sbm] [-variants grid] [flags]", "how well each similarity view tracks the ground truth and recovers the groups", similarityCmd},
		{"servercost", "[-rounds 50] [-reps 50] [-warm 5] [-out DIR]", "time and peak memory of the server's similarity step: FedAux, FED-PUB, GCFL", serverCostCmd},
		{"privacy", "[-preset cora-10] [flags]", "membership inference attack on the uploads: attack AUC per client, beside the paper's", privacyCmd},
		{"version", "", "the version and the commit the binary was built from", nil},
		{"help", "[COMMAND]", "this text, or a command's usage and flags", nil},
	}
}

// lookup returns the command called name, or nil.
func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// usage is fedaux's usage text: every command in one line.
func usage() string {
	var b strings.Builder
	b.WriteString("fedaux: personalised subgraph federated learning, round by round.\n\n")
	fmt.Fprintf(&b, "Usage:\n  fedaux [flags]          the console on the %s preset (flags as tui's: -preset, -start, ...)\n  fedaux COMMAND [flags]\n\nCommands:\n", presets.Default)
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.summary)
	}
	b.WriteString("\nEvery command that runs something takes -preset or -scenario FILE, and -set KEY=VALUE to change one key.\n")
	b.WriteString("Run 'fedaux help COMMAND' (or 'fedaux COMMAND -h') for its flags.\n")
	return b.String()
}

// commandUsage is the head of a command's usage: its synopsis and summary.
func commandUsage(name string) string {
	c := lookup(name)
	if c == nil {
		return "usage: fedaux " + name + "\n"
	}
	return fmt.Sprintf("usage: %s\n\n%s.\n", strings.TrimSpace("fedaux "+c.name+" "+c.synopsis), strings.ToUpper(c.summary[:1])+c.summary[1:])
}

// newFlagSet returns the flag set of a command, which reports its
// errors and its usage (-h) on out. After an error it says where the
// flags are, in one line, instead of listing them all under the error.
func newFlagSet(name string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	cw := &countWriter{w: out}
	fs.SetOutput(cw)
	seen := 0
	fs.Usage = func() {
		// The flag package writes a parse error just before it calls
		// Usage, and nothing before -h's.
		if cw.n > seen {
			fmt.Fprintf(cw, "run 'fedaux help %s' for its flags\n", name)
			seen = cw.n
			return
		}
		fmt.Fprint(cw, commandUsage(name))
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprint(cw, "\nFlags:\n")
			fs.PrintDefaults()
		}
		seen = cw.n
	}
	return fs
}

// countWriter is a writer that counts the writes to w.
type countWriter struct {
	w io.Writer
	n int
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n++
	return c.w.Write(p)
}

// helpCmd is `fedaux help [COMMAND]`.
func helpCmd(args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 0:
		fmt.Fprint(stderr, usage())
		return nil
	case len(args) > 1:
		return fmt.Errorf("help: want one command, got %q", strings.Join(args, " "))
	}
	c := lookup(args[0])
	switch {
	case c == nil:
		return fmt.Errorf("help: unknown command %q; the commands: %s", args[0], commandNames())
	case c.run == nil: // version, help
		fmt.Fprint(stderr, commandUsage(c.name))
		return nil
	}
	return c.run([]string{"-h"}, stdout, stderr)
}

// commandNames lists the commands' names.
func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}
