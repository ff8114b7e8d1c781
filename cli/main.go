package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/fedaux/fedaux/internal/vec"
	"github.com/fedaux/fedaux/presets"
)

// versionText is what fedaux version prints: the release (and the
// commit), then the kernels this CPU runs (avx512, avx2 or portable: a
// run's speed depends on it more than on anything else of the machine),
// Go's version and the platform.
func versionText() string {
	return fmt.Sprintf("fedaux %s\nkernels %s, %s %s/%s\n", presets.Version, vec.Current(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Main runs the command line with args, the arguments after the
// program's name, and returns the process's exit status: 0, 1 for an
// error, 2 for an unknown command or a bad flag, 128 plus the signal's
// number for a run or a study that an interrupt stopped before its end.
func Main(args []string) int {
	cmd := ""
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	setGCPercent(os.Getenv("GOGC"))
	var err error
	switch c := lookup(cmd); {
	case cmd == "":
		err = tuiCmd(nil, os.Stderr)
	case (cmd == "version" || cmd == "-version" || cmd == "--version") && len(args) > 0:
		err = fmt.Errorf("version: unexpected argument %q", args[0])
	case cmd == "version" || cmd == "-version" || cmd == "--version":
		fmt.Print(versionText())
	case cmd == "help" || cmd == "-h" || cmd == "-help" || cmd == "--help":
		err = helpCmd(args, os.Stdout, os.Stderr)
	case c != nil:
		err = c.run(args, os.Stdout, os.Stderr)
	case strings.HasPrefix(cmd, "-"): // the console's flags: fedaux -start 0
		err = tuiCmd(append([]string{cmd}, args...), os.Stderr)
	default:
		fmt.Fprintf(os.Stderr, "fedaux: unknown command %q\n\n%s", cmd, usage())
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var fe *FlagError
	if errors.As(err, &fe) {
		fmt.Fprintf(os.Stderr, "fedaux: %v\n%s\n", fe, fe.hint())
		return 2
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "fedaux:", say(ee.err))
		}
		return ee.code
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fedaux:", say(err))
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
