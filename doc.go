// Command fedaux runs personalised subgraph federated learning (FedAux,
// NeurIPS 2025, and its baselines) round by round: in the terminal
// console, headless with `fedaux run`, or as whole studies (the paper's
// tables, sweeps, convergence, similarity, privacy and server cost),
// resumable and shardable over a cluster.
//
// Usage:
//
//	fedaux [flags]              the console on the sbm-gauss preset (flags as tui's)
//	fedaux COMMAND [flags]      'fedaux help' lists the commands
//
// The command is package cli; this package only calls cli.Main. The
// packages, from the bottom up: internal/vec (kernels), gnn (one
// client's model), graphio and partition (graphs, splits, partitions),
// datasets (downloads), sim (the engine), presets (scenarios), export
// (logs, CSV, figures), study and the study packages (table, sweep,
// convergence, similarity, privacy, servercost), tui (the console) and
// cli; docs/library.md has the map.
package main
