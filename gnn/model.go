package gnn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Config describes a client model.
type Config struct {
	InFeatures int // F, input feature dimension
	Hidden     int // d, width of every GCN layer and of the embeddings
	Classes    int // C
	// Layers is the GCN depth L: 1, 2 or 3 layers (the first F -> d, the
	// rest d -> d); 0 means 2, the paper's model.
	Layers int
	// Masked gives every layer a personal mask (MaskedGCN); a plain model
	// (FedAvg's GCN) has none.
	Masked bool
	// Kernel adds the APV scores and the kernel aggregator; the classifier
	// then reads [h || z] (2d inputs).
	Kernel  bool
	Score   ScoreKind // APV score variant (Kernel only)
	Sigma   float64   // kernel bandwidth (Kernel only), > 0
	Dropout float64   // dropout probability, 0 <= p < 1
	// Gauss computes the kernel sums; nil means Dense{}.
	Gauss Gauss
	// Precision is the arithmetic of the GCN layers: F64 (the zero
	// value) or F32 (see F32).
	Precision Precision
	// Hard (with Kernel) replaces the kernel aggregate by FedAux_hard's
	// head (ablation i, see hardHead): sort by score, scale, two 1-D
	// convolutions; the classifier reads [h || conv].
	Hard bool
}

// Validate reports the first setting out of range.
func (c Config) Validate() error {
	switch {
	case c.InFeatures < 1 || c.Hidden < 1 || c.Classes < 1:
		return fmt.Errorf("gnn: model shape %d -> %d -> %d classes, want all >= 1", c.InFeatures, c.Hidden, c.Classes)
	case c.Layers < 0 || c.Layers > 3:
		return fmt.Errorf("gnn: layers %d, want 1, 2 or 3", c.Layers)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("gnn: dropout %v, want 0 <= p < 1", c.Dropout)
	case c.Kernel && (!(c.Sigma > 0) || math.IsInf(c.Sigma, 0)):
		return fmt.Errorf("gnn: sigma %v, want a finite value > 0", c.Sigma)
	case c.Kernel && c.Score != Cosine && c.Score != MaxNorm:
		return fmt.Errorf("gnn: invalid score kind %d", int(c.Score))
	case c.Precision != F64 && c.Precision != F32:
		return fmt.Errorf("gnn: precision %v, want f64 or f32", c.Precision)
	case c.Hard && !c.Kernel:
		return errors.New("gnn: the hard head needs Kernel (it reads the APV scores)")
	}
	return nil
}

// depth returns the number of GCN layers, with 0 meaning the default 2.
func (c Config) depth() int {
	if c.Layers == 0 {
		return 2
	}
	return c.Layers
}

// Input is a client's graph as the model reads it: the propagation
// operator of its adjacency and its node features.
type Input struct {
	Prop *Propagator
	X    Features
	// Expand, when not nil, expands one layer with remote neighbours
	// (FedGNN; see Expansion); nil for the local graph alone.
	Expand *Expansion
}

// Model is one client's network (docs/method.md#the-client-model), with L = Config.Layers
// GCN layers (docs/method.md#hyperparameter-sensitivity, "Depth x width"):
//
//	h_0    = X
//	h_l    = dropout(relu(conv_l(h_{l-1})))    l = 1..L (conv1 F -> d, the rest d -> d)
//	H      = h_L                               node embeddings, Eq. 1
//	s      = score(H, a)                       Eq. 2 (Kernel only)
//	Z      = kernel aggregate of H by s        Eq. 5 (Kernel only)
//	logits = cls([H || Z])  or  cls(H)
//
// The paper's model has L = 2 (the default): h_1 = dropout(relu(conv1(X))),
// H = dropout(relu(conv2(h_1))). Dropout acts in training mode only;
// evaluation mode also prunes the masks. The classifier with a kernel is
// computed as H W_h + agg(H W_z) + b, the same function at a fraction of
// the cost (see kernelHead). With Hard, Z is instead FedAux_hard's
// convolution of the score-sorted, score-scaled embeddings (ablation i,
// see hardHead).
type Model struct {
	cfg    Config
	layers []gcnLayer // conv1 .. convL
	cls    *Linear
	head   *kernelHead // nil without Kernel, or with Hard
	hard   *hardHead   // nil without Hard
	b32    *backbone32 // the float32 layers; nil for F64
	params []*Param

	h      *mat.Dense // embeddings of the last forward
	expand *Expansion // the last forward's expansion; nil for none
	scores []float64
	ready  bool // a forward has run since the last EmbedPreReLU
	// valid is the last sparse input that check validated: the model
	// keeps forms of an input it has seen (its terms, its transpose), so
	// an input must not change while in use, and is validated once.
	valid *CSR
}

// gcnLayer is one GCN layer of the backbone with the ReLU and dropout
// that follow it.
type gcnLayer struct {
	conv *GCN
	relu ReLU
	drop Dropout
}

// NewModel builds a model and initialises it from rng: the GCN weights
// (conv1.weight, ..., convL.weight), cls.weight, cls.bias, the APV and
// the hard head are drawn in this order, so equal seeds give equal
// models. With a nil rng nothing is drawn: the weights, the biases and
// the APV start at zero and the masks at one, for a model whose values
// are then set from another's (CopyFrom).
func NewModel(cfg Config, rng *rand.Rand) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Gauss == nil {
		cfg.Gauss = Dense{}
	}
	cfg.Layers = cfg.depth()
	m := &Model{cfg: cfg, layers: make([]gcnLayer, cfg.Layers)}
	if cfg.Precision == F32 {
		m.b32 = &backbone32{}
	}
	for i := range m.layers {
		l := &m.layers[i]
		in := cfg.Hidden
		if i == 0 {
			in = cfg.InFeatures
		}
		l.conv = NewGCN(fmt.Sprintf("conv%d", i+1), in, cfg.Hidden, cfg.Masked, rng)
		// Every input after the first comes out of ReLU and dropout.
		l.conv.GradOnlyNonzero = i > 0
		l.drop.P = cfg.Dropout
		for _, p := range l.conv.Params() {
			p.f32 = cfg.Precision == F32
		}
		m.params = append(m.params, l.conv.Params()...)
	}
	in := cfg.Hidden
	if cfg.Kernel {
		in = 2 * cfg.Hidden
	}
	m.cls = NewLinear("cls", in, cfg.Classes, cfg.Masked, rng)
	m.params = append(m.params, m.cls.Params()...)
	if cfg.Kernel {
		score := NewScore(cfg.Score, cfg.Hidden, rng)
		m.params = append(m.params, score.APV)
		if cfg.Hard {
			m.hard = newHardHead(m.cls, score, cfg.Hidden, cfg.Dropout, rng)
			m.params = append(m.params, m.hard.params()...)
		} else {
			m.head = &kernelHead{cls: m.cls, score: score, agg: Kernel{Gauss: cfg.Gauss, Sigma: cfg.Sigma}}
		}
	}
	return m, nil
}

// Config returns the model's configuration (with the current sigma, and
// with Layers and Gauss resolved: 0 and nil read as 2 and Dense{}).
func (m *Model) Config() Config { return m.cfg }

// Params returns the parameters in the fixed order conv1.weight
// conv1.mask conv1.bias, then the same for conv2 up to convL, cls.weight
// cls.mask cls.bias apv (then the hard head's hard.conv1.weight
// hard.conv1.bias hard.conv2.weight hard.conv2.bias), leaving out the
// masks of a plain model and the APV of a model without kernel. The
// slice and the Params are the model's own: writing a Value changes the
// model.
func (m *Model) Params() []*Param { return m.params }

// Param returns the parameter with the given name, or nil.
func (m *Model) Param(name string) *Param {
	for _, p := range m.params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// CopyFrom sets every parameter value of m to src's (round 1:
// every client starts from the same initialisation). The models must
// have the same parameter names and shapes. Gradients are untouched.
func (m *Model) CopyFrom(src *Model) error {
	if len(src.params) != len(m.params) {
		return fmt.Errorf("gnn: copy params: %d tensors into %d", len(src.params), len(m.params))
	}
	for i, p := range m.params {
		q := src.params[i]
		if p.Name != q.Name || p.Rows != q.Rows || p.Cols != q.Cols {
			return fmt.Errorf("gnn: copy params: %s %dx%d into %s %dx%d", q.Name, q.Rows, q.Cols, p.Name, p.Rows, p.Cols)
		}
	}
	for i, p := range m.params {
		copy(p.Value, src.params[i].Value)
	}
	return nil
}

// ZeroGrad sets every gradient to zero.
func (m *Model) ZeroGrad() {
	for _, p := range m.params {
		p.ZeroGrad()
	}
}

// SetSigma sets the kernel bandwidth used from the next forward on.
func (m *Model) SetSigma(sigma float64) {
	m.cfg.Sigma = sigma
	if m.head != nil {
		m.head.agg.Sigma = sigma
	}
}

// Sigma returns the kernel bandwidth.
func (m *Model) Sigma() float64 { return m.cfg.Sigma }

// APV returns the auxiliary projection vector parameter (nil without kernel).
func (m *Model) APV() *Param {
	if m.hard != nil {
		return m.hard.score.APV
	}
	if m.head == nil {
		return nil
	}
	return m.head.score.APV
}

// check reports whether in fits the model.
func (m *Model) check(in Input) error {
	if in.Prop == nil {
		return errors.New("gnn: input has no propagator")
	}
	if in.X.Sparse == nil || in.X.Dense != nil || in.X.Sparse != m.valid {
		if err := in.X.Validate(); err != nil {
			return err
		}
		m.valid = in.X.Sparse
	}
	n, f := in.X.Dims()
	switch {
	case n != in.Prop.N():
		return fmt.Errorf("gnn: %d feature rows for a graph of %d nodes", n, in.Prop.N())
	case f != m.cfg.InFeatures:
		return fmt.Errorf("gnn: %d features, model takes %d", f, m.cfg.InFeatures)
	case n == 0:
		return errors.New("gnn: empty graph")
	}
	if in.Expand != nil {
		return in.Expand.check(m, n)
	}
	return nil
}

// Forward returns the logits (N x C) of every node. In training mode
// (train true) dropout draws from rng; in evaluation mode rng may be nil
// and masks are pruned. The result belongs to the model and is
// overwritten by the next Forward. It fails when the input does not fit
// or the Gauss transform cannot be planned. Sparse features are checked
// the first time the model sees them: it keeps forms of them, so they
// must not change while the model uses them.
func (m *Model) Forward(in Input, train bool, rng *rand.Rand) (*mat.Dense, error) {
	if err := m.check(in); err != nil {
		return nil, err
	}
	if train && m.cfg.Dropout > 0 && rng == nil {
		return nil, errors.New("gnn: training forward with dropout needs a random stream")
	}
	m.ready = false
	m.expand = in.Expand
	x := in.X
	var h *mat.Dense
	if m.b32 != nil {
		h32, err := m.b32.forward(m, in, train, rng)
		if err != nil {
			return nil, err
		}
		if m.hard == nil {
			// The head in float32; H in float64 on demand (Embeddings).
			return m.head32(h32, train)
		}
		h = m.b32.embeddings(m.cfg.Hidden)
	}
	for i := 0; m.b32 == nil && i < len(m.layers); i++ {
		l := &m.layers[i]
		var out *mat.Dense
		if e := in.Expand; e != nil && i == e.Layer {
			out = l.conv.Forward(e.Prop, x, train)
			e.forward(out, l.conv)
		} else {
			out = l.conv.Forward(in.Prop, x, train)
		}
		h = l.drop.Forward(l.relu.Forward(out), train, rng)
		x = Features{Dense: h}
	}
	m.h = h // Eq. 1
	var logits *mat.Dense
	if m.hard != nil {
		logits = m.hard.forward(h, train, rng)
		m.scores = m.hard.score.s
	} else if m.head != nil {
		var err error
		if logits, err = m.head.forward(h, train); err != nil {
			return nil, err
		}
		m.scores = m.head.score.s
	} else {
		logits = m.cls.Forward(h, train)
	}
	m.ready = true
	return logits, nil
}

// Backward takes dL/dlogits of the last Forward and adds the gradient of
// every parameter to its Grad (call ZeroGrad first for a fresh step).
func (m *Model) Backward(dLogits *mat.Dense) {
	if !m.ready {
		panic("gnn: Backward without a complete Forward")
	}
	m.ensureGrads()
	if m.b32 != nil {
		m.b32.backward(m, m.headBackward32(dLogits), false)
		return
	}
	dh := m.headBackward(dLogits)
	for i := len(m.layers) - 1; i >= 0; i-- {
		l := &m.layers[i]
		d := l.relu.Backward(l.drop.Backward(dh))
		if e := m.expand; e != nil && i == e.Layer {
			e.backward(d, l.conv)
		}
		// The first layer's input is data: no gradient for it.
		dh = l.conv.Backward(d, i > 0)
	}
}

// headBackward adds the gradients of the head's parameters (hard head,
// kernel head or classifier) and returns dL/dH.
func (m *Model) headBackward(dLogits *mat.Dense) *mat.Dense {
	if m.hard != nil {
		return m.hard.backward(dLogits)
	}
	if m.head != nil {
		return m.head.backward(dLogits, true)
	}
	return m.cls.Backward(dLogits, true)
}

// head32 runs the kernel head or the classifier in float32 on the float32
// layers' output h and returns the logits.
func (m *Model) head32(h []float32, train bool) (*mat.Dense, error) {
	b, n := &m.b32.head, m.b32.n
	var logits *mat.Dense
	if m.head != nil {
		var err error
		if logits, err = m.head.forward32(b, h, n, m.cfg.Hidden, train); err != nil {
			return nil, err
		}
		m.scores = b.s
	} else {
		logits = m.cls.forward32(b, h, n, m.cfg.Hidden, train)
	}
	m.h, m.ready = nil, true
	return logits, nil
}

// headBackward32 is headBackward for float32 layers: it returns dL/dH in
// float32 (the hard head's rounded).
func (m *Model) headBackward32(dLogits *mat.Dense) []float32 {
	switch {
	case m.head != nil:
		return m.head.backward32(&m.b32.head, dLogits)
	case m.hard == nil:
		return m.cls.backward32(&m.b32.head, dLogits)
	}
	m.b32.dh32 = denseToF32(m.b32.dh32, m.headBackward(dLogits))
	return m.b32.dh32
}

// Embeddings returns the node embeddings H (N x d, Eq. 1) of the last
// Forward. The matrix belongs to the model; copy it to keep it.
func (m *Model) Embeddings() *mat.Dense {
	if m.h == nil && m.ready && m.b32 != nil {
		m.h = m.b32.embeddings(m.cfg.Hidden)
	}
	return m.h
}

// Scores returns the APV scores s (Eq. 2) of the last Forward, or nil
// without kernel. The slice belongs to the model.
func (m *Model) Scores() []float64 {
	if m.head == nil && m.hard == nil {
		return nil
	}
	return m.scores
}

// EmbedPreReLU returns the last GCN layer's output (convL's, N x d)
// before its ReLU, in evaluation mode (no dropout, pruned masks), for
// FED-PUB's functional embedding of a proxy graph. The result is a new
// matrix. It reuses the layers' buffers, so run Forward again before the
// next Backward. It panics if the input does not fit the model.
func (m *Model) EmbedPreReLU(in Input) *mat.Dense {
	if err := m.check(in); err != nil {
		panic(err)
	}
	m.ready = false
	x := in.X
	var out *mat.Dense
	for i := range m.layers {
		l := &m.layers[i]
		out = l.conv.Forward(in.Prop, x, false)
		if i < len(m.layers)-1 {
			x = Features{Dense: l.relu.Forward(out)} // evaluation: no dropout
		}
	}
	return mat.DenseCopyOf(out)
}
