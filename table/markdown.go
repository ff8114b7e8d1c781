package table

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// render writes the Markdown table of the stored results of the grid's
// cells: one section per dataset, one row per algorithm, one column per
// number of clients.
func (o *Options) render(w io.Writer, g *grid, store *study.Store) error {
	var b strings.Builder
	paper := o.paperDatasets()
	title := "Table 1: test accuracy (%)"
	if o.Kind == Main && !paper {
		title = "and its baselines beyond the paper's datasets: test metric (%)"
	}
	switch o.Kind {
	case Ablation:
		title = "Ablations: test accuracy (%)"
	case Transfer:
		title = "transferability of the APV: test accuracy (%)"
	}
	fmt.Fprintf(&b, "# FedAux %s\n\n", title)
	if paper {
		fmt.Fprintf(&b, "Each cell: mean ± std (population) over seeds %d..%d of the mean client test accuracy at the round of best mean validation accuracy (the paper's protocol: fedaux's docs/method.md, \"Rounds and evaluation\"); "+
			"in brackets the FedAux paper's value (its Table 1 and ablation table) and ours minus the paper's. ", o.Seed, o.Seed+uint64(o.Seeds)-1)
	} else {
		fmt.Fprintf(&b, "Each cell: mean ± std (population) over seeds %d..%d of the mean client test metric (accuracy, or the metric a section's title names) at the round of best mean validation metric (the paper's protocol: fedaux's docs/method.md, \"Rounds and evaluation\"); "+
			"the FedAux paper has no value for these datasets. ", o.Seed, o.Seed+uint64(o.Seeds)-1)
	}
	fmt.Fprintf(&b, "[n/%d] marks a cell with fewer finished seeds; — a cell not run yet; no data, a preset whose data files are absent.\n\n", o.Seeds)
	if o.Kind == Transfer {
		b.WriteString(transferNote)
	}
	settings := "rounds and epochs as the presets (100 x 1 for Cora and CiteSeer, 200 x 2 for the Amazon sets)"
	if !paper {
		settings = "rounds and epochs as the presets (" + o.roundsNote(g) + ")"
	}
	if len(g.cells) > 0 {
		if ov := o.overrides(g.cells[0].Scenario, g.cells[0].Config.Algo); len(ov) > 0 {
			settings += "; **overridden: " + strings.Join(ov, ", ") + "**"
		}
	}
	var own []string
	for _, a := range o.Algos {
		if kv := o.algoSettings(g, a); kv != "" {
			own = append(own, displayName(a)+" "+kv)
		}
	}
	if len(own) > 0 {
		settings += "; " + strings.Join(own, "; ")
	}
	fmt.Fprintf(&b, "Settings: %s; every other setting as the presets and `fedaux run` defaults. Raw runs: `results*.jsonl`.\n\n", settings)
	finished, planned := 0, 0
	took, tookBy := 0.0, map[sim.Algorithm]float64{}
	cpu, withCPU := 0.0, 0
	var body strings.Builder
	for _, ds := range o.Datasets {
		fmt.Fprintf(&body, "## %s%s\n\n| method |", presets.DatasetTitle(ds), o.metricNote(ds))
		for _, k := range o.Clients {
			fmt.Fprintf(&body, " %d clients |", k)
		}
		body.WriteString("\n|---|")
		for range o.Clients {
			body.WriteString("---|")
		}
		body.WriteString("\n")
		means := map[int]map[sim.Algorithm]float64{} // clients -> algorithm -> mean, cells with every seed
		for _, a := range o.Algos {
			fmt.Fprintf(&body, "| %s |", displayName(a))
			for _, k := range o.Clients {
				if g.byPos[pos{ds, k, a, o.Seed}] == nil { // no such scenario
					body.WriteString(" – |")
					continue
				}
				var accs []float64
				var name string
				for i := 0; i < o.Seeds; i++ {
					c := g.byPos[pos{ds, k, a, o.Seed + uint64(i)}]
					name = c.Scenario.Name
					planned++
					if r, ok := store.Get(c.Key()); ok {
						accs = append(accs, r.TestAtBestVal)
						finished++
						took += r.Seconds
						tookBy[a] += r.Seconds
						if r.CPUSeconds > 0 {
							cpu += r.CPUSeconds
							withCPU++
						}
					}
				}
				if len(accs) == 0 && slices.Contains(g.missing, name) {
					cell := "no data"
					if v, ok := Paper(a, ds, k); ok {
						cell += fmt.Sprintf(" (paper %.2f)", v)
					}
					body.WriteString(" " + cell + " |")
					continue
				}
				body.WriteString(" " + formatCell(accs, o.Seeds, a, ds, k) + " |")
				if len(accs) == o.Seeds {
					if means[k] == nil {
						means[k] = map[sim.Algorithm]float64{}
					}
					means[k][a], _ = study.MeanStd(accs)
				}
			}
			body.WriteString("\n")
		}
		body.WriteString("\n")
		body.WriteString(o.rankLine(ds, means))
		body.WriteString(o.gainLine(ds, g, store))
	}
	fmt.Fprintf(&b, "Runs finished: %d of %d.\n\n", finished, planned)
	if took > 0 {
		fmt.Fprintf(&b, "%s %s (the sum of each finished run's wall time in the results files%s)%s.\n\n", ComputeLine, hoursMinutes(took), largestShare(tookBy, took), cpuClause(cpu, withCPU, finished))
	}
	if len(g.missing) > 0 {
		fmt.Fprintf(&b, "Skipped for want of data: %s.\n\n", strings.Join(g.missing, ", "))
	}
	b.WriteString(body.String())
	_, err := io.WriteString(w, b.String())
	return err
}

// ComputeLine starts the line of a rendered table that states its runs'
// compute time: the one line that differs between renderings of the same
// results computed at other times.
const ComputeLine = "Compute time:"

// cpuClause states the CPU time of the runs that record it: the cost to
// the machine, which the sum of wall times overstates for runs that
// shared it with other work and understates for runs on several cores.
func cpuClause(cpu float64, with, finished int) string {
	if with == 0 {
		return ""
	}
	of := "every run"
	if with < finished {
		of = fmt.Sprintf("the %d of %d runs that record it", with, finished)
	}
	return fmt.Sprintf("; CPU time %s for %s", hoursMinutes(cpu), of)
}

// hoursMinutes formats seconds as "3 h 37 min" (or "12 min", "40 s").
func hoursMinutes(secs float64) string {
	switch m := int(secs/60 + 0.5); {
	case secs < 60:
		return fmt.Sprintf("%.0f s", secs)
	case m < 60:
		return fmt.Sprintf("%d min", m)
	default:
		return fmt.Sprintf("%d h %d min", m/60, m%60)
	}
}

// largestShare names the method that took the largest share of total.
func largestShare(by map[sim.Algorithm]float64, total float64) string {
	var top sim.Algorithm
	for a, v := range by {
		if v > by[top] || (v == by[top] && a < top) {
			top = a
		}
	}
	if top == "" || len(by) < 2 {
		return ""
	}
	return fmt.Sprintf("; %s %.0f %% of it", displayName(top), 100*by[top]/total)
}

// formatCell formats one cell: mean ± std, the seed count when short,
// and the paper's value with the difference.
func formatCell(accs []float64, seeds int, algo sim.Algorithm, ds string, k int) string {
	paper, ok := Paper(algo, ds, k)
	var s string
	if len(accs) == 0 {
		s = "—"
	} else {
		m, sd := study.MeanStd(accs)
		s = fmt.Sprintf("%.2f ± %.2f", m, sd)
		if len(accs) < seeds {
			s += fmt.Sprintf(" [%d/%d]", len(accs), seeds)
		}
		if ok {
			return fmt.Sprintf("%s (paper %.2f, %+.2f)", s, paper, m-paper)
		}
	}
	if ok {
		s += fmt.Sprintf(" (paper %.2f)", paper)
	}
	return s
}

// rankLine says where FedAux's mean ranks among the methods of the table
// in each client count whose cells have every seed, beside its rank among
// the same methods in the paper; "" when FedAux is not in the table.
func (o *Options) rankLine(ds string, means map[int]map[sim.Algorithm]float64) string {
	if !slices.Contains(o.Algos, methods.FedAux) || len(o.Algos) < 2 {
		return ""
	}
	var parts []string
	for _, k := range o.Clients {
		m := means[k]
		own, ok := m[methods.FedAux]
		if !ok || len(m) < len(o.Algos) {
			continue
		}
		rank := 1
		for _, v := range m {
			if v > own {
				rank++
			}
		}
		part := fmt.Sprintf("%d clients %d of %d", k, rank, len(m))
		if pv, ok := Paper(methods.FedAux, ds, k); ok {
			prank, n := 1, 0
			for _, a := range o.Algos {
				if v, ok := Paper(a, ds, k); ok {
					n++
					if v > pv {
						prank++
					}
				}
			}
			if n > 1 { // a rank among one value says nothing
				part += fmt.Sprintf(" (paper %d of %d)", prank, n)
			}
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return "FedAux's rank by mean: " + strings.Join(parts, "; ") + ".\n\n"
}

// algoSettings returns the settings of its own (sim.AlgorithmSettings) that
// algorithm a ran with, as key=value pairs. Where they differ between
// datasets (FedGTA's are per dataset), each dataset's values are named:
// "gta_moments=6,gta_eps=0.5 (Cora) / gta_moments=20,gta_eps=0.6 (CiteSeer)".
func (o *Options) algoSettings(g *grid, a sim.Algorithm) string {
	keys := sim.AlgorithmSettings(a)
	if len(keys) == 0 {
		return ""
	}
	var vals, titles []string // one per dataset with a cell of a
	for _, ds := range o.Datasets {
		var c *study.Cell
		for _, k := range o.Clients {
			if c = g.byPos[pos{ds, k, a, o.Seed}]; c != nil {
				break
			}
		}
		if c == nil {
			continue
		}
		kv := make([]string, len(keys))
		for i, key := range keys {
			v, _ := c.Config.Get(key)
			kv[i] = key + "=" + v
		}
		vals = append(vals, strings.Join(kv, ","))
		titles = append(titles, presets.DatasetTitle(ds))
	}
	if len(vals) == 0 {
		return ""
	}
	if !slices.ContainsFunc(vals, func(v string) bool { return v != vals[0] }) {
		return vals[0]
	}
	// Datasets with equal values share one entry, in the order of the first.
	var parts []string
	for i, v := range vals {
		if slices.Index(vals, v) != i {
			continue
		}
		var names []string
		for j := range vals {
			if vals[j] == v {
				names = append(names, titles[j])
			}
		}
		parts = append(parts, v+" ("+strings.Join(names, ", ")+")")
	}
	return strings.Join(parts, " / ")
}

// metricNote returns " (ROC AUC, %)" for a dataset whose presets report
// a metric other than accuracy, else "". The dataset's first preset
// tells.
func (o *Options) metricNote(ds string) string {
	for _, k := range o.Clients {
		if p, err := o.preset(ds, k); err == nil && p != nil {
			if m := p.MetricFor(); m != sim.Accuracy {
				return " (" + m.Label() + ", %)"
			}
			return ""
		}
	}
	return ""
}

// paperDatasets reports whether the FedAux paper has a value for any of
// the table's datasets (its Table 1 covers Cora, CiteSeer, PubMed, the
// two Amazon sets and ogbn-arxiv).
func (o *Options) paperDatasets() bool {
	for _, ds := range o.Datasets {
		for _, k := range o.Clients {
			if _, ok := Paper(methods.FedAux, ds, k); ok {
				return true
			}
		}
	}
	return false
}

// roundsNote says the rounds and epochs of the grid's cells by dataset,
// as "100 x 1 for Minesweeper and Tolokers, 200 x 2 for Actor".
func (o *Options) roundsNote(g *grid) string {
	var order []string
	by := map[string][]string{}
	for _, ds := range o.Datasets {
		for _, k := range o.Clients {
			for _, a := range o.Algos {
				c := g.byPos[pos{ds, k, a, o.Seed}]
				if c == nil {
					continue
				}
				re := fmt.Sprintf("%d x %d", c.Config.Rounds, c.Config.Epochs)
				if _, ok := by[re]; !ok {
					order = append(order, re)
				}
				if t := presets.DatasetTitle(ds); !slices.Contains(by[re], t) {
					by[re] = append(by[re], t)
				}
			}
		}
	}
	parts := make([]string, len(order))
	for i, re := range order {
		ds := by[re]
		list := ds[0]
		if n := len(ds); n > 1 {
			list = strings.Join(ds[:n-1], ", ") + " and " + ds[n-1]
		}
		parts[i] = re + " for " + list
	}
	return strings.Join(parts, ", ")
}
