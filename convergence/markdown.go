package convergence

import (
	"fmt"
	"io"
	"strings"

	"github.com/fedaux/fedaux/study"
)

// PaperRound is the round by which the paper says FedAux has converged
// on Cora-10 and Cora-20.
const PaperRound = 60

// markdown writes the study's table: per preset and algorithm, the
// seeds, the converged round of the mean test and validation curves,
// the curve's maximum and last value, and the test accuracy at the best
// validation round.
func markdown(w io.Writer, opts *Options, cs []Curve) error {
	tol := opts.within()
	fmt.Fprintf(w, "# Convergence\n\n")
	fmt.Fprintf(w, "Mean client test accuracy per round (%%), averaged over seeds %d..%d; the figures (%s) draw it with a band of ± one standard deviation over seeds. "+
		"Converged round: the first round at which the mean curve is within %g points of its maximum over all rounds "+
		"(a definition inferred from the paper's convergence claim), for the test and the validation curve. The paper claims FedAux converges by round %d on Cora-10 and Cora-20.\n\n",
		opts.Seed, opts.Seed+uint64(opts.Seeds)-1, FigureFile("<preset>"), tol, PaperRound)
	fmt.Fprintln(w, "| preset | algorithm | seeds | converged round (test) | converged round (val) | max of mean test | mean test at last round | test at best val |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, c := range cs {
		if len(c.Seeds) == 0 {
			fmt.Fprintf(w, "| %s | %s | 0 of %d | n/a | n/a | n/a | n/a | n/a |\n", c.Preset, c.Algo, opts.Seeds)
			continue
		}
		top := c.Test[c.Converged-1]
		for _, v := range c.Test {
			top = max(top, v)
		}
		m, sd := study.MeanStd(c.TestAtBestVal)
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %.2f | %.2f | %.2f ± %.2f |\n", c.Preset, c.Algo, seedList(c.Seeds),
			c.Converged, c.ValConverged, top, c.Test[len(c.Test)-1], m, sd)
	}
	fmt.Fprintln(w)
	return nil
}

func seedList(seeds []uint64) string {
	var s []string
	for _, x := range seeds {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ",")
}
