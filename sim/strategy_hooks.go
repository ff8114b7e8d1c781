package sim

import "github.com/fedaux/fedaux/gnn"

// ClientSide is what a strategy asks of its clients beyond the shared
// training loop (local epochs of full-batch Adam on the cross-entropy).
// The zero value asks nothing.
type ClientSide struct {
	// ProxMu, when positive, adds FedProx's proximal term
	// (mu/2)||theta - theta_start||^2 over the shared parameters to the
	// local objective, theta_start being the parameters the client
	// received at the start of the round (Li et al., MLSys 2020, Eq. 2).
	ProxMu float64
	// Update reports theta_end - theta_start over the shared parameters
	// as the SourceUpdate signature (GCFL's dW).
	Update bool
	// GTA, when not nil, asks for FedGTA's signature (the SourceMoments
	// moments and the smoothing confidence in Update.Weight; see
	// gtaSignature).
	GTA *gtaClient
	// LDP, when not nil, clips every gradient and noises every step
	// (FedGNN's local differential privacy; see ldp).
	LDP *ldp
	// Expansion asks the client to send its boundary nodes' first-layer
	// embeddings before each round and to train on the graph expanded
	// with those of its cut-edge neighbours (FedGNN; see exchange).
	Expansion bool
}

// needsStart reports whether the client must keep the parameters it
// started the round with.
func (s ClientSide) needsStart() bool { return s.ProxMu > 0 || s.Update }

// clientSider is implemented by strategies whose clients do more than the
// shared loop.
type clientSider interface {
	ClientSide() ClientSide
}

// clientSide returns what st asks of its clients.
func clientSide(st Strategy) ClientSide {
	if cs, ok := st.(clientSider); ok {
		return cs.ClientSide()
	}
	return ClientSide{}
}

// flattenInto appends the values of params, in order, to dst[:0].
func flattenInto(dst []float64, params []*gnn.Param) []float64 {
	dst = dst[:0]
	for _, p := range params {
		dst = append(dst, p.Value...)
	}
	return dst
}

// proximal adds the gradient of (mu/2)||theta - ref||^2, mu (theta - ref),
// to the gradients of params (ref holds their values in layout order) and
// returns the term's value.
func proximal(params []*gnn.Param, ref []float64, mu float64) float64 {
	var sq float64
	off := 0
	for _, p := range params {
		r := ref[off : off+len(p.Value)]
		for i, v := range p.Value {
			d := v - r[i]
			sq += d * d
			p.Grad[i] += mu * d
		}
		off += len(p.Value)
	}
	return mu / 2 * sq
}

// difference returns a - b as a new vector.
func difference(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return d
}

// Stateful is implemented by strategies that carry state from one round
// to the next (GCFL's clusters), so that a checkpoint can save it after a
// round and restore it into a fresh engine's strategy before the next.
type Stateful interface {
	MarshalState() ([]byte, error)
	UnmarshalState([]byte) error
}
