package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/fedaux/fedaux/datasets"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/study"
)

// dataCmd is `fedaux data`: the datasets and their state in the data
// directory; `data get` downloads them, `data serve` serves them as a
// mirror.
func dataCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "get":
			return dataGetCmd(args[1:], stdout, stderr)
		case "serve":
			return dataServeCmd(args[1:], stderr)
		}
	}
	fs := flag.NewFlagSet("data", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "", "data `dir` ("+dataDirDefault+")")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: fedaux data [-data DIR]                 each dataset: present, verified, how to get it
       fedaux data get [flags] NAME... | all   download datasets (checksums pinned)
       fedaux data serve [-data DIR] [-addr :8080]   serve the data directory as a mirror
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("data: unknown argument %q (want get, serve or flags)", fs.Arg(0))
	}
	dir := presets.DataDir(*dataDir)
	fmt.Fprintf(stdout, "data directory: %s\n", dir)
	fmt.Fprintf(stdout, "%-20s %-21s %-9s %-10s %s\n", "dataset", "title", "metric", "state", "files")
	var get []string
	failed := map[*datasets.Dataset]bool{} // a file there fails its check
	for _, d := range datasets.All() {
		st := d.StatusIn(dir)
		state := st.State.String()
		if st.State == datasets.Missing || st.State == datasets.Partial {
			get = append(get, d.Name)
		}
		failed[d] = st.State == datasets.Mismatched
		where := d.Graph
		bad := st.Bad
		// The presets read a Planetoid set's converted name.npz when it is
		// there, which has no pinned checksum: it must at least read whole.
		if alt := filepath.Join(dir, d.Name+".npz"); strings.HasPrefix(d.Graph, "raw/planetoid/") && fileExists(alt) {
			if err := datasets.ReadZip(alt); err != nil {
				state, where = "CORRUPT", d.Name+".npz, which the presets read"
				bad = append(bad, fmt.Sprintf("%s: %v; remove it: the presets then read the raw files (fedaux data get %s)", d.Name+".npz", err, d.Name))
				failed[d] = true
			} else {
				failed[d] = false // the presets read the .npz, not the raw files
				if st.State == datasets.Missing {
					state, where = "converted", d.Name+".npz (raw files absent)"
				}
			}
		}
		fmt.Fprintf(stdout, "%-20s %-21s %-9s %-10s %s\n", d.Name, d.Title, d.Metric, state, where)
		for _, b := range bad {
			fmt.Fprintf(stdout, "    %s\n", b)
		}
	}
	if len(get) > 0 {
		fmt.Fprintf(stdout, "get the missing ones with: fedaux data get %s   (or place the files by hand: docs/data.md)\n", strings.Join(get, " "))
	}
	// A preset whose data is there but fails its check (CORRUPT, CHECKSUM
	// DIFFERS) is not ready: it has a line of its own.
	var ok, bad, missing []string
	for _, p := range presets.All() {
		switch {
		case !p.Available(presets.Env{DataDir: dir}):
			missing = append(missing, p.Name)
		case p.Spec != nil && failed[datasets.ForGraph(p.Spec.Graph)]:
			bad = append(bad, p.Name)
		default:
			ok = append(ok, p.Name)
		}
	}
	fmt.Fprintf(stdout, "presets ready: %s\n", strings.Join(ok, " "))
	if len(bad) > 0 {
		fmt.Fprintf(stdout, "presets whose data fails its check (above): %s\n", strings.Join(bad, " "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(stdout, "presets missing data: %s\n", strings.Join(missing, " "))
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// dataGetCmd is `fedaux data get NAME... | all`.
func dataGetCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("data get", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "", "data `dir` to install into ("+dataDirDefault+")")
	mirror := fs.String("mirror", os.Getenv(datasets.MirrorEnv), "base `URL` of a mirror holding every file at its canonical URL's path (default $"+datasets.MirrorEnv+")")
	unverified := fs.Bool("unverified", false, "install files that have no published checksum (ogbn-arxiv); their sha256 is printed")
	quiet := fs.Bool("q", false, "no progress bar")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: fedaux data get [flags] NAME... | all\n  NAME is one of: %s\n", strings.Join(datasets.Names(), " "))
		fs.PrintDefaults()
	}
	// Flags may follow the names (`data get cora -mirror URL`).
	var names []string
	for rest := args; ; {
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(names) == 0 {
		fs.Usage()
		return fmt.Errorf("data get: name at least one dataset, or all")
	}
	var ds []*datasets.Dataset
	for _, n := range names {
		if n == "all" {
			ds = datasets.All()
			break
		}
		d, err := datasets.Lookup(n)
		if err != nil {
			return fmt.Errorf("data get: %w", err)
		}
		ds = append(ds, d)
	}
	dir := presets.DataDir(*dataDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opt := datasets.Options{Mirror: *mirror, Unverified: *unverified}
	if !*quiet {
		opt.Progress = stderr
		opt.PlainProgress = !study.IsTerminal(stderr)
	}
	src := "their canonical sources"
	if *mirror != "" {
		src = "mirror " + *mirror
	}
	fmt.Fprintf(stderr, "fetching %d dataset(s) from %s into %s\n", len(ds), src, dir)
	err := datasets.Get(ctx, dir, ds, opt)
	for _, d := range ds {
		fmt.Fprintf(stdout, "%-20s %s\n", d.Name, d.StatusIn(dir).State)
	}
	return err
}

// dataServeCmd is `fedaux data serve`: an HTTP mirror of the catalogue's
// files the data directory holds, each at its canonical URL's path (with
// HTTP Range support, so downloads resume).
func dataServeCmd(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("data serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", "", "data `dir` to serve ("+dataDirDefault+")")
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address`")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: fedaux data serve [-data DIR] [-addr ADDRESS]   serve the data directory as a mirror\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("data serve: unexpected argument %q", fs.Arg(0))
	}
	dir := presets.DataDir(*dataDir)
	mux, n := mirrorHandler(dir)
	if n == 0 {
		return fmt.Errorf("data serve: %s holds no file of the catalogue", dir)
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("data serve: -addr %s: %w (want HOST:PORT or :PORT, such as 127.0.0.1:8080)", *addr, err)
	}
	fmt.Fprintf(stderr, "serving %d files of %s at http://%s (use -mirror http://%s or $%s)\n", n, dir, l.Addr(), l.Addr(), datasets.MirrorEnv)
	err = http.Serve(l, mux)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// mirrorHandler serves every catalogue file present in dir at its mirror
// path, and returns how many there are.
func mirrorHandler(dir string) (http.Handler, int) {
	mux := http.NewServeMux()
	n := 0
	for _, d := range datasets.All() {
		for _, f := range d.Files {
			p := filepath.Join(dir, filepath.FromSlash(f.Path))
			if !fileExists(p) {
				continue
			}
			n++
			mux.HandleFunc("GET "+f.MirrorPath(), func(w http.ResponseWriter, r *http.Request) {
				http.ServeFile(w, r, p)
			})
		}
	}
	return mux, n
}
