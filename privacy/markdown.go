package privacy

import (
	"fmt"
	"io"
	"strings"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// paperAUC holds the paper's attack AUCs (Table "Attack AUC of MIA"; 10
// clients), by dataset and algorithm.
var paperAUC = map[string]map[sim.Algorithm]float64{
	"cora":   {methods.FedGNN: 0.56, methods.FedGTA: 0.54, methods.FedAux: 0.51},
	"pubmed": {methods.FedGNN: 0.58, methods.FedGTA: 0.55, methods.FedAux: 0.52},
	"arxiv":  {methods.FedGNN: 0.55, methods.FedGTA: 0.53, methods.FedAux: 0.49},
}

// PaperAUC returns the paper's attack AUC of algo on a preset named
// DATASET-10 (or DATASET-10-...), and whether it has one.
func PaperAUC(preset string, algo sim.Algorithm) (float64, bool) {
	parts := strings.Split(preset, "-")
	if len(parts) < 2 || parts[1] != "10" {
		return 0, false
	}
	v, ok := paperAUC[parts[0]][algo]
	return v, ok
}

// A Row is one (preset, algorithm) of the study: its seeds with a
// result and, per seed, what the runs and their attacks gave.
type Row struct {
	Preset     string
	Algo       sim.Algorithm
	Descriptor sim.Descriptor
	Seeds      []uint64
	// TestAtBestVal is each seed's mean client test accuracy (%) at the
	// best validation round: how well the attacked models learned.
	TestAtBestVal []float64
	// Attacks holds, per kind of non-members, each seed's attack.
	Attacks map[NonMembers][]Attack
}

// Rows returns the rows of the study, in the order of Options.Presets
// and Options.Algos; a row without a result has no seeds.
func (r *Result) Rows() ([]Row, error) {
	return rows(r.opts, r.cells, r.store)
}

func rows(opts *Options, cells []*study.Cell, store *study.Store) ([]Row, error) {
	var rows []Row
	at := map[[2]string]int{}
	for _, p := range opts.Presets {
		for _, a := range opts.Algos {
			at[[2]string{p.Name, string(a)}] = len(rows)
			rows = append(rows, Row{Preset: p.Name, Algo: a, Attacks: map[NonMembers][]Attack{}})
		}
	}
	for _, c := range cells {
		rec, ok := store.Get(c.Key())
		if !ok {
			continue
		}
		var res RunResult
		if err := study.Extra(rec, &res); err != nil {
			return nil, fmt.Errorf("privacy: %s: %w", c, err)
		}
		if len(res.Attacks) == 0 {
			return nil, fmt.Errorf("privacy: the result of %s holds no attack (another study's?)", c)
		}
		if err := res.check(); err != nil {
			return nil, fmt.Errorf("privacy: the result of %s in %s: %w; remove its line to run it again", c, store.Dir(), err)
		}
		r := &rows[at[[2]string{c.Labels[LabelPreset], string(c.Config.Algo)}]]
		r.Descriptor = res.Descriptor
		r.Seeds = append(r.Seeds, c.Config.Seed)
		r.TestAtBestVal = append(r.TestAtBestVal, rec.TestAtBestVal)
		for _, a := range res.Attacks {
			r.Attacks[a.NonMembers] = append(r.Attacks[a.NonMembers], a)
		}
	}
	return rows, nil
}

// AUCs returns each seed's AUCs (means over clients) of the attacks of
// kind nm: the attack's on attack-test and on attack-train, without the
// descriptor projections, and the loss threshold's.
func (r *Row) AUCs(nm NonMembers) (test, train, noDesc, loss []float64) {
	for _, a := range r.Attacks[nm] {
		test, train = append(test, a.AUC), append(train, a.TrainAUC)
		noDesc, loss = append(noDesc, a.NoDescriptorAUC), append(loss, a.LossAUC)
	}
	return test, train, noDesc, loss
}

// markdown writes the report: per preset, a table of the attack AUC of
// every algorithm (mean ± std over seeds) beside the paper's, and the
// per-client AUCs averaged over seeds.
func markdown(w io.Writer, opts *Options, rows []Row) error {
	nm, other := opts.NonMembers, FromOthers
	if nm == FromOthers {
		other = FromTest
	}
	fmt.Fprintf(w, "# Membership inference attack\n\n")
	fmt.Fprintf(w, "The attack of the paper's \"Membership Inference Attacks\" (fedaux's docs/method.md, \"Membership inference\"). "+
		"An honest-but-curious server keeps every client's uploads and, at rounds t_r = r·T/10 (r = 1..10), runs the client's uploaded model "+
		"(after local training, its masks included) in evaluation mode on candidate nodes, granted the client's graph and the candidates' features and labels. "+
		"Members: the client's training nodes; non-members: %s. "+
		"Features (26, z-scored with the attack-train statistics): the node's embedding projected on the client's upload at each t_r "+
		"(FedAux: APV; FED-PUB: functional embedding; FedGTA: first moments; FedGNN: boundary embeddings; none: 0), "+
		"its cross-entropy at each t_r, the top-3 softmax probabilities and the entropy at T, ||h_v|| and cos(h_v, APV) at T. "+
		"One MLP per client (26 → 64 ReLU → 1, BCE, Adam lr 1e-3 wd 1e-4, 300 full-batch epochs) trained on half of each class, "+
		"ROC-AUC (Mann–Whitney, ties 1/2) on the other half, averaged over clients; mean ± std (population) over seeds %d..%d, "+
		"which set the run, the candidates, the split and the attack's initialisation. 0.5 is chance. "+
		"Beside it: the same attack without the descriptor projections (what the upload beside the parameters adds is the difference), "+
		"the loss-threshold attack (score -loss at T, nothing trained), the attack's AUC on its own training half, "+
		"and the attack with the other kind of non-members.\n\n",
		nm.describe(), opts.Seed, opts.Seed+uint64(opts.Seeds)-1)
	presetsDone := map[string]bool{}
	for _, r := range rows {
		if presetsDone[r.Preset] {
			continue
		}
		presetsDone[r.Preset] = true
		fmt.Fprintf(w, "## %s\n\n", r.Preset)
		fmt.Fprintf(w, "| algorithm | descriptor | seeds | test acc. (%%) | attack AUC | paper | without descriptor | loss threshold | attack-train AUC | AUC, non-members: %s |\n", other)
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
		for _, q := range rows {
			if q.Preset != r.Preset {
				continue
			}
			paper := "–"
			if v, ok := PaperAUC(q.Preset, q.Algo); ok {
				paper = fmt.Sprintf("%.2f", v)
			}
			if len(q.Seeds) == 0 {
				fmt.Fprintf(w, "| %s | | 0 of %d | n/a | n/a | %s | n/a | n/a | n/a | n/a |\n", q.Algo, opts.Seeds, paper)
				continue
			}
			test, train, noDesc, loss := q.AUCs(nm)
			alt, _, _, _ := q.AUCs(other)
			fmt.Fprintf(w, "| %s | %s | %d of %d | %s | %s | %s | %s | %s | %s | %s |\n", q.Algo, q.Descriptor, len(q.Seeds), opts.Seeds,
				meanStd(q.TestAtBestVal, "%.2f"), meanStd(test, "%.3f"), paper, meanStd(noDesc, "%.3f"), meanStd(loss, "%.3f"),
				meanStd(train, "%.3f"), meanStd(alt, "%.3f"))
		}
		fmt.Fprintln(w)
		clientTable(w, rows, r.Preset, nm)
	}
	return nil
}

// clientTable writes the attack AUC of kind nm of every client of a
// preset, averaged over seeds, an algorithm a row.
func clientTable(w io.Writer, rows []Row, preset string, nm NonMembers) {
	var ids []int
	for _, r := range rows {
		if r.Preset == preset && len(r.Attacks[nm]) > 0 {
			for _, c := range r.Attacks[nm][0].Clients {
				ids = append(ids, c.ID)
			}
			break
		}
	}
	if ids == nil {
		return
	}
	fmt.Fprintf(w, "Per client (attack AUC, non-members: %s, mean over seeds; each client's attack-test set has about |Tr_k| nodes):\n\n", nm)
	fmt.Fprint(w, "| algorithm |")
	for _, id := range ids {
		fmt.Fprintf(w, " client %d |", id)
	}
	fmt.Fprint(w, "\n|---|")
	for range ids {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		if r.Preset != preset || len(r.Attacks[nm]) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s |", r.Algo)
		for i := range ids {
			var xs []float64
			for _, a := range r.Attacks[nm] {
				if i < len(a.Clients) {
					xs = append(xs, a.Clients[i].AUC)
				}
			}
			m, _ := study.MeanStd(xs)
			fmt.Fprintf(w, " %.2f |", m)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// meanStd formats the mean ± population std of xs with format f.
func meanStd(xs []float64, f string) string {
	if len(xs) == 0 {
		return "n/a"
	}
	m, sd := study.MeanStd(xs)
	return fmt.Sprintf(f+" ± "+f, m, sd)
}
