package servercost

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fedaux/fedaux/internal/datadir"
	"github.com/fedaux/fedaux/internal/stepcost"
	"github.com/fedaux/fedaux/presets"
)

var (
	benchCasesOnce sync.Once
	benchCases     []Case
	benchCasesErr  error
)

// BenchmarkServerStep times the server's similarity step of FedAux (APV),
// FED-PUB (functional embedding; forwards on the server, or on the
// clients) and GCFL (forced min cut), with the proxy graph's build apart,
// on the uploads of round 50 of cora-10 engines (seed 42; the setup runs
// them once, which takes a minute or two) and on stand-in uploads of
// ogbn-arxiv-10's shapes. peak-B is the step's transient heap peak
// (stepcost.Memory), input-B its input footprint. It needs the data
// directory and is skipped without it.
func BenchmarkServerStep(b *testing.B) {
	dir := datadir.Dir(b)
	benchCasesOnce.Do(func() {
		benchCases, benchCasesErr = Cases(context.Background(), Options{Env: presets.Env{DataDir: dir}, Rounds: 50, Reps: 1, Seed: 42})
	})
	if benchCasesErr != nil {
		b.Fatal(benchCasesErr)
	}
	for _, c := range benchCases {
		b.Run(c.Dataset+"/"+c.Step.Method, func(b *testing.B) {
			mem := stepcost.Memory(func() { c.Step.Run() }, 3)
			for b.Loop() {
				c.Step.Run()
			}
			b.ReportMetric(float64(mem.Peak), "peak-B")
			b.ReportMetric(float64(c.Step.Input), "input-B")
		})
	}
}

func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three cora-10 engines and measures ten steps")
	}
	dir := datadir.Dir(t)
	out := t.TempDir()
	var progress bytes.Buffer
	res, err := Run(context.Background(), Options{Env: presets.Env{DataDir: dir}, Out: out, Rounds: 2, Reps: 3, Warm: 1, Seed: 42, Progress: &progress})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	md, err := os.ReadFile(filepath.Join(out, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range []string{"cora-10", arxivShape} {
		for _, m := range []string{"fedaux", "fedpub-proxy", "fedpub-server", "fedpub-client", "gcfl"} {
			if !strings.Contains(string(md), "| "+ds+" | "+m+" |") {
				t.Errorf("no row for %s on %s in\n%s", m, ds, md)
			}
		}
	}
	if st, err := os.Stat(filepath.Join(out, FigureFile)); err != nil || st.Size() == 0 {
		t.Errorf("figure: %v", err)
	}
	var b bytes.Buffer
	if err := Render(&b, res); err != nil {
		t.Fatal(err)
	}
	if b.String() != string(md) {
		t.Errorf("Render differs from %s", MarkdownFile)
	}
	if !strings.Contains(progress.String(), "cora-10 fedaux: 2 rounds") {
		t.Errorf("progress %q: want a line per engine", progress.String())
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{Rounds: 0, Reps: 1}, "rounds = 0"},
		{Options{Rounds: 1, Reps: 0}, "reps = 0"},
		{Options{Rounds: 1, Reps: 1, Warm: -1}, "warm = -1"},
	} {
		_, err := Run(context.Background(), tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want one with %q", tt.opts, err, tt.want)
		}
	}
	if err := Render(io.Discard, nil); err == nil {
		t.Error("Render(nil): want an error")
	}
}
