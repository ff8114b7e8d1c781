package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/presets"
)

// statsCmd prints a preset's clients, their edge homophily and the
// non-IID degree xi (docs/method.md#non-iid-degree).
func statsCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stats", stderr)
	name := fs.String("preset", "", "scenario `name`")
	dataDir := fs.String("data", "", "data `dir`")
	partition := fs.String("partition", "", "real data: ref, "+strings.Join(presets.Partitioners(), ", ")+" or label-skew=BETA")
	seed := seedFlag(42)
	fs.Var(&seed, "seed", "seed (synthetic presets)")
	file := fs.String("scenario", "", "scenario `file` instead of -preset")
	var sets []string
	fs.Func("set", "change one key of the scenario, `key=value` (repeatable)", func(v string) error {
		sets = append(sets, v)
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("stats: unexpected argument %q", fs.Arg(0))
	}
	var p *presets.Preset
	var err error
	switch {
	case *file != "":
		if p, err = presets.Load(*file); err != nil {
			return fmt.Errorf("-scenario: %w", err)
		}
	case *name == "":
		return fmt.Errorf("stats: -preset NAME or -scenario FILE is required")
	default:
		if p, err = presets.Lookup(*name); err != nil {
			return fmt.Errorf("-preset: %w", err)
		}
	}
	if p, err = p.With(sets); err != nil {
		return fmt.Errorf("-set: %w", err)
	}
	sc, err := p.Build(presets.Env{DataDir: presets.DataDir(*dataDir), Partition: *partition}, uint64(seed))
	if err != nil {
		return err
	}
	st, err := presets.NonIID(sc.Data)
	if err != nil {
		return err
	}
	total, most := 0, 0
	for _, c := range sc.Data.Clients {
		total += c.Graph.N()
		most = max(most, c.Graph.N())
	}
	k := len(sc.Data.Clients)
	fmt.Fprintf(stdout, "%s: %d clients, partition %s, imbalance %.3f (largest client over n/K, minus 1)\n",
		p.Name, k, sc.Partition, float64(most)/(float64(total)/float64(k))-1)
	fmt.Fprintf(stdout, "metric: %s\n", p.MetricFor().Label())
	fmt.Fprintf(stdout, "%6s %6s %6s %5s %5s %5s %8s %7s  %s\n", "client", "nodes", "edges", "train", "val", "test", "JS", "homoph", "labels (class:count)")
	same, edges := 0.0, 0
	for k, c := range sc.Data.Clients {
		tr, va, te := graphio.CountRoles(c.Roles)
		var hist []string
		for cl, n := range st.Counts[k] {
			if n > 0 {
				hist = append(hist, fmt.Sprintf("%d:%d", cl, n))
			}
		}
		h := graphio.EdgeHomophily(c.Graph)
		if !math.IsNaN(h) {
			same += h * float64(c.Graph.NumEdges())
			edges += c.Graph.NumEdges()
		}
		fmt.Fprintf(stdout, "%6d %6d %6d %5d %5d %5d %8.4f %7.4f  %s\n", c.ID, c.Graph.N(), c.Graph.NumEdges(), tr, va, te, st.JS[k], h, strings.Join(hist, " "))
	}
	if edges > 0 {
		fmt.Fprintf(stdout, "edge homophily (same-label share of the clients' edges, Zhu et al. 2020): %.4f over all clients\n", same/float64(edges))
	}
	sample := "all nodes"
	if st.Nodes < total {
		sample = fmt.Sprintf("a seeded sample of %d of %d nodes", st.Nodes, total)
	}
	fmt.Fprintf(stdout, "JSD %.4f  MMD %.4f (RBF bandwidth %.4g, %s)  xi %.4f\n", st.JSD, st.MMD, st.Bandwidth, sample, st.Xi)
	return nil
}
