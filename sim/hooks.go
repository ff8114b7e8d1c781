package sim

import "github.com/fedaux/fedaux/gnn"

// The optional hooks of a Strategy. A method's Strategy implements the
// four methods of Strategy and any of the interfaces below; the engine
// checks for each with a type assertion. All are called from the
// engine's goroutine (the one calling Engine.Step) unless said otherwise,
// never concurrently with each other for one engine.
//
//   - ClientSider: the shared client loop's built-in extras (FedProx's
//     proximal term, GCFL's update signature, FedGTA's moments, FedGNN's
//     local differential privacy and graph expansion).
//   - ClientHooker: code of the method's own in every in-process client
//     (SCAFFOLD's control variates): a per-client object called at the
//     start of each round, after each backward pass and at the end.
//   - Broadcaster: a vector the server sends every client at the start
//     of a round beside its parameters (Message.Extra).
//   - ViewUser: the similarity views (signatures) Mix reads.
//   - Relayer: the server relays what clients send before a round
//     (FedGNN's boundary embeddings).
//   - RunnerBuilder: the method builds its own clients (FedSage+).
//   - LateSigner: such a client can give its signatures between rounds
//     (Engine.Complete), as the shared Client does.
//   - Phaser: the rounds fall into named phases (FedSage+).
//   - Stateful: the strategy carries state across rounds, saved in
//     checkpoints (GCFL's clusters, SCAFFOLD's server control variate).
//   - PartialMixer: a stateful Mix accepts rounds some clients missed.
//
// Per round the engine: calls Broadcast for every client (client
// order); runs the clients (Workers at a time), each loading its mixed
// parameters, calling its ClientHook's Start, training Epochs local steps
// (forward, backward, ClientSide's extras, ClientHook.Gradient,
// optimiser step), evaluating, and calling ClientHook.Finish; then calls
// Mix once with the updates of the clients present, in client order; and
// mixes the shared parameters with Mixing.W (Eq. 6). Whatever the number
// of workers, the numbers are the same for a seed: every client owns its
// random stream, and Mix sees the updates in client order.

// ClientSider is implemented by strategies whose clients do more than the
// shared loop, in one of the ways ClientSide lists.
type ClientSider interface {
	ClientSide() ClientSide
}

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
	// moments and the smoothing confidence in Update.Weight).
	GTA *GTAClient
	// LDP, when not nil, clips every gradient and noises every step
	// (FedGNN's local differential privacy; see LDP).
	LDP *LDP
	// Expansion asks the client to send its boundary nodes' first-layer
	// embeddings before each round and to train on the graph expanded
	// with those of its cut-edge neighbours (FedGNN; see Relayer).
	Expansion bool
}

// needsStart reports whether the client must keep the parameters it
// started the round with.
func (s ClientSide) needsStart() bool { return s.ProxMu > 0 || s.Update }

// clientSide returns what st asks of its clients.
func clientSide(st Strategy) ClientSide {
	if cs, ok := st.(ClientSider); ok {
		return cs.ClientSide()
	}
	return ClientSide{}
}

// ClientHooker is implemented by strategies that run code of their own
// in every in-process client (Client): the engine calls ClientHook once
// per client when it builds the client (client is its index in
// Data.Clients) and keeps the hook for the run. Not called for the
// clients of a RunnerBuilder.
type ClientHooker interface {
	ClientHook(client int) ClientHook
}

// A ClientHook is a method's code inside one client. Its methods are
// called from the goroutine that runs the client's round, never two at
// once for one client; different clients' hooks run concurrently, so a
// hook shares nothing mutable with the others nor with the strategy (the
// server's part reaches it through Message.Extra only). shared are the
// client's shared parameters (those Strategy.Shares), in layout order,
// the order of Update.Shared. A hook that implements Stateful is saved
// in checkpoints with its client (ClientState.Hook) and restored before
// the next round.
type ClientHook interface {
	// Start is called at the start of each round the client takes part
	// in, after the server's parameters are loaded, with the round's
	// message (Message.Extra holds what Broadcast returned).
	Start(msg *Message, shared []*gnn.Param) error
	// Gradient is called in every local epoch after the backward pass
	// (and ClientSide's proximal term), before the optimiser's step: it
	// may change the shared parameters' gradients (Param.Grad).
	Gradient(shared []*gnn.Param)
	// Finish is called after the local epochs and the evaluation, with
	// the update about to be sent: it may set up.Extra, the vector the
	// server's Mix receives beside the parameters.
	Finish(up *Update, shared []*gnn.Param) error
}

// Broadcaster is implemented by strategies whose server sends its clients
// more than their parameters: Broadcast returns client's Message.Extra
// for the round (nil: none). It is called before the round's clients
// run, in client order (client indexes Data.Clients); the vector is
// read, never written, by the client.
type Broadcaster interface {
	Broadcast(round, client int) []float64
}

// ViewUser is implemented by strategies whose weights read similarity
// views: Uses lists the signatures whose views Mix reads
// (RoundInput.Views), which the engine then asks the clients for.
type ViewUser interface {
	Uses() []Source
}

// Relayer is implemented by strategies whose server relays boundary
// embeddings before each round (FedGNN, with ClientSide.Expansion): Relay
// gets every present client's Boundary, in client order (nil for a
// client that is absent), and returns each client's Remote.
type Relayer interface {
	Relay(bs []*Boundary) []*Remote
}

// RunnerBuilder is implemented by strategies whose clients are not the
// shared Client (FedSage+): New asks BuildRunners for one ClientRunner
// per client of data, in order. Runners that are to be checkpointed
// implement State and SetState (see ClientState).
type RunnerBuilder interface {
	BuildRunners(cfg *Config, data *Data) ([]ClientRunner, error)
}

// Phaser is implemented by strategies whose rounds fall into phases:
// Phase names round's phase (RoundReport.Phase).
type Phaser interface {
	Phase(round int) string
}

// phaseOf returns the phase of round under st ("" when st has none).
func phaseOf(st Strategy, round int) string {
	if p, ok := st.(Phaser); ok {
		return p.Phase(round)
	}
	return ""
}

// Stateful is implemented by strategies that carry state from one round
// to the next (GCFL's clusters), so that a checkpoint can save it after a
// round and restore it into a fresh engine's strategy before the next.
// A strategy that holds pointers, maps or slices and is not Stateful
// cannot be checkpointed. A ClientHook may implement it too.
type Stateful interface {
	MarshalState() ([]byte, error)
	UnmarshalState([]byte) error
}

// PartialMixer is implemented by a stateful strategy whose Mix accepts the
// updates of a subset of the clients (identified by Update.ID), as rounds
// that some clients miss give it. Stateless strategies always do.
type PartialMixer interface {
	MixesPartialRounds() bool
}
