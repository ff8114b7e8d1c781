package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/internal/stepcost"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// costCase is one server step to measure on one dataset.
type costCase struct {
	Dataset string
	Step    sim.ServerStep
}

// arxivShape is the shape of ogbn-arxiv-10 (and of the sbm-arxiv preset):
// 128 features, 40 classes, 10 clients.
const arxivShape = "arxiv-shape"

// costCases returns the server steps of the paper's server-cost analysis (docs/method.md#server-cost): FedAux, FED-PUB
// (forwards on the server and on the clients) and GCFL on the uploads of
// round rounds of cora-10 (three engines run from seed) and on stand-in
// uploads of ogbn-arxiv-10's shapes, with each dataset's proxy graph
// build (a step of its own, method "fedpub-proxy").
func costCases(dataDir string, rounds int, seed uint64, progress io.Writer) ([]costCase, error) {
	p, err := presets.Get("cora-10")
	if err != nil {
		return nil, err
	}
	var out []costCase
	engine := func(algo sim.Algorithm) (*sim.Engine, error) {
		cfg := p.Config()
		cfg.Algo, cfg.Seed, cfg.Rounds = algo, seed, rounds
		e, _, err := presets.NewEngine(p, presets.Env{DataDir: dataDir}, cfg, nil)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if _, err := e.Run(context.Background(), nil); err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "cora-10 %s: %d rounds in %.1f s\n", algo, rounds, time.Since(start).Seconds())
		return e, nil
	}
	e, err := engine(sim.FedAux)
	if err != nil {
		return nil, err
	}
	apvs, err := e.Uploads(sim.SourceAPV)
	if err != nil {
		return nil, err
	}
	out = append(out, costCase{"cora-10", sim.APVStep(apvs, e.Knobs().Alpha)})
	if e, err = engine(sim.FedPub); err != nil {
		return nil, err
	}
	models, proxy, err := e.Models()
	if err != nil {
		return nil, err
	}
	tau, features := e.Config().Tau, e.Data().NumFeatures
	out = append(out, proxyCase("cora-10", seed, features),
		costCase{"cora-10", sim.FedPubStep(models, proxy, tau, true)},
		costCase{"cora-10", sim.FedPubStep(models, proxy, tau, false)})
	if e, err = engine(sim.GCFL); err != nil {
		return nil, err
	}
	dw, err := e.Uploads(sim.SourceUpdate)
	if err != nil {
		return nil, err
	}
	out = append(out, costCase{"cora-10", sim.GCFLStep(dw)})

	a, err := presets.Get("sbm-arxiv")
	if err != nil {
		return nil, err
	}
	acfg := a.Config()
	apvs, dw, models, err = sim.ShapeUploads(128, 40, acfg.Hidden, 10, seed)
	if err != nil {
		return nil, err
	}
	if proxy, err = sim.ProxyGraph(seed, 128); err != nil {
		return nil, err
	}
	return append(out, costCase{arxivShape, sim.APVStep(apvs, acfg.Alpha)}, proxyCase(arxivShape, seed, 128),
		costCase{arxivShape, sim.FedPubStep(models, proxy, acfg.Tau, true)},
		costCase{arxivShape, sim.FedPubStep(models, proxy, acfg.Tau, false)},
		costCase{arxivShape, sim.GCFLStep(dw)}), nil
}

// proxyCase is the build of FED-PUB's proxy graph, once per run; its
// input is nothing and its result is kept by the server.
func proxyCase(dataset string, seed uint64, features int) costCase {
	return costCase{dataset, sim.ServerStep{Method: "fedpub-proxy", Run: func() sim.Mixing {
		if _, err := sim.ProxyGraph(seed, features); err != nil {
			panic(err)
		}
		return sim.Mixing{}
	}}}
}

// costRow is one measured case.
type costRow struct {
	costCase
	One, All stepcost.Result // GOMAXPROCS 1 and all cores
	Mem      stepcost.Result
}

func measureCases(cases []costCase, warm, reps int) []costRow {
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	rows := make([]costRow, len(cases))
	for i, c := range cases {
		run := func() { c.Step.Run() }
		rows[i].costCase = c
		runtime.GOMAXPROCS(1)
		rows[i].One = stepcost.Time(run, warm, reps)
		runtime.GOMAXPROCS(runtime.NumCPU())
		rows[i].All = stepcost.Time(run, warm, reps)
		rows[i].Mem = stepcost.Memory(run, 5)
	}
	return rows
}

func serverCostCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("servercost", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "", "data directory (default $FEDAUX_DATA or ../shared/data)")
	out := fs.String("out", filepath.Join("results", "server-cost"), "output directory")
	rounds := fs.Int("rounds", 50, "rounds of the cora-10 engines before their uploads are taken")
	reps := fs.Int("reps", 50, "timed repetitions")
	warm := fs.Int("warm", 5, "warm-up repetitions")
	seed := fs.Uint64("seed", 42, "seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rounds < 1 || *reps < 1 || *warm < 0 {
		return fmt.Errorf("servercost: -rounds and -reps must be >= 1, -warm >= 0")
	}
	cases, err := costCases(presets.DataDir(*dataDir), *rounds, *seed, stderr)
	if err != nil {
		return err
	}
	rows := measureCases(cases, *warm, *reps)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	md := costMarkdown(rows, *rounds, *warm, *reps)
	if err := export.WriteFileAtomic(filepath.Join(*out, "server-cost.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, md)
		return err
	}); err != nil {
		return err
	}
	var pts []export.CostPoint
	for _, r := range rows {
		if r.Step.Method == "fedpub-proxy" {
			continue
		}
		pts = append(pts, export.CostPoint{Method: r.Step.Method, Dataset: r.Dataset,
			Seconds: r.One.Median.Seconds(), Bytes: float64(r.Step.Input + r.Mem.Peak)})
	}
	if err := export.WriteFileAtomic(filepath.Join(*out, "time_vs_memory.png"), func(w io.Writer) error {
		return export.WriteCostFigure(w, "Server similarity step: time (GOMAXPROCS 1) vs peak memory", pts)
	}); err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}

// costMarkdown renders the measured rows as a Markdown table.
func costMarkdown(rows []costRow, rounds, warm, reps int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Server similarity step: time and peak memory\n\n")
	fmt.Fprintf(&b, "`fedaux servercost -rounds %d -warm %d -reps %d` (%s, %d cores, %s). ", rounds, warm, reps, presets.Version, runtime.NumCPU(), runtime.Version())
	fmt.Fprintf(&b, "cora-10: the uploads of round %d of seed-42 engines; %s: stand-in uploads of ogbn-arxiv-10's shapes (d = 128, C = 40, K = 10). ", rounds, arxivShape)
	b.WriteString("Time: median [Q1, Q3] of the repetitions after the warm-ups. Peak = input + transient (max HeapAlloc over the step with the collector off, minus HeapAlloc after a collection). ")
	b.WriteString("fedpub-server runs the K proxy forwards on the server (its input is the K models' parameters and the proxy graph; the proxy's build, once per run, is the fedpub-proxy row); fedpub-client times the server's part when the clients upload their embeddings. gcfl forces the Stoer-Wagner cut.\n\n")
	b.WriteString("| dataset | method | input | transient peak | allocated | peak memory | time, 1 core | time, all cores |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Dataset, r.Step.Method,
			bytesText(r.Step.Input), bytesText(r.Mem.Peak), bytesText(r.Mem.Allocated), bytesText(r.Step.Input+r.Mem.Peak),
			timeText(r.One), timeText(r.All))
	}
	return b.String()
}

func timeText(r stepcost.Result) string {
	return fmt.Sprintf("%s [%s, %s]", r.Median.Round(durationUnit(r.Median)), r.Q1.Round(durationUnit(r.Q1)), r.Q3.Round(durationUnit(r.Q3)))
}

// durationUnit keeps three significant digits or so.
func durationUnit(d time.Duration) time.Duration {
	u := time.Duration(1)
	for d >= 1000*u {
		u *= 10
	}
	return u
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
