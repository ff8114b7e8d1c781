package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fedaux/fedaux/internal/datadir"
	"github.com/fedaux/fedaux/internal/stepcost"
)

var (
	benchCasesOnce sync.Once
	benchCases     []costCase
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
	benchCasesOnce.Do(func() { benchCases, benchCasesErr = costCases(dir, 50, 42, io.Discard) })
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

func TestServerCostCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three cora-10 engines and measures ten steps")
	}
	dir := datadir.Dir(t)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := serverCostCmd([]string{"-data", dir, "-out", out, "-rounds", "2", "-reps", "3", "-warm", "1"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	md, err := os.ReadFile(filepath.Join(out, "server-cost.md"))
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
	if st, err := os.Stat(filepath.Join(out, "time_vs_memory.png")); err != nil || st.Size() == 0 {
		t.Errorf("figure: %v", err)
	}
	if stdout.String() != string(md) {
		t.Error("stdout differs from server-cost.md")
	}
	if err := serverCostCmd([]string{"-reps", "0"}, io.Discard, io.Discard); err == nil {
		t.Error("-reps 0: want an error")
	}
}
