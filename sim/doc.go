// Package sim is the step-able federation engine: clients that train the
// gnn model on their subgraphs, the method API and its registry, what
// the methods' servers share (the similarity views, SimilarityMixing,
// SoftmaxRows, SharesAPV), per-round metrics, knobs a user may change
// between rounds, checkpoints, and the JSON Lines run log.
//
// A method is registered with Register: a Method names it, describes it,
// declares its own settings (read back from Config.Options) and builds
// its Strategy, which may implement the optional hooks of hooks.go
// (client code of its own, uploads and broadcasts, state across rounds).
// The command line, scenario files, sweeps and tables then know it; see
// docs/methods.md and examples/scaffold. No method is registered here:
// every built-in method, FedAux included, registers from package methods
// through the same API, and an engine needs the method of its
// Config.Algo registered (import package methods) when New builds it.
// What the engine and its clients do for some of them lives here all the
// same: FedGNN's neighbour expansion (Boundary) and local differential
// privacy (LDP), FedGTA's client moments (GTAClient), FED-PUB's proxy
// graph (ProxyGraph) and GCFL's split statistics (ClusterNorm).
package sim
