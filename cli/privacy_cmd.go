package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fedaux/fedaux/privacy"
	"github.com/fedaux/fedaux/sim"
	"github.com/fedaux/fedaux/study"
)

// privacyCmd runs the membership inference study: `fedaux privacy
// [-preset cora-10] [-algos fedaux,fedavg,fedpub,fedgnn,fedgta] [-seeds 5]
// [-seed 0] [-nonmembers test|other] [-out DIR]`.
func privacyCmd(args []string, stdout, stderr io.Writer) error {
	f := newRunFlags("privacy", "cora-10", stderr)
	algos := f.fs.String("algos", "fedaux,fedavg,fedpub,fedgnn,fedgta", "comma-separated algorithms (fedsage_plus has no probe)")
	out := f.fs.String("out", "", "output `dir`: results (every client's attack AUCs in each run's extra) and privacy.md (default ./runs/privacy-<presets>)")
	nonMembers := f.fs.String("nonmembers", "test", "non-members the report sets beside the paper's AUCs: test (a sample of the client's test nodes) or other (of other clients' nodes); every run computes both")
	render := f.fs.Bool("render", false, "only write privacy.md from the results in -out")
	skipMissing := f.fs.Bool("skip-missing", false, "run the runs whose data files are present and skip the others, instead of failing before any runs")
	f.fs.Lookup("seed").DefValue = "0" // the paper's seeds 0-4 (docs/method.md#membership-inference)
	if err := f.parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("privacy: unexpected argument %q", f.fs.Arg(0))
	}
	nm, err := privacy.ParseNonMembers(*nonMembers)
	if err != nil {
		return fmt.Errorf("-nonmembers: %q, want test or other", *nonMembers)
	}
	ps, err := f.scenarios()
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		return fmt.Errorf("privacy: -preset or -scenario is required (see 'fedaux presets')")
	}
	base, err := f.apply(sim.DefaultConfig())
	if err != nil {
		return err
	}
	seed := uint64(0)
	if f.isSet("seed") {
		seed = base.Seed
	}
	as, err := parseAlgos(*algos)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = defaultOut("privacy", ps)
	}
	opts := privacy.Options{
		Grid: f.grid(ps, as, seed, *skipMissing),
		Out:  dir, NonMembers: nm, Recorder: study.Progress(stderr, "privacy: "),
	}
	md := filepath.Join(dir, privacy.MarkdownFile)
	if *render {
		if err := renderDir(dir); err != nil {
			return err
		}
		res, err := privacy.Load(opts)
		if err != nil {
			return flagError(err)
		}
		if err := renderable(res, stderr, "privacy: ", dir, md); err != nil {
			return err
		}
		if err := res.WriteFiles(); err != nil {
			return flagError(err)
		}
		return printFile(stdout, md)
	}
	it := study.CatchInterrupts(stderr)
	defer it.Release()
	opts.Interrupts = it
	st, err := privacy.Run(it.Context(), opts)
	if ierr := interrupted(err, it, stderr, "privacy", md); ierr != nil {
		return ierr
	}
	if err != nil {
		return flagError(studyError(err))
	}
	if err := printFile(stdout, md); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d runs (%d already there, %d run now%s), results in %s\n", md, st.Mine, st.Reused, st.Ran, skippedNote(st.Stats), dir)
	return nil
}

// printFile copies the file at path to w.
func printFile(w io.Writer, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
