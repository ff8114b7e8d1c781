// Package methods holds the built-in federated methods, FedAux, its
// ablations and the baselines with their +APV variants: each file is one
// method (or a method and its variant), registered with sim.Register
// through exactly the API an outside method has (see docs/methods.md),
// from the one init function below. Importing the package registers them:
//
//	import _ "github.com/fedaux/fedaux/methods"
//
// The command line (package cli) and package presets import it. A
// program that builds engines itself with sim.New imports it too.
package methods

import "github.com/fedaux/fedaux/sim"

// FedProx and FedPer (the other methods' names are in their files).
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
