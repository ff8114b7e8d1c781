// Package sweep runs parameter sweeps: every combination of a grid of
// settings, for several algorithms, presets and seeds, through the study
// layer (resumable, shardable), and reports them as sweep.md (mean ± std
// per combination, the best marked) and figures (accuracy against the
// value with error bars for one knob, a heat map for two).
//
// Its shape: Options, Run, Load, Render and Result.WriteFiles, as every
// study (see package study).
package sweep
