package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/fedaux/fedaux/presets"
)

const scenarioUsage = `Usage:
  fedaux scenario show NAME|FILE [-set KEY=VALUE ...]   print a scenario file (a preset's, with its comments), to copy and edit
  fedaux scenario keys                                 every key a scenario file (or -set) takes, with its default
  fedaux scenario check FILE... [-data DIR]            read each file and build its scenario; say what is wrong, or what it holds
`

// scenarioCmd is `fedaux scenario show|keys|check`.
func scenarioCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, scenarioUsage)
		return errors.New("scenario: want show, keys or check")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stderr, scenarioUsage)
		return flag.ErrHelp
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("scenario "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sets []string
	fs.Func("set", "change one key, `key=value` (repeatable)", func(v string) error {
		sets = append(sets, v)
		return nil
	})
	dataDir := fs.String("data", "", "data `dir` (check)")
	// Flags may follow the names: parse what is left after each name.
	var names []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch sub {
	case "show":
		if len(names) != 1 {
			return errors.New("scenario show: want one preset name or scenario file")
		}
		p, err := presets.Lookup(names[0])
		if err != nil {
			return err
		}
		if len(sets) == 0 && p.Source != "" {
			_, err = io.WriteString(stdout, p.Source)
			return err
		}
		if p, err = p.With(sets); err != nil {
			return fmt.Errorf("-set: %w", err)
		}
		_, err = io.WriteString(stdout, p.Spec.Render())
		return err
	case "keys":
		if len(names) > 0 {
			return fmt.Errorf("scenario keys: unexpected argument %q", names[0])
		}
		return scenarioKeys(stdout)
	case "check":
		if len(names) == 0 {
			return errors.New("scenario check: want one or more scenario files")
		}
		env := presets.Env{DataDir: presets.DataDir(*dataDir)}
		failed := 0
		for _, name := range names {
			if err := checkScenario(stdout, name, sets, env); err != nil {
				fmt.Fprintln(stdout, say(err))
				failed++
			}
		}
		if failed > 0 {
			return fmt.Errorf("scenario check: %d of %d failed", failed, len(names))
		}
		return nil
	}
	fmt.Fprint(stderr, scenarioUsage)
	return fmt.Errorf("scenario: unknown subcommand %q, want show, keys or check", sub)
}

// checkScenario reads and builds one scenario and says what it holds.
func checkScenario(w io.Writer, name string, sets []string, env presets.Env) error {
	p, err := presets.Lookup(name)
	if err != nil {
		return err
	}
	if p, err = p.With(sets); err != nil {
		return fmt.Errorf("%s: -set: %w", name, err)
	}
	sc, err := p.Build(env, 42)
	if err == nil {
		err = sc.Data.Validate() // what a run would refuse: a client without test nodes, ...
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	nodes := 0
	for _, c := range sc.Data.Clients {
		nodes += c.Graph.N()
	}
	fmt.Fprintf(w, "%s: ok: %d clients, %d nodes, %d features, %d classes; clients from %s\n",
		name, len(sc.Data.Clients), nodes, sc.Data.NumFeatures, sc.Data.NumClasses, sc.Partition)
	return nil
}

// scenarioKeys lists every key with its type, default and doc.
func scenarioKeys(w io.Writer) error {
	def := presets.NewSpec()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tTYPE\tDEFAULT\tMEANING")
	for _, f := range presets.Fields() {
		v := f.Get(def)
		if f.Type == "setting" {
			c := def.Config()
			v, _ = c.Get(strings.TrimPrefix(f.Key, "run."))
		}
		if v == "" {
			v = `""`
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Key, f.Type, v, f.Doc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nIn a file, a key goes under its [table] (sbm.intra as intra under [sbm]); -set takes the full key or, when no other table has it, the short one (-set intra=0.2,0.6).")
	return err
}
