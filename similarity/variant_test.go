package similarity

import (
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

func TestParseVariants(t *testing.T) {
	base := sim.DefaultConfig()
	grid, err := ParseVariants("grid", base.Alpha, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(grid) != 2*2*len(sim.Sources()) {
		t.Fatalf("grid has %d variants, want %d", len(grid), 4*len(sim.Sources()))
	}
	seen := map[string]bool{}
	for _, v := range grid {
		if seen[v.Name()] || seen[v.Slug()] {
			t.Errorf("duplicate variant %s", v.Name())
		}
		seen[v.Name()], seen[v.Slug()] = true, true
		c := base
		if err := v.Apply(&c); err != nil {
			t.Errorf("%s: %v", v.Name(), err)
		}
		if (v.Alpha == "auto") != (c.Partners == 4) {
			t.Errorf("%s: partners %v", v.Name(), c.Partners)
		}
	}
	vs, err := ParseVariants("sim=pc1,mix=off,alpha=auto,partners=3; algo=fedpub", base.Alpha, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Name() != "sim=pc1,mix=off,alpha=auto,partners=3" || vs[1].Name() != "algo=fedpub" {
		t.Fatalf("variants %v", vs)
	}
	c := base
	if err := vs[0].Apply(&c); err != nil || c.Source != "pc1" || c.APVMix || c.Partners != 3 {
		t.Errorf("apply: %v %+v", err, c)
	}
	if vs, _ := ParseVariants("base", base.Alpha, 4); len(vs) != 1 || vs[0].Name() != "base" {
		t.Errorf("base: %v", vs)
	}
	vs, err = ParseVariants("score=cosine;score=maxnorm", base.Alpha, 4)
	if err != nil || len(vs) != 2 || vs[1].Name() != "score=maxnorm" || vs[1].Slug() != "score-maxnorm" {
		t.Fatalf("score variants %v: %v", vs, err)
	}
	c = base
	if err := vs[1].Apply(&c); err != nil || c.Score != gnn.MaxNorm {
		t.Errorf("apply score=maxnorm: %v, score %v", err, c.Score)
	}
	for _, bad := range []string{"sim", "color=red", "mix=maybe", "partners=x", "score=max",
		";", " ; ", "sim=apv;sim=apv", "sim=apv,sim=pc1", "mix=on,apv-mix=off"} { // nothing, a variant twice, a key twice
		if _, err := ParseVariants(bad, base.Alpha, 4); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	c = base
	if err := (Variant{Source: "nope"}).Apply(&c); err == nil {
		t.Error("unknown source accepted")
	}
}
