// Package methods holds built-in federated methods that live outside the
// engine: each file is one method, registered with sim.Register from an
// init function through exactly the API an outside method has (see
// docs/methods.md). Importing the package registers them:
//
//	import _ "github.com/fedaux/fedaux/methods"
//
// The command line (package cli) imports it. A program that builds
// engines itself (sim.New, presets.NewEngine) imports it too to run these
// methods; the other built-in methods are registered by package sim.
package methods

import "github.com/fedaux/fedaux/sim"

// The methods of this package (and FedAvgMask, FedAuxHard).
const (
	FedProx sim.Algorithm = "fedprox"
	FedPer  sim.Algorithm = "fedper"
)

// The methods register in this order, which is that of their settings in
// sim.Settings, 'fedaux scenario keys' and -h (TestSettingsOrder): the
// baselines' as sim registered them before they moved here (tau, eps1,
// eps2, gta_*, fedgnn_expansion, gen_*), then the others' (mu).
func init() {
	for _, ms := range [][]sim.Method{
		fedAuxMethods(), fedAvgMethods(), fedPubMethods(), gcflMethods(), fedGTAMethods(), fedGNNMethods(), fedSageMethods(),
		ablationMethods(), fedPerMethods(), fedProxMethods(), fedPubAPVMethods(),
	} {
		for _, m := range ms {
			sim.Register(m)
		}
	}
}

// uniform returns the k x k matrix of 1/k: FedAvg's mixing, every client
// starting the next round from the mean.
func uniform(k int) [][]float64 {
	w := make([][]float64, k)
	for i := range w {
		w[i] = make([]float64, k)
		for j := range w[i] {
			w[i][j] = 1 / float64(k)
		}
	}
	return w
}
