package sim

import (
	"math"
	"math/rand/v2"

	"github.com/fedaux/fedaux/gnn"
)

// remoteCap is the most remote neighbours a node takes in FedGNN's graph
// expansion (docs/method.md#fedgnn; FedPerGNN's const.py: NEIGHBOR_LEN 100).
const remoteCap = 100

// LDP is local differential privacy on the client (FedGNN's; see
// ClientSide.LDP): before each optimiser step every parameter tensor's
// gradient is clipped to norm Clip, after it every parameter value
// receives Laplace(0, lambda) noise, lambda = LR 2 Clip / (sqrt(|Tr_k|)
// Eps), drawn from the client's own random stream.
type LDP struct {
	Clip, Eps, LR float64
}

// clip scales each tensor's gradient g to ||g||_2 <= delta.
func (l *LDP) clip(params []*gnn.Param) {
	for _, p := range params {
		n := math.Sqrt(dot(p.Grad, p.Grad))
		if n > l.Clip {
			s := l.Clip / n
			for i := range p.Grad {
				p.Grad[i] *= s
			}
		}
	}
}

// scale returns lambda = lr 2 delta / (sqrt(train) eps).
func (l *LDP) scale(train int) float64 {
	return l.LR * 2 * l.Clip / (math.Sqrt(float64(train)) * l.Eps)
}

// noise adds Laplace(0, lambda) noise to every parameter value, drawn
// from rng in parameter order: lambda E with E ~ Exp(1) (rng.ExpFloat64,
// a ziggurat, mostly free of logarithms) and a random sign, the signs
// taken 64 at a time from one rng.Uint64.
func (l *LDP) noise(params []*gnn.Param, train int, rng *rand.Rand) {
	b := l.scale(train)
	var signs uint64
	left := 0
	for _, p := range params {
		for i := range p.Value {
			if left == 0 {
				signs, left = rng.Uint64(), 64
			}
			x := b * rng.ExpFloat64()
			if signs&1 != 0 {
				x = -x
			}
			signs >>= 1
			left--
			p.Value[i] += x
		}
	}
}

// parseOnOff reads an on/off setting named key ("true" and "false" too).
func parseOnOff(key, s string) (bool, error) {
	switch s {
	case "on", "true":
		return true, nil
	case "off", "false":
		return false, nil
	}
	return false, &SettingError{key, s, "on or off"}
}
