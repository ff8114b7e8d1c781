// Package fdcheck checks gradients against finite differences: the tests
// of every backward pass (gnn's layers, FedSage+'s losses, the privacy
// attack's model) share it.
//
// It is for tests only and imports nothing of the project.
package fdcheck
