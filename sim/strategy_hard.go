package sim

import "github.com/fedaux/fedaux/gnn"

// fedAuxHard is ablation (i) of the FedAux paper (docs/method.md#ablations): the
// FedAux client and server, with the kernel aggregate replaced by a hard
// sort of the nodes by their APV score followed by two 1-D convolutions
// (see gnn.Config.Hard).
type fedAuxHard struct{ fedAux }

func (fedAuxHard) Name() Algorithm { return "fedaux_hard" }
func (fedAuxHard) Model(cfg *gnn.Config) {
	cfg.Masked, cfg.Kernel, cfg.Hard = true, true, true
}
