package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/similarity"
)

// TestSimilarityCmd runs two small variants on the sbm preset and checks
// the report, the raw lines and the heat maps.
func TestSimilarityCmd(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := similarityCmd([]string{"-preset", "sbm", "-set", "nodes=600", "-hidden", "8", "-rounds", "3", "-at", "1,3,50", "-workers", "2",
		"-variants", "sim=apv;sim=readout,mix=off,alpha=auto,score=maxnorm", "-out", dir}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	md := stdout.String()
	for _, want := range []string{"## sim=apv", "## sim=readout,mix=off,alpha=auto,partners=4,score=maxnorm", "| functional |",
		"## Theorem 1: |cos(APV, pc1)|", "| sim=readout,mix=off,alpha=auto,partners=4,score=maxnorm |", "| ground_truth |", "r @3", "ARI @1"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "@50") {
		t.Error("round 50 reported for a 3-round run")
	}
	f, err := os.Open(filepath.Join(dir, "similarity.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, aligned := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r similarity.Score
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.View == similarity.AlignmentView {
			if r.Alignment == nil || *r.Alignment < 0 || *r.Alignment > 1 {
				t.Errorf("alignment record %+v: want a value in [0, 1]", r)
			}
			if r.AlignmentInit == nil || *r.AlignmentInit < 0 || *r.AlignmentInit > 1 {
				t.Errorf("alignment record %+v: want a control in [0, 1]", r)
			}
			aligned++
			n++
			continue
		}
		if r.Alignment != nil || r.AlignmentInit != nil {
			t.Errorf("record %+v: alignment outside its own line", r)
		}
		if r.ARI == nil || r.Corr == nil && r.View != "weights" {
			t.Errorf("record %+v lacks ARI or correlation", r)
		}
		if r.View == "ground_truth" && *r.Corr < 0.999999 {
			t.Errorf("ground truth against itself: %+v", r)
		}
		n++
	}
	// 2 variants x 2 rounds x (5 sources + weights + ground truth + alignment).
	if n != 2*2*8 || aligned != 2*2 {
		t.Errorf("%d records (%d of alignment), want 32 (4)", n, aligned)
	}
	for _, p := range []string{"sim-apv/r001-apv.png", "sim-apv/r003-functional.png", "sim-readout_mix-off_alpha-auto_partners-4_score-maxnorm/r003-ground_truth.png"} {
		if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.Size() == 0 {
			t.Errorf("heat map %s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "similarity.md")); err != nil {
		t.Error(err)
	}
	if err := similarityCmd([]string{"-log", "x.jsonl"}, &stdout, &stderr); err == nil {
		t.Error("-log accepted")
	}
}

func TestTableCmdErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	for _, args := range [][]string{
		{"-table", "figure"},
		{"-clients", "10,x"},
		{"-algos", "fedsgd", "-datasets", "cora", "-clients", "10", "-out", t.TempDir()},
		{"-datasets", "nowhere", "-out", t.TempDir()},
		{"-mu", "-1", "-out", t.TempDir()},
		{"-rounds", "-2"},
	} {
		if err := tableCmd(args, &stdout, &stderr); err == nil {
			t.Errorf("table %v accepted", args)
		}
	}
}
