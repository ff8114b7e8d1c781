// Package study runs experiments: lists of cells (scenario, algorithm,
// settings, seed), each run to the end once and kept in a resumable store
// of JSON Lines, a share of them per shard when a cluster runs them, with
// progress told to a Recorder and interrupts handled in one place.
package study
