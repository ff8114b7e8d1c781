package graphio

import "math"

// EdgeHomophily returns the fraction of g's edges whose two ends have the
// same label (Zhu et al., NeurIPS 2020): near 1 on homophilous graphs such
// as Cora, low on heterophilous ones. A graph without edges gives NaN.
func EdgeHomophily(g *Graph) float64 {
	same, all := 0, 0
	for i := range g.N() {
		cols, _ := g.Adj.Row(i)
		for _, j := range cols {
			all++
			if g.Labels[i] == g.Labels[j] {
				same++
			}
		}
	}
	if all == 0 {
		return math.NaN()
	}
	return float64(same) / float64(all)
}
