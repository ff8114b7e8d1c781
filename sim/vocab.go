package sim

import (
	"slices"
	"strings"
)

// Algorithm names a federated algorithm: a client model and a server
// strategy (see Algorithms and Algorithm.Describe; docs/method.md#baselines).
type Algorithm string

// ParseAlgorithm returns the algorithm named s.
func ParseAlgorithm(s string) (Algorithm, error) {
	return parseName("algo", s, Algorithms(), algorithmsWant())
}

// algorithmsWant is what an algo setting wants: one of the registered
// methods, or, when none is, the import that registers fedaux's.
func algorithmsWant() string {
	as := Algorithms()
	if len(as) == 0 {
		return `a registered method, and none is: import _ "github.com/fedaux/fedaux/methods" (fedaux's) or a package of your own that calls sim.Register`
	}
	return "one of " + joinNames(as)
}

func (a Algorithm) String() string { return string(a) }

// MarshalText implements encoding.TextMarshaler.
func (a Algorithm) MarshalText() ([]byte, error) { return []byte(a), nil }

// UnmarshalText implements encoding.TextUnmarshaler; it accepts the
// names of Algorithms only.
func (a *Algorithm) UnmarshalText(b []byte) error { return unmarshalName(a, b, ParseAlgorithm) }

// Source names a signature whose client similarity the server may use
// for its weights (see Sources).
type Source string

// The similarity sources: the per-client vectors the server may compare.
const (
	SourceAPV        Source = "apv"        // the APV a_k (Eq. 3)
	SourceAPVDelta   Source = "apv-delta"  // this round's change of the APV
	SourcePC1        Source = "pc1"        // leading eigenvector of the embedding covariance (absolute cosine)
	SourceReadout    Source = "readout"    // flattened classifier weights
	SourceFunctional Source = "functional" // FED-PUB: mean embedding of a shared random proxy graph
	// SourceUpdate is GCFL's signature, a client's parameter update of
	// the round; it is not a choice of -sim.
	SourceUpdate Source = "update"
	// SourceMoments is FedGTA's signature, the mixed moments of a
	// client's label-propagated predictions; it is not a choice of -sim.
	SourceMoments Source = "moments"
)

// Sources lists the similarity sources a user may choose.
func Sources() []Source {
	return []Source{SourceAPV, SourceAPVDelta, SourcePC1, SourceReadout, SourceFunctional}
}

// ParseSource returns the similarity source named s (one of Sources).
func ParseSource(s string) (Source, error) {
	return parseName("sim", s, Sources(), "one of "+joinNames(Sources()))
}

func (s Source) String() string { return string(s) }

// MarshalText implements encoding.TextMarshaler.
func (s Source) MarshalText() ([]byte, error) { return []byte(s), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Source) UnmarshalText(b []byte) error {
	if Source(b) == SourceUpdate || Source(b) == SourceMoments {
		*s = Source(b)
		return nil
	}
	return unmarshalName(s, b, ParseSource)
}

// Kernel selects how a client computes the kernel sums of Eq. 5.
type Kernel string

// The kernel transforms.
const (
	// KernelAuto uses the dense kernel below DenseCrossover nodes and the
	// fast Gauss transform above.
	KernelAuto Kernel = "auto"
	// KernelDense forms the N x N kernel: O(N^2 d).
	KernelDense Kernel = "dense"
	// KernelFast is the linear-time fast Gauss transform (docs/method.md#cost-and-the-fast-gauss-transform).
	KernelFast Kernel = "fast"
)

// Kernels lists the kernel transforms.
func Kernels() []Kernel { return []Kernel{KernelAuto, KernelDense, KernelFast} }

// ParseKernel returns the kernel transform named s.
func ParseKernel(s string) (Kernel, error) {
	return parseName("kernel", s, Kernels(), joinOr(Kernels()))
}

func (k Kernel) String() string { return string(k) }

// MarshalText implements encoding.TextMarshaler.
func (k Kernel) MarshalText() ([]byte, error) { return []byte(k), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kernel) UnmarshalText(b []byte) error { return unmarshalName(k, b, ParseKernel) }

// Knob names a setting a user may change between rounds (Engine.SetKnob).
type Knob string

// The live knobs.
const (
	KnobAlpha    Knob = "alpha"    // the server temperature of Eq. 4
	KnobSigma    Knob = "sigma"    // the kernel bandwidth of Eq. 5
	KnobPartners Knob = "partners" // auto alpha's target (0: fixed alpha)
)

// KnobNames lists the live knobs: alpha, sigma, partners, then the
// registered methods' live settings (Setting.Live), which are knobs of
// the runs of the methods that declare them.
func KnobNames() []Knob {
	return append([]Knob{KnobAlpha, KnobSigma, KnobPartners}, liveKnobs()...)
}

// ParseKnob returns the knob named s.
func ParseKnob(s string) (Knob, error) {
	return parseName("knob", s, KnobNames(), joinOr(KnobNames()))
}

func (k Knob) String() string { return string(k) }

// MarshalText implements encoding.TextMarshaler.
func (k Knob) MarshalText() ([]byte, error) { return []byte(k), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Knob) UnmarshalText(b []byte) error { return unmarshalName(k, b, ParseKnob) }

// parseName returns s as a T when it is one of names, else a
// SettingError for key that wants want.
func parseName[T ~string](key, s string, names []T, want string) (T, error) {
	if !slices.Contains(names, T(s)) {
		return "", &SettingError{key, s, want}
	}
	return T(s), nil
}

// unmarshalName sets *p to the name in b, parsed by parse.
func unmarshalName[T ~string](p *T, b []byte, parse func(string) (T, error)) error {
	return setName(p, string(b), parse)
}

// setName sets *p to the name s, parsed by parse; on error *p is left
// as it was.
func setName[T ~string](p *T, s string, parse func(string) (T, error)) error {
	v, err := parse(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

func joinNames[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

// joinOr spells a short list as "a, b or c".
func joinOr[T ~string](xs []T) string {
	s := joinNames(xs)
	if i := strings.LastIndex(s, ", "); i >= 0 {
		s = s[:i] + " or " + s[i+2:]
	}
	return s
}
