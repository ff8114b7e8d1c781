// Package proctime reads the CPU time of the process: what a run costs
// the machine, which its wall time overstates when other work shares the
// cores and understates when the run keeps several cores busy.
//
// The benchmarks' clock (internal/cputime) and the studies' records of a
// run's cost (study.Record.CPUSeconds) read it.
package proctime
