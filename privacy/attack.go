package privacy

import (
	"fmt"
	"iter"

	"github.com/fedaux/fedaux/internal/share"
	"github.com/fedaux/fedaux/sim"
)

// ClientAttack is the attack on one client.
type ClientAttack struct {
	ID int `json:"id"`
	// Members and NonMembers count the candidates of each class; Train
	// and Test the attack-train and attack-test sets (half of each class,
	// the attack-train half rounded down).
	Members    int `json:"members"`
	NonMembers int `json:"nonmembers"`
	Train      int `json:"train"`
	Test       int `json:"test"`
	// AUC is the attack's ROC-AUC on attack-test, TrainAUC on
	// attack-train (how far the model fits what it cannot generalise).
	AUC      float64 `json:"auc"`
	TrainAUC float64 `json:"train_auc"`
	// NoDescriptorAUC is the AUC on attack-test of the same attack
	// without the descriptor projections (features 0..9 set to 0): what
	// the upload beside the parameters adds is AUC - NoDescriptorAUC.
	NoDescriptorAUC float64 `json:"no_descriptor_auc"`
	// LossAUC is the AUC on attack-test of the loss-threshold attack
	// (Yeom et al., CSF 2018): the score -loss at T, nothing trained.
	LossAUC float64 `json:"loss_auc"`
}

// Attack is one kind of attack (by where its non-members come from) on
// every client of one run.
type Attack struct {
	NonMembers NonMembers     `json:"nonmembers"`
	Clients    []ClientAttack `json:"clients"`
	// AUC, TrainAUC, NoDescriptorAUC and LossAUC are the means over clients.
	AUC             float64 `json:"auc"`
	TrainAUC        float64 `json:"train_auc"`
	NoDescriptorAUC float64 `json:"no_descriptor_auc"`
	LossAUC         float64 `json:"loss_auc"`
}

// A RunResult is what the attack found on one run: a results record's extra.
type RunResult struct {
	// Descriptor is what the strategy's clients upload that the
	// attack's projection features read.
	Descriptor  sim.Descriptor `json:"descriptor"`
	Checkpoints []int          `json:"checkpoints"`
	// Attacks holds one attack per kind of non-members, in the order of
	// NonMemberKinds.
	Attacks []Attack `json:"attacks"`
}

// Attack returns the attack of kind nm, or nil.
func (r *RunResult) Attack(nm NonMembers) *Attack {
	for i := range r.Attacks {
		if r.Attacks[i].NonMembers == nm {
			return &r.Attacks[i]
		}
	}
	return nil
}

// check returns nil when every AUC of r is in [0, 1] and each attack's
// means are its clients' (clientMeans, bit for bit); else what is not,
// so that a results line edited by hand is not reported as what the
// attack found.
func (r *RunResult) check() error {
	for _, a := range r.Attacks {
		for _, c := range a.Clients {
			for i, v := range c.aucs() {
				if !(v >= 0 && v <= 1) {
					return fmt.Errorf("attack with non-members %s: client %d: %s %g, want an AUC in [0, 1]", a.NonMembers, c.ID, aucNames[i], v)
				}
			}
		}
		mean := clientMeans(a.Clients)
		for i, v := range [4]float64{a.AUC, a.TrainAUC, a.NoDescriptorAUC, a.LossAUC} {
			if v != mean[i] {
				return fmt.Errorf("attack with non-members %s: %s %g, but its clients' mean is %g", a.NonMembers, aucNames[i], v, mean[i])
			}
		}
	}
	return nil
}

// aucNames are the JSON names of the AUCs, in aucs' order.
var aucNames = [4]string{"auc", "train_auc", "no_descriptor_auc", "loss_auc"}

// aucs returns c's AUCs in aucNames' order.
func (c *ClientAttack) aucs() [4]float64 {
	return [4]float64{c.AUC, c.TrainAUC, c.NoDescriptorAUC, c.LossAUC}
}

// clientMeans returns the means over the clients of their AUCs, in
// aucNames' order: each AUC divided by the number of clients, added in
// client order.
func clientMeans(cs []ClientAttack) [4]float64 {
	var m [4]float64
	n := float64(len(cs))
	for _, c := range cs {
		for i, v := range c.aucs() {
			m[i] += v / n
		}
	}
	return m
}

// attackRun runs both attacks on every client of a run from the
// clients' probes at the checkpoints (probes[r][k]: client k's at
// checkpoint r), their targets having been cands[k].targets(k), on at
// most workers goroutines; the result does not depend on workers.
func attackRun(d *sim.Data, cands []candidates, probes [][]*sim.Probe, checkpoints []int, seed uint64, workers int) (*RunResult, error) {
	res := &RunResult{Checkpoints: checkpoints}
	xs := make([][][]float64, len(d.Clients))
	for k := range d.Clients {
		ps := make([]*sim.Probe, len(probes))
		for r := range probes {
			ps[r] = probes[r][k]
		}
		res.Descriptor = ps[0].Descriptor
		x, err := features(ps)
		if err != nil {
			return nil, fmt.Errorf("privacy: client %d: %w", d.Clients[k].ID, err)
		}
		if want := 3 * len(cands[k].members); len(x) != want {
			return nil, fmt.Errorf("privacy: client %d: probes of %d targets, want %d", d.Clients[k].ID, len(x), want)
		}
		xs[k] = x
	}
	// Each client's attack of each kind draws from its own streams and
	// reads xs only: they run on the workers, each into its own slot.
	kinds := NonMemberKinds()
	n := len(d.Clients)
	found := make([]ClientAttack, len(kinds)*n)
	share.Out(len(found), workers, func(tasks iter.Seq[int]) {
		for t := range tasks {
			nm, k := kinds[t/n], t%n
			members, non := cands[k].rows(nm)
			found[t] = attackClient(xs[k], members, non, seed, k, nm)
			found[t].ID = d.Clients[k].ID
		}
	})
	for i, nm := range kinds {
		a := Attack{NonMembers: nm, Clients: found[i*n : (i+1)*n : (i+1)*n]}
		m := clientMeans(a.Clients)
		a.AUC, a.TrainAUC, a.NoDescriptorAUC, a.LossAUC = m[0], m[1], m[2], m[3]
		res.Attacks = append(res.Attacks, a)
	}
	return res, nil
}

// attackClient splits the members (rows of x) and the non-members each
// in two at random, trains the attack model on the first halves,
// z-scored with their statistics, and scores both halves; then the same
// without the descriptor projections, and the loss threshold.
func attackClient(x [][]float64, members, non []int, seed uint64, k int, nm NonMembers) ClientAttack {
	split := stream(seed, "split/"+nm.String(), k)
	var trainX, testX [][]float64
	var trainY, testY []bool
	for _, class := range []struct {
		rows   []int
		member bool
	}{{members, true}, {non, false}} {
		perm := split.Perm(len(class.rows))
		half := len(class.rows) / 2
		for i, p := range perm {
			row := append([]float64(nil), x[class.rows[p]]...)
			if i < half {
				trainX, trainY = append(trainX, row), append(trainY, class.member)
			} else {
				testX, testY = append(testX, row), append(testY, class.member)
			}
		}
	}
	loss := make([]float64, len(testX))
	for i, r := range testX {
		loss[i] = -r[2*Checkpoints-1] // the cross-entropy at T
	}
	standardize(trainX, testX)
	m, _ := trainAttack(trainX, trainY, stream(seed, "attack/"+nm.String(), k), attackEpochs)
	ca := ClientAttack{
		Members: len(members), NonMembers: len(non), Train: len(trainX), Test: len(testX),
		AUC:      AUC(m.forward(testX), testY),
		TrainAUC: AUC(m.forward(trainX), trainY),
		LossAUC:  AUC(loss, testY),
	}
	for _, set := range [][][]float64{trainX, testX} {
		for _, r := range set {
			clear(r[:Checkpoints])
		}
	}
	// The same initialisation: a paired comparison, and without a
	// descriptor (projections 0, constant) the very same attack.
	m, _ = trainAttack(trainX, trainY, stream(seed, "attack/"+nm.String(), k), attackEpochs)
	ca.NoDescriptorAUC = AUC(m.forward(testX), testY)
	return ca
}
