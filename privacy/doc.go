// Package privacy runs the membership inference attack of the FedAux
// paper ("Membership Inference Attacks"; docs/method.md#membership-inference): an
// honest-but-curious server that keeps every client's uploads trains,
// per client, a small MLP to tell the client's training nodes from nodes
// it never trained on, and reports the attack's ROC-AUC.
//
// Its shape: Options, Run, Load, Render and Result.WriteFiles, as every
// study (see package study); Result.Rows gives the rows.
package privacy
