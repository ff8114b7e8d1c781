// Package cputime reports the CPU time a benchmark uses, a steadier
// measure than wall time on a machine that other work shares.
//
// It reads the clock of internal/proctime; benchmarks of gnn, internal/vec, sim
// and presets use it.
package cputime
