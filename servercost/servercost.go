package servercost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/internal/stepcost"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// Files the study writes in Options.Out.
const (
	MarkdownFile = "server-cost.md"
	FigureFile   = "time_vs_memory.png"
)

// Options describe a server-cost study.
type Options struct {
	// Env locates the data (cora-10's files).
	Env presets.Env
	// Rounds is how many rounds the cora-10 engines run before their
	// uploads are taken (>= 1).
	Rounds int
	// Warm and Reps are the untimed warm-up (>= 0) and the timed
	// repetitions (>= 1) of each step.
	Warm, Reps int
	// Seed seeds the cora-10 engines and the stand-in uploads.
	Seed uint64
	// Out, when not "", is the directory where Run writes MarkdownFile
	// and FigureFile.
	Out string
	// Progress, when not nil, is told how long each engine took.
	Progress io.Writer
}

// check validates the options, naming the field at fault.
func (o *Options) check() error {
	switch {
	case o.Rounds < 1:
		return fmt.Errorf("servercost: rounds = %d, want >= 1", o.Rounds)
	case o.Reps < 1:
		return fmt.Errorf("servercost: reps = %d, want >= 1", o.Reps)
	case o.Warm < 0:
		return fmt.Errorf("servercost: warm = %d, want >= 0", o.Warm)
	}
	return nil
}

// A Result is a measured study: one row per case, in the order of Cases.
type Result struct {
	Options Options
	Rows    []Row
}

// Run runs the cora-10 engines, measures every case (Cases) and, when
// opts.Out is set, writes MarkdownFile and FigureFile there (when that
// fails, Run returns the Result with the error). The timings are the
// machine's: run it on a quiet one.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	cases, err := Cases(ctx, opts)
	if err != nil {
		return nil, err
	}
	r := &Result{Options: opts, Rows: Measure(cases, opts.Warm, opts.Reps)}
	if opts.Out == "" {
		return r, nil
	}
	return r, r.WriteFiles()
}

// WriteFiles writes MarkdownFile and FigureFile in Options.Out.
func (r *Result) WriteFiles() error {
	if err := os.MkdirAll(r.Options.Out, 0o755); err != nil {
		return err
	}
	if err := export.WriteFileAtomic(filepath.Join(r.Options.Out, MarkdownFile), func(w io.Writer) error {
		return Render(w, r)
	}); err != nil {
		return err
	}
	return export.WriteFileAtomic(filepath.Join(r.Options.Out, FigureFile), r.figure)
}

// figure draws time (GOMAXPROCS 1) against peak memory, the proxy
// graph's build left out.
func (r *Result) figure(w io.Writer) error {
	var pts []export.CostPoint
	for _, row := range r.Rows {
		if row.Step.Method == "fedpub-proxy" {
			continue
		}
		pts = append(pts, export.CostPoint{Method: row.Step.Method, Dataset: row.Dataset,
			Seconds: row.One.Median.Seconds(), Bytes: float64(row.Step.Input + row.Mem.Peak)})
	}
	return export.WriteCostFigure(w, "Server similarity step: time (GOMAXPROCS 1) vs peak memory", pts)
}

// Render writes the measured rows as a Markdown table.
func Render(w io.Writer, r *Result) error {
	if r == nil {
		return errors.New("servercost: no result")
	}
	_, err := io.WriteString(w, costMarkdown(r.Rows, r.Options.Rounds, r.Options.Warm, r.Options.Reps))
	return err
}

// A Case is one server step to measure on one dataset.
type Case struct {
	Dataset string
	Step    sim.ServerStep
}

// arxivShape is the shape of ogbn-arxiv-10 (and of the sbm-arxiv preset):
// 128 features, 40 classes, 10 clients.
const arxivShape = "arxiv-shape"

// Cases returns the server steps of the paper's server-cost analysis
// (docs/method.md#server-cost): FedAux, FED-PUB (forwards on the server
// and on the clients) and GCFL on the uploads of round opts.Rounds of
// cora-10 (three engines run from opts.Seed) and on stand-in uploads of
// ogbn-arxiv-10's shapes, with each dataset's proxy graph build (a step
// of its own, method "fedpub-proxy").
func Cases(ctx context.Context, opts Options) ([]Case, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	rounds, seed, progress := opts.Rounds, opts.Seed, opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	p, err := presets.Get("cora-10")
	if err != nil {
		return nil, err
	}
	var out []Case
	engine := func(algo sim.Algorithm) (*sim.Engine, error) {
		cfg := p.Config()
		cfg.Algo, cfg.Seed, cfg.Rounds = algo, seed, rounds
		e, _, err := presets.NewEngine(p, opts.Env, cfg, nil)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if _, err := e.Run(ctx, nil); err != nil {
			return nil, err
		}
		fmt.Fprintf(progress, "cora-10 %s: %d rounds in %.1f s\n", algo, rounds, time.Since(start).Seconds())
		return e, nil
	}
	e, err := engine(methods.FedAux)
	if err != nil {
		return nil, err
	}
	apvs, err := e.Uploads(sim.SourceAPV)
	if err != nil {
		return nil, err
	}
	out = append(out, Case{"cora-10", sim.APVStep(apvs, e.Knobs().Alpha)})
	if e, err = engine(methods.FedPub); err != nil {
		return nil, err
	}
	models, proxy, err := e.Models()
	if err != nil {
		return nil, err
	}
	tau, features := e.Config().Options.Float("tau"), e.Data().NumFeatures
	out = append(out, proxyCase("cora-10", seed, features),
		Case{"cora-10", methods.FedPubStep(models, proxy, tau, true)},
		Case{"cora-10", methods.FedPubStep(models, proxy, tau, false)})
	if e, err = engine(methods.GCFL); err != nil {
		return nil, err
	}
	dw, err := e.Uploads(sim.SourceUpdate)
	if err != nil {
		return nil, err
	}
	out = append(out, Case{"cora-10", methods.GCFLStep(dw)})

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
	return append(out, Case{arxivShape, sim.APVStep(apvs, acfg.Alpha)}, proxyCase(arxivShape, seed, 128),
		Case{arxivShape, methods.FedPubStep(models, proxy, acfg.Options.Float("tau"), true)},
		Case{arxivShape, methods.FedPubStep(models, proxy, acfg.Options.Float("tau"), false)},
		Case{arxivShape, methods.GCFLStep(dw)}), nil
}

// proxyCase is the build of FED-PUB's proxy graph, once per run; its
// input is nothing and its result is kept by the server.
func proxyCase(dataset string, seed uint64, features int) Case {
	return Case{dataset, sim.ServerStep{Method: "fedpub-proxy", Run: func() sim.Mixing {
		if _, err := sim.ProxyGraph(seed, features); err != nil {
			panic(err)
		}
		return sim.Mixing{}
	}}}
}

// A Row is one measured case.
type Row struct {
	Case
	One, All stepcost.Result // time with GOMAXPROCS 1 and with all cores
	Mem      stepcost.Result // memory: transient peak and allocated bytes
}

// Measure times every case, warm untimed and reps timed repetitions
// with GOMAXPROCS 1 and then all cores, and takes its memory (five
// repetitions).
func Measure(cases []Case, warm, reps int) []Row {
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	rows := make([]Row, len(cases))
	for i, c := range cases {
		run := func() { c.Step.Run() }
		rows[i].Case = c
		runtime.GOMAXPROCS(1)
		rows[i].One = stepcost.Time(run, warm, reps)
		runtime.GOMAXPROCS(runtime.NumCPU())
		rows[i].All = stepcost.Time(run, warm, reps)
		rows[i].Mem = stepcost.Memory(run, 5)
	}
	return rows
}

// costMarkdown renders the measured rows as a Markdown table.
func costMarkdown(rows []Row, rounds, warm, reps int) string {
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
