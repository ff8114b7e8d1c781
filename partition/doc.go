// Package partition splits a graph's nodes into k parts (the clients of
// subgraph federated learning): by multilevel edge-cut minimisation
// (Multilevel), by Louvain communities (Louvain), by Dirichlet label skew
// (LabelSkew) or uniformly at random (Random), and measures the result
// (EdgeCut, Imbalance).
//
// It imports no other package of the project: its input is a Graph in
// compressed sparse row form (or the node labels) and its output the part
// of each node.
package partition
