package sim

import (
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/fedaux/fedaux/gnn"
)

// Config holds every setting of a run. A preset fills it; flags override it.
type Config struct {
	Algo   Algorithm // see Algorithms
	Rounds int       // communication rounds R
	Epochs int       // local epochs Q per round (one epoch = one full-batch step)
	Hidden int       // hidden and embedding width d
	// Layers is the number of GCN layers L (1 to maxLayers); 0 means 2,
	// the paper's.
	Layers  int
	LR      float64 // Adam learning rate
	WD      float64 // coupled L2 weight decay
	Dropout float64 // dropout probability
	Alpha   float64 // server temperature of Eq. 4
	Sigma   float64 // kernel bandwidth of Eq. 5
	Score   gnn.ScoreKind
	Kernel  Kernel
	Seed    uint64
	Workers int // clients trained at once; 0 means GOMAXPROCS
	// Precision is the arithmetic of the clients' GCN layers: gnn.F64
	// (the zero value, every stored result) or gnn.F32 (see gnn.F32),
	// for the methods whose Method.Float32 is set.
	Precision gnn.Precision

	// Source is the signature whose similarity sets FedAux's weights
	// (see Sources); the paper's is "apv".
	Source Source
	// APVMix mixes the APV like every other parameter (Eq. 6). When false
	// each client keeps its own APV; the server still compares them.
	APVMix bool
	// Partners, when positive, turns on auto alpha ("-alpha auto") with
	// this target effective number of partners per client.
	Partners float64

	// Options holds the values of the methods' own settings
	// (Method.Settings: FedProx's mu, GCFL's eps1 and eps2, ...), set with
	// Set and read with Options.Float, Options.Int and the like.
	Options Options
}

// DefaultConfig returns the reference hyperparameters of docs/method.md#hyperparameters.
func DefaultConfig() Config {
	return Config{
		// FedAux (package methods registers it): the engine needs the
		// method only when New builds its strategy.
		Algo: Algorithm("fedaux"), Rounds: 100, Epochs: 1, Hidden: 256, Layers: 2,
		LR: 0.01, WD: 1e-6, Dropout: 0.5, Alpha: 10, Sigma: 1,
		Score: gnn.Cosine, Kernel: KernelAuto, Seed: 42,
		Source: SourceAPV, APVMix: true,
	}
}

// Validate reports the first setting that is out of range, as a
// *SettingError naming it as Settings does.
func (c *Config) Validate() error {
	if _, err := ParseAlgorithm(string(c.Algo)); err != nil {
		return err
	}
	for _, v := range []struct {
		key string
		v   int
	}{{"rounds", c.Rounds}, {"epochs", c.Epochs}, {"hidden", c.Hidden}} {
		if v.v < 1 {
			return &SettingError{v.key, strconv.Itoa(v.v), ">= 1"}
		}
	}
	if c.Layers != 0 && (c.Layers < 1 || c.Layers > maxLayers) {
		return &SettingError{"layers", strconv.Itoa(c.Layers), "1, 2 or 3"}
	}
	if err := checkRange("lr", c.LR, 0, true); err != nil {
		return err
	}
	if err := checkRange("wd", c.WD, 0, false); err != nil {
		return err
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		return &SettingError{"dropout", fmtFloat(c.Dropout), "0 <= p < 1"}
	}
	if c.Workers < 0 {
		return &SettingError{"workers", strconv.Itoa(c.Workers), ">= 0"}
	}
	for _, k := range []struct {
		name Knob
		v    float64
	}{{KnobAlpha, c.Alpha}, {KnobSigma, c.Sigma}, {KnobPartners, c.Partners}} {
		if err := ValidateKnob(k.name, k.v, 0); err != nil {
			return err
		}
	}
	if err := c.validateOptions(); err != nil {
		return err
	}
	if c.Score != gnn.Cosine && c.Score != gnn.MaxNorm {
		return &SettingError{"score", c.Score.String(), "cosine or maxnorm"}
	}
	if _, err := ParseSource(string(c.Source)); err != nil {
		return err
	}
	if err := c.validatePrecision(); err != nil {
		return err
	}
	_, err := ParseKernel(string(c.Kernel))
	return err
}

// validateOptions checks the range of every method setting c sets, then
// the method's Check.
func (c *Config) validateOptions() error {
	for _, s := range allSettings()[len(settings):] {
		if s.check == nil {
			continue
		}
		if _, set := c.Options.m[s.key]; !set {
			continue
		}
		v := s.get(c)
		if want := s.check(v); want != "" {
			return &SettingError{s.key, v, want}
		}
	}
	if m, ok := LookupMethod(c.Algo); ok && m.Check != nil {
		return m.Check(c)
	}
	return nil
}

// validatePrecision refuses an unknown precision, and f32 for the
// methods whose client model has no float32 version (Method.Float32).
func (c *Config) validatePrecision() error {
	switch c.Precision {
	case gnn.F64:
		return nil
	case gnn.F32:
		if m, ok := LookupMethod(c.Algo); ok && m.Float32 {
			return nil
		}
		return &SettingError{"precision", "f32", fmt.Sprintf("f64 for %s (f32 is implemented for %v only)", c.Algo, float32Methods())}
	}
	return &SettingError{"precision", c.Precision.String(), "f64 or f32"}
}

// float32Methods lists the registered methods whose Method.Float32 is set.
func float32Methods() []Algorithm {
	var out []Algorithm
	for _, m := range Methods() {
		if m.Float32 {
			out = append(out, m.Name)
		}
	}
	return out
}

// maxLayers is the deepest GCN a Config may ask for.
const maxLayers = 3

// NumLayers returns the number of GCN layers L (Layers; 0 means 2).
func (c *Config) NumLayers() int { return c.layers() }

// layers returns the number of GCN layers (0 means 2).
func (c *Config) layers() int {
	if c.Layers == 0 {
		return 2
	}
	return c.Layers
}

// NumWorkers returns the number of clients trained at once (Workers; 0
// means GOMAXPROCS).
func (c *Config) NumWorkers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// MinSigma is the smallest kernel bandwidth sigma a run can use. The
// kernel of Eq. 5 is K_ij = exp(-(s_i - s_j)^2 / sigma^2), and its
// backward pass scales the score gradient by -2/sigma^2 (gnn.Kernel).
// For sigma below sqrt(2/MaxFloat64) = 2^-511.5, about 1.0548e-154,
// sigma*sigma rounds to 2^-1023 or less and -2/sigma^2 overflows to
// -Inf; multiplied by a zero sum (all off-diagonal kernel entries have
// underflowed to 0, so the sum is exactly 0) it gives NaN, and the
// first epoch fails ("gradient of conv1.weight entry 0 is NaN"). At
// MinSigma and above, -2/sigma^2 is finite. It is the smallest float64
// whose square times 1/2 is at least 1/MaxFloat64 in float64 arithmetic.
var MinSigma = minSigma()

func minSigma() float64 {
	s := math.Sqrt(2 / math.MaxFloat64)
	for math.IsInf(-2/(s*s), 0) {
		s = math.Nextafter(s, 1)
	}
	for t := math.Nextafter(s, 0); !math.IsInf(-2/(t*t), 0); t = math.Nextafter(s, 0) {
		s = t
	}
	return s
}

// fmtKnobLimit formats a limit rounded up to 4 significant digits, so
// that the value printed is itself allowed.
func fmtKnobLimit(v float64) string {
	s := strconv.FormatFloat(v, 'e', 3, 64)
	if r, _ := strconv.ParseFloat(s, 64); r < v {
		s = strconv.FormatFloat(r+math.Pow(10, math.Floor(math.Log10(v))-3), 'e', 3, 64)
	}
	return s
}

// ValidateKnob checks a value of a live knob ("alpha", "sigma",
// "partners" or a method's live setting, see KnobNames) for a federation of clients clients (0: any number); the
// error is a *SettingError.
func ValidateKnob(name Knob, v float64, clients int) error {
	bad := func(want string) error { return &SettingError{string(name), fmtFloat(v), want} }
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return bad("a finite number")
	}
	switch name {
	case KnobAlpha:
		if v < 0 {
			return bad(">= 0")
		}
	case KnobSigma:
		if v <= 0 {
			return bad("> 0")
		}
		if v < MinSigma {
			return bad(fmt.Sprintf(">= %s (below it the kernel's 2/sigma^2 overflows float64 and rounds fail with NaN gradients)", fmtKnobLimit(MinSigma)))
		}
	case KnobPartners:
		if v != 0 && v < 1 {
			return bad(">= 1 (or 0 for a fixed alpha)")
		}
		if clients > 0 && v > float64(clients) {
			return bad(fmt.Sprintf("<= %d, the number of clients", clients))
		}
	default:
		if s := liveSetting(string(name)); s != nil {
			return validateLive(s, v)
		}
		return &SettingError{string(name), fmtFloat(v), "a knob: " + joinOr(KnobNames())}
	}
	return nil
}
