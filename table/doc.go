// Package table reproduces the FedAux paper's result tables: it runs every
// (dataset, clients, algorithm, seed) of a grid on the presets, appends
// each finished run to a JSON Lines file (so an interrupted grid resumes
// where it stopped) and renders a Markdown table of mean ± std beside the
// published values.
//
// Its shape: Options, Run, Load, Render and Result.WriteFiles, as every
// study (see package study).
package table
