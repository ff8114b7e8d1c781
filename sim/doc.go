// Package sim is the step-able federation engine: clients that train the
// gnn model on their subgraphs, server strategies that mix parameters
// (FedAux's APV-similarity weights, FedAvg, Local, ...), per-round
// metrics, knobs a user may change between rounds, checkpoints, and the
// JSON Lines run log.
//
// A method is registered with Register: a Method names it, describes it,
// declares its own settings (read back from Config.Options) and builds
// its Strategy, which may implement the optional hooks of hooks.go
// (client code of its own, uploads and broadcasts, state across rounds).
// The command line, scenario files, sweeps and tables then know it; see
// docs/methods.md and examples/scaffold. Most built-in methods register
// from this package (builtin.go); FedProx, FedPer, FED-PUB+APV,
// FedAvg_mask and FedAux_hard from package methods, through the same API.
package sim
