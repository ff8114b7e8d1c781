// Package graphio holds graphs for federated node classification: the CSR
// graph type, dataset loaders, the largest connected component, feature
// normalisation, the global train/val/test split, per-client induced
// subgraphs, partition files, the synthetic SBM generator and non-IID
// metrics. The partitioners live in package partition.
//
// Of the project's packages it imports internal/vec only (vector
// kernels).
package graphio
