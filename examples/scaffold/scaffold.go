// Package scaffold is SCAFFOLD (Karimireddy et al., "SCAFFOLD: Stochastic
// Controlled Averaging for Federated Learning", ICML 2020) as a fedaux
// method written against the public method API only (sim.Method,
// sim.Register and the hooks of sim's hooks.go): a method fedaux does not
// have, with client state across rounds and an upload of its own. It is
// the worked example of docs/methods.md.
//
// Importing the package registers the method as "scaffold":
//
//	import _ "github.com/fedaux/fedaux/examples/scaffold"
//
// The algorithm, on FedAvg's plain GCN. The server keeps a control
// variate c, each client k its own c_k, all zero at the start; the server
// sends the global parameters x and c. Client k trains its Q local steps
// (Q = -epochs; one full-batch step each) with the gradient corrected to
//
//	g + s (c - c_k)                     (the paper's Eq. 3, s = scaffold_cv_scale)
//
// ending at y_k, then updates its control variate by the paper's option II,
//
//	c_k+ = c_k - c + (x - y_k) / (Q lr),
//
// and uploads y_k and the change c_k+ - c_k. The server sets x to the mean
// of the y_k (global step size 1, FedAvg's mixing) and c to
// c + (1/N) sum_k (c_k+ - c_k) over the clients that took part, N the
// number of clients (Eq. 5). Only the shared parameters (all of the plain
// GCN's) carry control variates.
//
// The optimiser is fedaux's Adam, as in OpenFGL's SCAFFOLD (the
// correction is added to the gradient before the Adam step), not the
// paper's SGD: option II's (x - y_k) / (Q lr) then estimates an average
// Adam direction rather than an average gradient. At s = 0 the
// correction vanishes and the run is FedAvg's, bit for bit.
package scaffold

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
)

// Name is the method's name, as -algo takes it.
const Name sim.Algorithm = "scaffold"

// The method's settings.
const (
	// ScaleKey is the key of the correction's weight s.
	ScaleKey = "scaffold_cv_scale"
	// UpdateKey is the key of the client control variate's update:
	// UpdateOption2 or UpdateGradients.
	UpdateKey = "scaffold_update"
)

// The client control variate's updates.
const (
	// UpdateOption2 is the paper's option II, c_k+ = c_k - c + (x - y_k) / (Q lr).
	UpdateOption2 = "option2"
	// UpdateGradients is c_k+ = the mean of the client's Q raw local
	// gradients: option II itself under SGD, where
	// (x - y_k) / (Q lr) = mean(g + c - c_k), and of the gradients' scale
	// under Adam, where option II's difference is Adam's normalised steps.
	UpdateGradients = "gradients"
)

// Method returns the method's descriptor, as init registers it.
func Method() sim.Method {
	return sim.Method{
		Name:     Name,
		Display:  "SCAFFOLD",
		Describe: "SCAFFOLD: FedAvg whose clients correct their gradients by control variates, g + c - c_k (option II updates; -scaffold_cv_scale)",
		Settings: []sim.Setting{{
			Key: ScaleKey, Type: sim.Float, Default: "1", Check: sim.NonNegative,
			Doc: "scaffold: weight s of the control-variate correction g + s (c - c_k); 0 is FedAvg",
		}, {
			Key: UpdateKey, Type: sim.Choice, Default: UpdateOption2, Choices: []string{UpdateOption2, UpdateGradients},
			Doc: "scaffold: client control variate update: option2 (c_k - c + (x - y_k)/(epochs lr), the paper's) or gradients (the mean of the local gradients)",
		}},
		New: func(c *sim.Config) (sim.Strategy, error) {
			return &Strategy{Scale: c.Options.Float(ScaleKey), Steps: c.Epochs, LR: c.LR,
				Gradients: c.Options.String(UpdateKey) == UpdateGradients}, nil
		},
	}
}

func init() { sim.Register(Method()) }

// Strategy is SCAFFOLD's server. It implements sim.Strategy and the hooks
// sim.ClientHooker, sim.Broadcaster, sim.Stateful and sim.PartialMixer.
type Strategy struct {
	Scale float64 // s, the correction's weight
	Steps int     // Q, local steps per round
	LR    float64 // the optimiser's learning rate
	// Gradients selects UpdateGradients over UpdateOption2.
	Gradients bool

	c       []float64 // the server's control variate; nil until the first round's uploads
	clients int       // N, counted as the engine asks for the clients' hooks
}

// Name returns "scaffold".
func (*Strategy) Name() sim.Algorithm { return Name }

// Model asks for FedAvg's plain GCN.
func (*Strategy) Model(cfg *gnn.Config) { cfg.Masked, cfg.Kernel = false, false }

// Shares sends every parameter that is not personal (all of the plain GCN's).
func (*Strategy) Shares(p *gnn.Param) bool { return !p.Personal }

// Mix sets the next global parameters to the mean of the clients' (uniform
// weights) and adds (1/N) sum_k dc_k to the server's control variate.
func (s *Strategy) Mix(in *sim.RoundInput) sim.Mixing {
	k := len(in.Updates)
	for _, u := range in.Updates {
		if s.c == nil {
			s.c = make([]float64, len(u.Extra))
		}
		if len(u.Extra) != len(s.c) {
			panic(fmt.Sprintf("scaffold: client %d uploaded %d control values, want %d", u.ID, len(u.Extra), len(s.c)))
		}
		for j, d := range u.Extra {
			s.c[j] += d / float64(s.clients)
		}
	}
	w := make([][]float64, k)
	for i := range w {
		w[i] = make([]float64, k)
		for j := range w[i] {
			w[i][j] = 1 / float64(k)
		}
	}
	return sim.Mixing{W: w}
}

// ClientHook returns client's control variate state, zero to start.
func (s *Strategy) ClientHook(client int) sim.ClientHook {
	s.clients = max(s.clients, client+1)
	return &Client{Scale: s.Scale, Steps: s.Steps, LR: s.LR, Gradients: s.Gradients}
}

// Broadcast sends the server's control variate (nil before the first
// round's uploads: zero). Every client reads the same vector.
func (s *Strategy) Broadcast(round, client int) []float64 { return s.c }

// MixesPartialRounds reports that Mix handles rounds some clients missed
// (their c_k stay, and c moves by the others' changes over N).
func (*Strategy) MixesPartialRounds() bool { return true }

// MarshalState saves the server's control variate.
func (s *Strategy) MarshalState() ([]byte, error) { return marshalFloats(s.c), nil }

// UnmarshalState restores it.
func (s *Strategy) UnmarshalState(b []byte) (err error) {
	s.c, err = unmarshalFloats(b)
	return err
}

// Client is one client's part of SCAFFOLD: its control variate c_k and,
// during a round, the parameters it started from and the server's c.
type Client struct {
	Scale, LR float64
	Steps     int
	Gradients bool // UpdateGradients

	ck    []float64 // c_k, in the layout of the shared parameters; nil: zero
	c     []float64 // the round's server control variate; nil: zero
	start []float64 // x, the parameters the round started from
	sum   []float64 // the round's raw gradients, summed (UpdateGradients)
}

// Start keeps x and the server's c for the round.
func (k *Client) Start(msg *sim.Message, shared []*gnn.Param) error {
	k.start = k.start[:0]
	for _, p := range shared {
		k.start = append(k.start, p.Value...)
	}
	if msg.Extra != nil && len(msg.Extra) != len(k.start) {
		return fmt.Errorf("scaffold: %d control values from the server, want %d", len(msg.Extra), len(k.start))
	}
	if k.ck == nil {
		k.ck = make([]float64, len(k.start))
	}
	if len(k.ck) != len(k.start) {
		return fmt.Errorf("scaffold: a control variate of %d values for %d parameters", len(k.ck), len(k.start))
	}
	k.c = msg.Extra
	if k.Gradients {
		k.sum = append(k.sum[:0], make([]float64, len(k.start))...)
	}
	return nil
}

// Gradient adds s (c - c_k) to the shared parameters' gradients (and,
// for UpdateGradients, first adds the raw gradients to the round's sum).
func (k *Client) Gradient(shared []*gnn.Param) {
	if k.Gradients {
		off := 0
		for _, p := range shared {
			for i, g := range p.Grad {
				k.sum[off+i] += g
			}
			off += len(p.Grad)
		}
	}
	if k.Scale == 0 {
		return
	}
	off := 0
	for _, p := range shared {
		for i := range p.Grad {
			var c float64
			if k.c != nil {
				c = k.c[off+i]
			}
			p.Grad[i] += k.Scale * (c - k.ck[off+i])
		}
		off += len(p.Grad)
	}
}

// Finish applies option II, c_k+ = c_k - c + (x - y_k) / (Q lr) (or, for
// UpdateGradients, c_k+ = the mean raw gradient), and uploads c_k+ - c_k.
func (k *Client) Finish(up *sim.Update, shared []*gnn.Param) error {
	y := up.Shared
	if len(y) != len(k.start) {
		return fmt.Errorf("scaffold: %d shared values uploaded, %d at the start", len(y), len(k.start))
	}
	step := float64(k.Steps) * k.LR
	if !(step > 0) {
		return errors.New("scaffold: no local step (epochs * lr = 0)")
	}
	d := make([]float64, len(y))
	for j := range d {
		var c float64
		if k.c != nil {
			c = k.c[j]
		}
		next := k.ck[j] - c + (k.start[j]-y[j])/step
		if k.Gradients {
			next = k.sum[j] / float64(k.Steps)
		}
		d[j] = next - k.ck[j]
		k.ck[j] = next
	}
	up.Extra = d
	k.c = nil // the server's vector is read during the round only
	return nil
}

// MarshalState saves c_k.
func (k *Client) MarshalState() ([]byte, error) { return marshalFloats(k.ck), nil }

// UnmarshalState restores c_k.
func (k *Client) UnmarshalState(b []byte) (err error) {
	k.ck, err = unmarshalFloats(b)
	return err
}

// marshalFloats writes v's length and IEEE 754 bits, big endian (nil and
// empty alike write a zero length).
func marshalFloats(v []float64) []byte {
	b := make([]byte, 8, 8+8*len(v))
	binary.BigEndian.PutUint64(b, uint64(len(v)))
	for _, x := range v {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func unmarshalFloats(b []byte) ([]float64, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("scaffold: state of %d bytes, want at least 8", len(b))
	}
	n := binary.BigEndian.Uint64(b)
	if uint64(len(b)-8) != 8*n {
		return nil, fmt.Errorf("scaffold: state of %d bytes for %d values", len(b), n)
	}
	if n == 0 {
		return nil, nil
	}
	v := make([]float64, n)
	r := bytes.NewReader(b[8:])
	for i := range v {
		var u uint64
		if err := binary.Read(r, binary.BigEndian, &u); err != nil {
			return nil, err
		}
		v[i] = math.Float64frombits(u)
	}
	return v, nil
}
