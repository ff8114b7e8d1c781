package similarity

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/internal/tiny"
)

// TestRunLoadRender runs a tiny study (two variants, two seeds), checks
// its scores and files, runs it again (nothing recomputed) and checks
// that Load and Render give the Markdown Run wrote.
func TestRunLoadRender(t *testing.T) {
	dir := t.TempDir()
	p := tiny.Preset("tiny-4", 4)
	base := p.Config()
	base.Seed, base.Workers = 1, 1
	vs, err := ParseVariants("sim=apv;sim=pc1", base.Alpha, 0)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Preset: p, Base: base, Variants: vs, Seeds: 2, At: []int{1, 3}, Out: dir}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 4 {
		t.Errorf("ran %d runs, want 4", res.Ran)
	}
	rounds := map[string]map[int]bool{}
	for _, s := range res.Scores {
		if rounds[s.Variant] == nil {
			rounds[s.Variant] = map[int]bool{}
		}
		rounds[s.Variant][s.Round] = true
		if s.View != AlignmentView && (s.ARI == nil || s.Corr == nil) {
			t.Errorf("%s round %d view %s: ARI %v, r %v; want both (the tiny preset has groups)", s.Variant, s.Round, s.View, s.ARI, s.Corr)
		}
	}
	for _, v := range vs {
		if r := rounds[v.Name()]; len(r) != 2 || !r[1] || !r[3] {
			t.Errorf("variant %s scored at rounds %v, want 1 and 3", v.Name(), r)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Similarity views on tiny-4", "seeds 1..2", "## " + vs[0].Name(), "## " + vs[1].Name(), "| view | r @1 | ARI @1 | r @3 | ARI @3 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("%s lacks %q:\n%s", MarkdownFile, want, md)
		}
	}
	jl, err := os.ReadFile(filepath.Join(dir, JSONLFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(jl), "\n"); n != len(res.Scores) {
		t.Errorf("%s has %d lines, want one per score (%d)", JSONLFile, n, len(res.Scores))
	}
	again, err := Run(context.Background(), opts)
	if err != nil || again.Ran != 0 {
		t.Fatalf("rerun: %+v, %v; want nothing run", again, err)
	}
	loaded, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, loaded); err != nil {
		t.Fatal(err)
	}
	if b.String() != string(md) {
		t.Errorf("Load and Render give\n%s\nwant what Run wrote:\n%s", b.String(), md)
	}
}
