// Package cli is fedaux's command line: `fedaux run`, the console, the
// studies (table, sweep, convergence, similarity, privacy, servercost),
// scenario files, datasets and shards, behind one function, Main.
//
// The fedaux command's main only calls Main, so a program of one's own
// gets every command the same way: import the packages that register
// one's methods, then
//
//	func main() { os.Exit(cli.Main(os.Args[1:])) }
//
// Main returns the exit status: 0, 1 after an error, 2 for an unknown
// command, and 128 plus the signal's number (130 for SIGINT, 143 for
// SIGTERM) when an interrupt stopped a run or a study before its end, so
// that a scheduler does not take the unfinished work for done.
//
// It is the top of the layers (docs/library.md): one file per subcommand
// reads the flags into the options of the package below it (sim and
// presets for runs, tui for the console, table, sweep, convergence,
// similarity, privacy and servercost for the studies, study for shards
// and resumption, export for files) and prints what comes back. Nothing
// below cli knows a flag's name: cli maps the packages' errors to the
// flags that set the values at fault. One list of commands makes the
// usage text, `fedaux help CMD` and each command's -h.
package cli
