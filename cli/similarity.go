package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/fedaux/fedaux/similarity"
	"github.com/fedaux/fedaux/study"
)

// similarityCmd runs the similarity study: `fedaux similarity [-preset
// sbm] [-variants grid] [-seeds N] [-at 1,10,50,100] [-out DIR]`.
func similarityCmd(args []string, stdout, stderr io.Writer) error {
	f := newRunFlags("similarity", "sbm", stderr)
	variants := f.fs.String("variants", "base", "variants to run: base (the run flags as given: the paper's FedAux by default), grid (sim x apv-mix x alpha fixed/auto), or 'sim=pc1,mix=off,alpha=auto;sim=apv' (keys algo, sim, mix, alpha, partners, score)")
	atFlag := f.fs.String("at", "1,10,50,100", "comma-separated rounds to report (those beyond -rounds are dropped)")
	out := f.fs.String("out", "", "output `dir` (default ./runs/similarity-<preset>)")
	png := f.fs.Bool("png", true, "write heat maps (first seed) as PNG")
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("similarity: unexpected argument %q", f.fs.Arg(0))
	}
	p, base, err := f.config()
	if err != nil {
		return err
	}
	vs, err := similarity.ParseVariants(*variants, base.Alpha, f.partners)
	if err != nil {
		return fmt.Errorf("-variants: %w", err)
	}
	at, err := parseInts(*atFlag)
	if err != nil {
		return fmt.Errorf("-at: %w", err)
	}
	at = slices.DeleteFunc(at, func(r int) bool { return r > base.Rounds })
	slices.Sort(at)
	at = slices.Compact(at)
	if len(at) == 0 {
		return fmt.Errorf("-at: no round at or below -rounds %d", base.Rounds)
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("runs", "similarity-"+p.Name)
	}
	it := study.CatchInterrupts(stderr)
	defer it.Release()
	res, err := similarity.Run(it.Context(), similarity.Options{
		Preset: p, Env: f.env(), Base: base, Variants: vs, Seeds: f.seeds, At: at, Out: dir, PNG: *png,
		Recorder: study.Progress(stderr, "similarity: "), Interrupts: it,
	})
	if ierr := interrupted(err, it, stderr, "similarity", dir); ierr != nil {
		return ierr
	}
	if err != nil {
		return flagError(err)
	}
	return similarity.Render(stdout, res)
}
