package sim

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/internal/atomicfile"
)

// A checkpoint file is checkpointMagic, the payload's length (8 bytes, big
// endian), the payload (a gob-encoded Checkpoint) and its SHA-256, so that
// a truncated or damaged file is recognised before anything is decoded.
//
// Format 1 held the methods' settings as fields of Config (Mu, Tau, ...);
// format 2 holds them in Config.Options. Both are read.
const (
	checkpointMagic  = "fedaux checkpoint\n"
	checkpointFormat = 2
)

// Meta is what the caller stores in a checkpoint beside the engine's
// state (SetMeta); the engine writes Header first when a resumed run
// starts a new log and never reads App.
type Meta struct {
	// Header is the run line as logged (JSON).
	Header []byte
	// App is the caller's own state: how to rebuild the scenario, a
	// study's progress.
	App []byte
}

// KnobChange is one change of a live knob, effective from Round on.
type KnobChange struct {
	Round    int
	Name     Knob
	From, To float64
}

// ParamState is one named parameter tensor's values.
type ParamState struct {
	Name  string
	Value []float64
}

// ClientState is everything of an in-process client that changes during
// a run: all its parameters (masks and APV included), its optimiser's
// moments and its dropout stream.
type ClientState struct {
	ID     int
	Params []ParamState
	Adam   gnn.AdamState
	RNG    []byte // the PCG source, MarshalBinary
	// Extra is a runner's state beyond these, in its own encoding
	// (FedSage+'s generator or mended graph); nil for Client.
	Extra []byte
	// Hook is the client's ClientHook's MarshalState (see Stateful); nil
	// without a hook, and nil leaves a hook as New built it.
	Hook []byte
}

// PendingMessage is the server's message to one client for the next round.
type PendingMessage struct {
	Has    bool
	Shared []float64
}

// LogMark says where the run log stood when the checkpoint was taken: its
// size, and the length and SHA-256 of its last line, so that a resumed run
// can check the log and cut off what was written after the checkpoint.
type LogMark struct {
	Path       string // absolute
	Offset     int64
	TailLen    int
	TailSHA256 [sha256.Size]byte
}

// Checkpoint is an engine's whole state after a round: with the same data
// it resumes into an engine whose next rounds are bit for bit those the
// original engine would have run.
type Checkpoint struct {
	Format     int
	Saved      time.Time
	Meta       Meta
	Config     Config
	Dropout    float64 // Faults.Dropout
	DataSHA256 string  // dataFingerprint of the data
	Round      int     // rounds completed
	Knobs      Knobs
	Controls   []KnobChange
	Reports    []*RoundReport
	Pending    []PendingMessage // nil when no message is pending
	Absence    []byte           // the dropout draws' PCG source; nil if unused
	Clients    []ClientState
	Strategy   []byte // a stateful strategy's MarshalState
	Log        LogMark
}

// clientCheckpointer is a ClientRunner whose state a checkpoint can hold.
type clientCheckpointer interface {
	State() (ClientState, error)
	SetState(ClientState) error
}

// SetMeta sets the scenario description stored in checkpoints.
func (e *Engine) SetMeta(m Meta) { e.meta = m }

// Meta returns the scenario description stored in checkpoints.
func (e *Engine) Meta() Meta { return e.meta }

// SetLog makes l the engine's run log (nil: none); the engine writes its
// round, control and summary lines there from now on, after the run line
// when l is empty (see New).
func (e *Engine) SetLog(l *RunLog) { e.log, e.logStarted = l, false }

// KnobHistory returns a copy of the knob changes made so far, in order.
func (e *Engine) KnobHistory() []KnobChange { return slices.Clone(e.controls) }

// SaveCheckpoint writes the engine's state to path atomically: to a
// temporary file in the same directory, synced, renamed over path, and
// the directory synced; the run log is synced first. Call it between
// rounds (never during Step). It fails after an error has stopped the
// engine, and for a strategy that keeps undeclared state.
func (e *Engine) SaveCheckpoint(path string) error {
	if err := CheckCheckpointPath(path); err != nil {
		return err
	}
	ck, err := e.checkpoint()
	if err != nil {
		return fmt.Errorf("sim: checkpoint %s: %w", path, err)
	}
	// The file: magic, payload length, gob payload, SHA-256 of the payload,
	// framed in place so that the payload is not copied.
	var buf bytes.Buffer
	buf.WriteString(checkpointMagic)
	buf.Write(make([]byte, 8))
	head := buf.Len()
	if err := gob.NewEncoder(&buf).Encode(ck); err != nil {
		return fmt.Errorf("sim: checkpoint %s: %w", path, err)
	}
	b := buf.Bytes()
	binary.BigEndian.PutUint64(b[len(checkpointMagic):head], uint64(len(b)-head))
	sum := sha256.Sum256(b[head:])
	buf.Write(sum[:])
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := buf.WriteTo(w); return err }); err != nil {
		return fmt.Errorf("sim: checkpoint %s: %w", path, err)
	}
	return nil
}

// CheckCheckpointPath reports whether SaveCheckpoint may write path: it
// may when nothing is there or a checkpoint is (which it replaces), and
// not over any other file (a scenario, a log, a device), which it would
// otherwise replace whole.
func CheckCheckpointPath(path string) error {
	if err := atomicfile.Replaceable(path); err != nil {
		return fmt.Errorf("sim: checkpoint: %w", err)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sim: checkpoint %s: %w", path, err)
	}
	defer f.Close()
	b := make([]byte, len(checkpointMagic))
	n, _ := io.ReadFull(f, b)
	if string(b[:n]) != checkpointMagic[:n] { // a prefix: a checkpoint cut short
		return fmt.Errorf("sim: checkpoint %s: exists and is not a fedaux checkpoint; not replaced", path)
	}
	return nil
}

// checkpoint returns the engine's state for SaveCheckpoint to encode at
// once. It shares the reports and the pending messages with the engine:
// the reports never change, and the messages do only in the next Step.
func (e *Engine) checkpoint() (*Checkpoint, error) { return e.state(true) }

// Checkpointable reports why the engine's state cannot be saved in a
// checkpoint (SaveCheckpoint, the console's rollback and fork): a
// strategy or client hook that may keep state it cannot save, or a
// client that cannot be checkpointed; nil when it can. A run that will
// checkpoint checks it before its first round, so that it is refused at
// its start rather than at its first save or interrupt.
func (e *Engine) Checkpointable() error {
	if why := unsaved(e.strategy); why != "" {
		return fmt.Errorf("sim: strategy %s %s", e.cfg.Algo, why)
	}
	for i, r := range e.runners {
		switch c := r.(type) {
		case *Client:
			if c.hook == nil {
				continue
			}
			if why := unsaved(c.hook); why != "" {
				return fmt.Errorf("sim: client %d: its ClientHook (%T) %s", c.ID, c.hook, why)
			}
		case clientCheckpointer:
		default:
			return fmt.Errorf("sim: client %d: its runner (%T) cannot be checkpointed", i, r)
		}
	}
	return nil
}

// state is checkpoint, with the run log's mark when withLog (a
// checkpoint file needs it; the state Rollback keeps does not).
func (e *Engine) state(withLog bool) (*Checkpoint, error) {
	if e.broken != nil {
		return nil, fmt.Errorf("the engine stopped after an error: %w", e.broken)
	}
	ck := &Checkpoint{
		Format: checkpointFormat, Saved: time.Now().UTC(), Meta: e.meta, Config: e.cfg,
		Dropout: e.faults.Dropout, DataSHA256: e.fingerprint(), Round: e.Round(), Knobs: e.knobs,
		Controls: e.controls, Reports: e.reports,
	}
	if e.pending != nil {
		ck.Pending = make([]PendingMessage, len(e.pending))
		for i, m := range e.pending {
			if m != nil {
				ck.Pending[i] = PendingMessage{Has: true, Shared: m.Shared}
			}
		}
	}
	if e.absence != nil {
		b, err := e.absence.MarshalBinary()
		if err != nil {
			return nil, err
		}
		ck.Absence = b
	}
	for i, r := range e.runners {
		c, ok := r.(clientCheckpointer)
		if !ok {
			return nil, fmt.Errorf("client %d: its runner (%T) cannot be checkpointed", i, r)
		}
		s, err := c.State()
		if err != nil {
			return nil, err
		}
		ck.Clients = append(ck.Clients, s)
	}
	if ss, ok := e.strategy.(Stateful); ok {
		b, err := ss.MarshalState()
		if err != nil {
			return nil, fmt.Errorf("strategy %s: %w", e.cfg.Algo, err)
		}
		ck.Strategy = b
	} else if why := unsaved(e.strategy); why != "" {
		return nil, fmt.Errorf("strategy %s %s", e.cfg.Algo, why)
	}
	if e.log != nil && withLog {
		m, err := e.log.mark()
		if err != nil {
			return nil, err
		}
		ck.Log = m
	}
	return ck, nil
}

// fingerprint returns the data's dataFingerprint, computed once.
func (e *Engine) fingerprint() string {
	if e.dataSum == "" {
		e.dataSum = dataFingerprint(e.data)
	}
	return e.dataSum
}

// LoadCheckpoint reads and checks a checkpoint file. It does not build an
// engine (see Resume).
func LoadCheckpoint(path string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sim: checkpoint: %w", err)
	}
	ck, err := decodeCheckpoint(b)
	if err != nil {
		return nil, fmt.Errorf("sim: checkpoint %s: %w", path, err)
	}
	return ck, nil
}

// decodeCheckpoint checks a checkpoint file's framing and decodes it.
func decodeCheckpoint(b []byte) (*Checkpoint, error) {
	head := len(checkpointMagic) + 8
	if !bytes.HasPrefix(b, []byte(checkpointMagic)) {
		if len(b) < len(checkpointMagic) && bytes.HasPrefix([]byte(checkpointMagic), b) {
			return nil, fmt.Errorf("truncated (%d bytes)", len(b))
		}
		return nil, errors.New("not a fedaux checkpoint")
	}
	if len(b) < head {
		return nil, fmt.Errorf("truncated (%d bytes)", len(b))
	}
	n := binary.BigEndian.Uint64(b[len(checkpointMagic):head])
	if want := uint64(head) + n + sha256.Size; uint64(len(b)) != want {
		if uint64(len(b)) < want {
			return nil, fmt.Errorf("truncated (%d of %d bytes)", len(b), want)
		}
		return nil, fmt.Errorf("corrupt: %d bytes, the header says %d", len(b), want)
	}
	payload := b[head : head+int(n)]
	if sum := sha256.Sum256(payload); !bytes.Equal(sum[:], b[head+int(n):]) {
		return nil, errors.New("corrupt (checksum mismatch)")
	}
	ck := new(Checkpoint)
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(ck); err != nil {
		return nil, fmt.Errorf("corrupt: %w", err)
	}
	switch ck.Format {
	case checkpointFormat:
	case 1:
		if err := readFormat1(payload, &ck.Config); err != nil {
			return nil, fmt.Errorf("corrupt: %w", err)
		}
		ck.Format = checkpointFormat
	default:
		return nil, fmt.Errorf("format %d, this fedaux reads formats 1 and %d", ck.Format, checkpointFormat)
	}
	return ck, nil
}

// resumeFile loads the checkpoint at path and resumes it on data (see
// (*Checkpoint).Resume).
func resumeFile(path string, data *Data, log *RunLog) (*Engine, error) {
	ck, err := LoadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	e, err := ck.Resume(data, log)
	if err != nil {
		return nil, fmt.Errorf("sim: resume %s: %w", path, err)
	}
	return e, nil
}

// Resume builds an engine on data in the checkpoint's state. data must be
// the scenario the checkpointed run federated (rebuilt from Meta); its
// fingerprint is checked. ck.Config.Workers may be changed first: results
// do not depend on it. Fault hooks are not restored (see SetFaults).
//
// The log, when not nil, is prepared for the rounds to come. If it is the
// checkpoint's log (same path) it must still hold the checkpoint's last
// line at the recorded offset; whatever follows (rounds run after the
// checkpoint by the interrupted process) is cut off, so that no round
// appears twice. Any other log, or an empty one, first receives the run
// line (Meta's Header, else the resumed engine's Header) and the lines
// of the rounds so far, rebuilt from the checkpoint.
func (ck *Checkpoint) Resume(data *Data, log *RunLog) (*Engine, error) {
	if got := dataFingerprint(data); got != ck.DataSHA256 {
		return nil, fmt.Errorf("the data differ from the checkpointed run's (fingerprint %.12s, checkpoint %.12s): not the same scenario", got, ck.DataSHA256)
	}
	e, err := New(ck.Config, data, nil)
	if err != nil {
		return nil, err
	}
	if err := e.restore(ck); err != nil {
		return nil, err
	}
	if len(ck.Meta.Header) == 0 && log != nil {
		h, err := e.runLine()
		if err != nil {
			return nil, err
		}
		c := *ck
		c.Meta.Header = h
		ck = &c
	}
	if err := log.resumeAt(ck); err != nil {
		return nil, err
	}
	e.log = log
	return e, nil
}

// restore sets a fresh engine's state from ck.
func (e *Engine) restore(ck *Checkpoint) error {
	k := len(e.runners)
	switch {
	case len(ck.Clients) != k:
		return fmt.Errorf("the checkpoint has %d clients, the data %d", len(ck.Clients), k)
	case len(ck.Reports) != ck.Round:
		return fmt.Errorf("the checkpoint has %d reports for %d rounds", len(ck.Reports), ck.Round)
	case ck.Pending != nil && len(ck.Pending) != k:
		return fmt.Errorf("the checkpoint has %d pending messages for %d clients", len(ck.Pending), k)
	}
	if err := e.SetFaults(Faults{Dropout: ck.Dropout}); err != nil {
		return err
	}
	for i, r := range e.runners {
		c, ok := r.(clientCheckpointer)
		if !ok {
			return fmt.Errorf("client %d: its runner (%T) cannot be restored", i, r)
		}
		if err := c.SetState(ck.Clients[i]); err != nil {
			return err
		}
	}
	if ck.Pending != nil {
		e.pending = make([]*Message, k)
		for i, m := range ck.Pending {
			if !m.Has {
				continue
			}
			if c, ok := e.runners[i].(*Client); ok && len(m.Shared) != c.sharedLen() {
				return fmt.Errorf("client %d: pending message of %d values, want %d", i, len(m.Shared), c.sharedLen())
			}
			e.pending[i] = &Message{Shared: m.Shared}
		}
	}
	if ck.Absence != nil {
		e.absence = new(rand.PCG)
		if err := e.absence.UnmarshalBinary(ck.Absence); err != nil {
			return fmt.Errorf("absence stream: %w", err)
		}
	}
	// The live settings are the run's with the changes made so far (a
	// checkpoint from before live settings has no Knobs.Settings); the
	// strategy is rebuilt with them before it takes its state.
	knobs := ck.Knobs
	knobs.Settings = liveSettings(e.cfg.Options, ck.Controls)
	e.knobs = knobs
	if err := e.tune(); err != nil {
		return err
	}
	if ss, ok := e.strategy.(Stateful); ok && ck.Strategy != nil {
		if err := ss.UnmarshalState(ck.Strategy); err != nil {
			return fmt.Errorf("strategy %s: %w", e.cfg.Algo, err)
		}
	}
	e.knobs, e.controls, e.reports, e.meta = knobs, ck.Controls, ck.Reports, ck.Meta
	for _, r := range e.reports {
		r.buildMatrices()
	}
	e.dataSum = ck.DataSHA256
	return nil
}

// replay writes the run line and the lines of the rounds so far to w, as
// the original run logged them: each round's line preceded by the knob
// changes that took effect from it, then the changes for the next round.
func (ck *Checkpoint) replay(w io.Writer) error {
	enc := json.NewEncoder(w) // the lines RunLog.Write writes: json.Marshal and a newline
	if len(ck.Meta.Header) > 0 {
		if _, err := fmt.Fprintf(w, "%s\n", bytes.TrimSpace(ck.Meta.Header)); err != nil {
			return err
		}
	}
	next := 0
	for _, rep := range ck.Reports {
		for ; next < len(ck.Controls) && ck.Controls[next].Round <= rep.Round; next++ {
			if err := enc.Encode(controlFor(ck.Controls[next])); err != nil {
				return err
			}
		}
		if err := enc.Encode(roundLine{Type: "round", RoundReport: rep}); err != nil {
			return err
		}
	}
	for ; next < len(ck.Controls); next++ {
		if err := enc.Encode(controlFor(ck.Controls[next])); err != nil {
			return err
		}
	}
	return nil
}

func controlFor(c KnobChange) controlLine {
	return controlLine{Type: "control", Round: c.Round, Name: c.Name, From: c.From, To: c.To}
}
