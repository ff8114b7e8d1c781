// Package study runs experiments: lists of cells (scenario, algorithm,
// settings, seed), each run to the end once and kept in a resumable store
// of JSON Lines, a share of them per shard when a cluster runs them, with
// progress told to a Recorder and interrupts handled in one place.
//
// The studies built on it (table, sweep, convergence, similarity,
// privacy) have one shape:
//
//	Options                             what to run; Out, the directory of its results
//	Run(ctx, Options) (*Result, error)  runs what Out lacks (resuming), keeps Out's report current
//	Load(Options) (*Result, error)      the results in Out, running nothing
//	Render(io.Writer, *Result) error    the report, in Markdown
//	(*Result).WriteFiles() error        rewrites Out's report: Markdown and figures
//
// A Result embeds the Stats of what Run did. None of them prints or
// knows a flag; package cli reads flags into Options and prints.
// servercost has the same shape but for Load and Stats: its timings are
// measured again, never stored.
//
// It sits above presets and sim and below the study packages, tui and cli.
package study
