// Package gnn is one client's model in FedAux: masked GCN layers with
// explicit forward and backward passes, the auxiliary projection vector
// (APV) scores, the Gaussian kernel aggregator (dense and fast), softmax
// cross-entropy and Adam. Every backward pass is checked against finite
// differences in its tests.
//
// It imports no other package of the project but internal/vec, the SIMD
// kernels of its inner loops.
package gnn
