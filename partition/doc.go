// Package partition splits undirected graphs into k parts with small edge cuts.
//
// It imports no other package of the project: its input is a Graph in
// compressed sparse row form and its output the part of each vertex.
package partition
