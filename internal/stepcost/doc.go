// Package stepcost measures the wall time and peak transient heap of one
// step of code, as the paper's server-cost analysis prescribes
// (docs/method.md#server-cost).
//
// It imports nothing of the project; package servercost measures with it.
package stepcost
