package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// runFlags are the flags shared by `run` and the console. A flag left
// unset keeps the preset's value.
type runFlags struct {
	fs        *flag.FlagSet
	preset    string
	dataDir   string
	partition string
	algo      string
	rounds    int
	epochs    int
	hidden    int
	layers    int
	lr        float64
	wd        float64
	alpha     alphaFlag
	partners  float64
	source    string
	apvMix    string
	sigma     float64
	mu        float64
	tau       float64
	eps1      float64
	eps2      float64
	score     string
	kernel    string
	seed      uint64
	seeds     int
	workers   int
	logPath   string
	asJSON    bool
	matrix    bool
	cpuProf   string
	memLimit  string
	memProf   string
	exportDir string

	// Reliability (`run` only, but -model-dropout): see checkpoint.go.
	modelDropout  float64
	clientDropout float64
	checkpoint    string
	ckEvery       int
	resume        string
}

func newRunFlags(name, defaultPreset string, out io.Writer) *runFlags {
	f := &runFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	fs := f.fs
	fs.SetOutput(out)
	d := sim.DefaultConfig()
	fs.StringVar(&f.preset, "preset", defaultPreset, "scenario `name` (see 'fedaux presets')")
	fs.StringVar(&f.dataDir, "data", "", "data `dir` (default $FEDAUX_DATA, else ../shared/data, else ~/.local/share/fedaux)")
	fs.StringVar(&f.partition, "partition", "", "how to form clients on real data: ref (the reference METIS file, default when present) or multilevel (our partitioner)")
	fs.StringVar(&f.algo, "algo", d.Algo, "algorithm: "+strings.Join(sim.Algorithms(), ", "))
	fs.IntVar(&f.rounds, "rounds", d.Rounds, "communication rounds")
	fs.IntVar(&f.epochs, "epochs", d.Epochs, "local epochs per round")
	fs.IntVar(&f.hidden, "hidden", d.Hidden, "hidden width d")
	fs.IntVar(&f.layers, "layers", d.Layers, "GCN layers L: 1, 2 or 3")
	fs.Float64Var(&f.lr, "lr", d.LR, "Adam learning rate")
	fs.Float64Var(&f.wd, "wd", d.WD, "weight decay (coupled L2)")
	f.alpha.v = d.Alpha
	fs.Var(&f.alpha, "alpha", "server temperature alpha (Eq. 4), >= 0, or auto (per-client alpha for -partners effective partners)")
	fs.Float64Var(&f.partners, "partners", 4, "with -alpha auto: target effective number of partners per client (exp of the weights' entropy)")
	fs.StringVar(&f.source, "sim", d.Source, "similarity source for FedAux's weights: apv, apv-delta, pc1, readout, functional")
	fs.StringVar(&f.apvMix, "apv-mix", "on", "on: the server mixes the APV too (Eq. 6); off: each client keeps its own APV")
	fs.Float64Var(&f.sigma, "sigma", d.Sigma, "kernel bandwidth sigma (Eq. 5), > 0")
	fs.Float64Var(&f.mu, "mu", d.Mu, "fedprox: proximal coefficient mu of (mu/2)||theta - theta_global||^2")
	fs.Float64Var(&f.tau, "tau", d.Tau, "fedpub: server temperature tau of exp(tau * cosine) (FED-PUB's Cora scripts: 3)")
	fs.Float64Var(&f.eps1, "eps1", d.GCFLEps1, "gcfl: a cluster splits when the norm of its mean update is below eps1 ...")
	fs.Float64Var(&f.eps2, "eps2", d.GCFLEps2, "gcfl: ... and its largest update norm above eps2")
	fs.StringVar(&f.score, "score", d.Score.String(), "APV score: cosine (reference code) or maxnorm (paper text)")
	fs.StringVar(&f.kernel, "kernel", d.Kernel, "kernel transform: auto, dense or fast")
	fs.Uint64Var(&f.seed, "seed", d.Seed, "random seed")
	fs.IntVar(&f.seeds, "seeds", 1, "run seeds seed..seed+N-1 and report mean and std")
	fs.IntVar(&f.workers, "workers", 0, "clients trained at once (default: number of CPUs)")
	fs.StringVar(&f.logPath, "log", "", "append the JSON Lines run log to `file`")
	fs.StringVar(&f.memLimit, "memlimit", "", "soft memory limit for the Go runtime, e.g. 1700MiB or 2GiB (default: $GOMEMLIMIT, else the preset's, else none)")
	fs.StringVar(&f.cpuProf, "cpuprofile", "", "write a CPU profile to `file` (go tool pprof)")
	fs.StringVar(&f.memProf, "memprofile", "", "write a heap profile to `file` at the end")
	fs.BoolVar(&f.matrix, "matrix", false, "print the last round's similarity and weight matrices, and every similarity view's agreement with the true groups")
	fs.BoolVar(&f.asJSON, "json", false, "print a JSON summary object as the last line of stdout")
	fs.Float64Var(&f.modelDropout, "model-dropout", d.Dropout, "the model's dropout probability, 0 <= p < 1")
	if name == "run" {
		fs.Float64Var(&f.clientDropout, "dropout", 0, "probability that a client misses a round (left out of its aggregation), 0 <= p < 1")
		fs.StringVar(&f.checkpoint, "checkpoint", "", "save checkpoints to `file` (every -checkpoint-every rounds, and at an interrupt)")
		fs.IntVar(&f.ckEvery, "checkpoint-every", 0, "save a checkpoint every `N` rounds (0: only at an interrupt)")
		fs.StringVar(&f.resume, "resume", "", "continue the run checkpointed in `file` (its settings; -workers, -log, -data, -checkpoint may change)")
	}
	fs.StringVar(&f.exportDir, "export", "", "write the run log, a metrics CSV and PNG plots (convergence; heat maps of the weights, the ground truth and every similarity view) into `dir` (auto: ./runs/<preset>-<timestamp>); in the console, the export prompt's default")
	return f
}

// parseBytes reads a size such as 1700MiB, 2GiB or 500000000.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}, {"", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || v <= 0 {
				break
			}
			return int64(v * u.mult), nil
		}
	}
	return 0, fmt.Errorf("%q: want a positive size such as 1700MiB or 2GiB", s)
}

// alphaFlag is -alpha: a number, or "auto".
type alphaFlag struct {
	v    float64
	auto bool
}

func (a *alphaFlag) String() string {
	if a.auto {
		return "auto"
	}
	return strconv.FormatFloat(a.v, 'g', -1, 64)
}

func (a *alphaFlag) Set(s string) error {
	if s == "auto" {
		a.auto = true
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number or auto")
	}
	a.v, a.auto = v, false
	return nil
}

// env returns where the preset reads its data.
func (f *runFlags) env() presets.Env {
	return presets.Env{DataDir: presets.DataDir(f.dataDir), Partition: f.partition}
}

// config returns the preset's settings overridden by the flags the user set.
func (f *runFlags) config() (*presets.Preset, sim.Config, error) {
	p, err := presets.Get(f.preset)
	if err != nil {
		return nil, sim.Config{}, fmt.Errorf("-preset: %w", err)
	}
	c, err := f.apply(p.Config())
	if err != nil {
		return nil, c, err
	}
	return p, c, nil
}

// apply returns c overridden by the flags the user set, validated.
func (f *runFlags) apply(c sim.Config) (sim.Config, error) {
	var bad error
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "algo":
			c.Algo = f.algo
		case "rounds":
			c.Rounds = f.rounds
		case "epochs":
			c.Epochs = f.epochs
		case "hidden":
			c.Hidden = f.hidden
		case "layers":
			c.Layers = f.layers
		case "lr":
			c.LR = f.lr
		case "wd":
			c.WD = f.wd
		case "alpha":
			if f.alpha.auto {
				c.Partners = f.partners
			} else {
				c.Alpha = f.alpha.v
			}
		case "partners":
			c.Partners = f.partners // a target implies auto alpha
		case "sim":
			c.Source = f.source
		case "apv-mix":
			switch f.apvMix {
			case "on":
				c.APVMix = true
			case "off":
				c.APVMix = false
			default:
				bad = fmt.Errorf("-apv-mix: %q, want on or off", f.apvMix)
			}
		case "sigma":
			c.Sigma = f.sigma
		case "mu":
			c.Mu = f.mu
		case "tau":
			c.Tau = f.tau
		case "eps1":
			c.GCFLEps1 = f.eps1
		case "eps2":
			c.GCFLEps2 = f.eps2
		case "score":
			s, err := gnn.ParseScoreKind(f.score)
			if err != nil {
				bad = fmt.Errorf("-score: %w", err)
			}
			c.Score = s
		case "kernel":
			c.Kernel = f.kernel
		case "seed":
			c.Seed = f.seed
		case "workers":
			c.Workers = f.workers
		case "model-dropout":
			c.Dropout = f.modelDropout // checked by c.Validate
		}
	})
	if bad != nil {
		return c, bad
	}
	if f.seeds < 1 {
		return c, fmt.Errorf("-seeds: %d, want >= 1", f.seeds)
	}
	return c, flagError(c.Validate())
}

// settingFlags maps the settings whose flag is not "-" + their name.
var settingFlags = map[string]string{"dropout": "model-dropout", "apv_mix": "apv-mix"}

// flagName returns the flag of a setting (sim.Settings), or of the
// setting a "KEY: ..." message starts with, without its dash.
func flagName(s string) string {
	key, rest, _ := strings.Cut(s, ":")
	if f, ok := settingFlags[key]; ok {
		key = f
	}
	if rest != "" {
		return key + ":" + rest
	}
	return key
}

// flagError says a library's setting error in flag names: sim's "sim:
// rounds = 0, want >= 1" becomes "-rounds: 0, want >= 1".
func flagError(err error) error {
	var se *sim.SettingError
	if errors.As(err, &se) {
		return fmt.Errorf("-%s: %s, want %s", flagName(se.Key), se.Value, se.Want)
	}
	return err
}
