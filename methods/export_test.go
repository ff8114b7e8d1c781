package methods

// What the external tests (package methods_test) need of the internals.

// GCFLWarmup is the number of rounds before GCFL's first split.
const GCFLWarmup = gcflWarmup

// ClusterWeights is GCFL's block-uniform mixing over clusters.
var ClusterWeights = clusterWeights

// Test helpers (helpers_test.go).
var (
	SmallData   = smallData
	SmallConfig = smallConfig
	Run         = run
	Reports     = reports
	Set         = set
)
