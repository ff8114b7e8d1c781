// Package convergence runs and reports the convergence study of the
// paper ("Convergence Rates"): the mean client test accuracy per round of
// several algorithms over seeds, as a figure with a band per algorithm and
// a table of the round each converges at.
//
// Its shape: Options, Run, Load, Render and Result.WriteFiles, as every
// study (see package study); Result.Curves gives the curves.
package convergence
