package cli

import (
	"bytes"
	"errors"
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
				if err := parseFlags(fs, args); err != nil {
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

// newFlagSet returns the flag set of a command, whose usage (-h) is the
// command's synopsis and summary and its flags, on out. Parse it with
// parseFlags, which reports a bad flag once.
func newFlagSet(name string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), commandUsage(name))
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprint(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// A FlagError is a command line that fs could not parse: a flag it does
// not define, or a value its flag refuses. Main prints it once, with
// where the command's flags are listed, and exits with status 2.
type FlagError struct {
	Command string // the flag set's name: "run", "data get", ...
	Err     error  // the flag package's error
}

func (e *FlagError) Error() string { return e.Err.Error() }

func (e *FlagError) Unwrap() error { return e.Err }

// hint says where the command's flags are listed.
func (e *FlagError) hint() string {
	if lookup(e.Command) != nil {
		return fmt.Sprintf("run 'fedaux help %s' for its flags", e.Command)
	}
	return fmt.Sprintf("run 'fedaux %s -h' for its flags", e.Command)
}

// parseFlags parses args with fs. -h prints fs's usage and returns
// flag.ErrHelp; any other error is returned as a *FlagError and printed
// by no one here: what the flag package wrote for it (the error, then
// the whole usage) is dropped, so that a mistyped flag costs one line.
// fs's Usage must write to fs.Output().
func parseFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	var said bytes.Buffer
	fs.SetOutput(&said)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return &FlagError{Command: fs.Name(), Err: err}
	}
	out.Write(said.Bytes()) // -h's usage
	return err
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
