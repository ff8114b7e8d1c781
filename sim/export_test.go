package sim

import (
	"github.com/fedaux/fedaux/gnn"
	"gonum.org/v1/gonum/mat"
)

// What sim's external tests (package sim_test, which may import package
// methods and so run the built-in methods) need of its internals.

// Test helpers (helpers_test.go).
var (
	SmallData   = smallData
	SmallConfig = smallConfig
	RunEngine   = runEngine
	StripTimes  = stripTimes
	SetOpts     = setOpts
	SettingKey  = settingKey
	Unregister  = unregister
)

// Internals.
const (
	CheckpointFormat = checkpointFormat
	CheckpointMagic  = checkpointMagic
)

var (
	DecodeCheckpoint = decodeCheckpoint
	Float32Methods   = float32Methods
	FmtKnobLimit     = fmtKnobLimit
	MayKeepState     = mayKeepState
	ResumeFile       = resumeFile
	SameRound        = sameRound
	SoftmaxStats     = softmaxStats
)

// SettingReaders returns the methods that read setting key (nil: all).
func SettingReaders(key string) []Algorithm { return lookup(key).algos }

// ClientOf returns engine e's in-process client k.
func ClientOf(e *Engine, k int) *Client { return e.runners[k].(*Client) }

// Borrow lends the client's model its scratch memory (see borrow).
func (c *Client) Borrow() (giveBack func()) { return c.borrow() }

// Model returns the client's model.
func (c *Client) Model() *gnn.Model { return c.model }

// Input returns the client's input.
func (c *Client) Input() gnn.Input { return c.input }

// Proxy returns FED-PUB's proxy graph as the client holds it.
func (c *Client) Proxy() gnn.Input { return *c.proxy }

// GTASignature computes the client's FedGTA signature (see gtaSignature).
func (c *Client) GTASignature(logits *mat.Dense, up *Update) error {
	return c.gtaSignature(logits, up)
}

// SentBoundary returns the embeddings of the client's last Boundary.
func (c *Client) SentBoundary() [][]float64 { return c.cut.sent }

// Pending returns the messages of the next round (nil entries: none).
func (e *Engine) Pending() []*Message { return e.pending }

// SetStrategy replaces the engine's strategy.
func (e *Engine) SetStrategy(st Strategy) { e.strategy = st }

// SetSigma sets the engine's sigma knob without the checks of SetKnob.
func (e *Engine) SetSigma(v float64) { e.knobs.Sigma = v }

// EnsureProxy builds FED-PUB's proxy graph when sources ask for it.
func (e *Engine) EnsureProxy(sources []Source) error { return e.ensureProxy(sources) }
