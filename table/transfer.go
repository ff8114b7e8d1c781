package table

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// apvBase maps each APV variant (docs/method.md#the-apv-variants) to the method it adds
// the APV to.
var apvBase = map[sim.Algorithm]sim.Algorithm{
	methods.FedPubAPV: methods.FedPub, methods.FedGTAAPV: methods.FedGTA, methods.FedSageAPV: methods.FedSagePlus,
}

// transferNote introduces the transfer table: what the paper reports and
// what the +APV variants are.
const transferNote = "The FedAux paper shows the +APV variants on Cora, PubMed and Amazon-Computer with 10 clients in a figure (Fig. transfer) whose values are not transcribed here; " +
	"its text claims +1–2 % for FedGTA with the APV. The bracketed values of the plain methods are the paper's Table 1. " +
	"Each +APV variant is its method with FedAux's APV head on the client model and the APV cosine in the server's weights (fedaux's docs/method.md, \"The +APV variants\", says how), " +
	"everything else as the method's. FED-PUB+APV is FedAux's algorithm itself. " +
	"The gain line pairs the runs of a variant and of its method by seed.\n\n"

// gainLine says, for each +APV variant of the table whose method is in it
// too, the mean and std over seeds of the variant's accuracy minus the
// method's at the same seed, in each client count where both have every
// seed; "" when there is none.
func (o *Options) gainLine(ds string, g *grid, store *study.Store) string {
	var parts []string
	for _, k := range o.Clients {
		var gains []string
		for _, a := range o.Algos {
			base, ok := apvBase[a]
			if !ok || !slices.Contains(o.Algos, base) {
				continue
			}
			with, without := o.seedAccs(g, store, ds, k, a), o.seedAccs(g, store, ds, k, base)
			if with == nil || without == nil {
				continue
			}
			d := make([]float64, len(with))
			for i := range d {
				d[i] = with[i] - without[i]
			}
			m, sd := study.MeanStd(d)
			gains = append(gains, fmt.Sprintf("%s %+.2f ± %.2f", displayName(base), m, sd))
		}
		if len(gains) > 0 {
			parts = append(parts, fmt.Sprintf("%d clients: %s", k, strings.Join(gains, ", ")))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "APV gain (+APV minus the method, paired by seed, mean ± std): " + strings.Join(parts, "; ") + ".\n\n"
}

// seedAccs returns the test accuracy of every seed of the cell (ds, k,
// algo) in seed order, or nil unless every seed has finished.
func (o *Options) seedAccs(g *grid, store *study.Store, ds string, k int, algo sim.Algorithm) []float64 {
	out := make([]float64, 0, o.Seeds)
	for i := 0; i < o.Seeds; i++ {
		c := g.byPos[pos{ds, k, algo, o.Seed + uint64(i)}]
		if c == nil {
			return nil
		}
		r, ok := store.Get(c.Key())
		if !ok {
			return nil
		}
		out = append(out, r.TestAtBestVal)
	}
	return out
}
