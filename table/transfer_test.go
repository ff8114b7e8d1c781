package table

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// TestTransferTable runs a tiny transfer table (FedGTA beside FedGTA+APV,
// 2 seeds) and checks its Markdown: the title and note, the paper's
// names of both rows, cells without a paper value, and the gain line's
// mean and std of the seed-paired differences, computed here from the
// results files.
func TestTransferTable(t *testing.T) {
	dir := t.TempDir()
	o := tinyOptions(dir, 2)
	o.Kind, o.Algos = Transfer, []sim.Algorithm{methods.FedGTA, methods.FedGTAAPV}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "transfer.md"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := study.OpenStore(dir, study.ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	acc := map[sim.Algorithm]map[uint64]float64{}
	for _, r := range store.Records() {
		if acc[r.Algo] == nil {
			acc[r.Algo] = map[uint64]float64{}
		}
		acc[r.Algo][r.Seed] = r.TestAtBestVal
	}
	d := []float64{acc[methods.FedGTAAPV][1] - acc[methods.FedGTA][1], acc[methods.FedGTAAPV][2] - acc[methods.FedGTA][2]}
	m, sd := study.MeanStd(d)
	gain := fmt.Sprintf("APV gain (+APV minus the method, paired by seed, mean ± std): 4 clients: FedGTA %+.2f ± %.2f.", m, sd)
	for _, want := range []string{"# FedAux transferability of the APV", "claims +1–2 % for FedGTA", "| FedGTA |", "| FedGTA+APV |", "Runs finished: 4 of 4.", gain} {
		if !strings.Contains(string(text), want) {
			t.Errorf("transfer table lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), "(paper ") {
		t.Errorf("a tiny cell has a paper value:\n%s", text)
	}
	if m == 0 && sd == 0 {
		t.Error("FedGTA+APV ran exactly as FedGTA")
	}
	// With a seed missing on one side there is no gain to report.
	if err := os.WriteFile(filepath.Join(dir, study.ResultsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Render(&b, res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "APV gain") {
		t.Errorf("a gain line without results:\n%s", b.String())
	}
}
