// Package tiny provides a preset small enough to run studies in tests.
//
// It is for tests only: a 120-node SBM built through graphio, presets and
// sim, for the study packages' tests.
package tiny
