package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"reflect"
	"strings"
)

// State returns a copy of the client's state for a checkpoint.
func (c *Client) State() (ClientState, error) {
	s := ClientState{ID: c.ID, Adam: c.opt.State()}
	for _, p := range c.model.Params() {
		s.Params = append(s.Params, ParamState{Name: p.Name, Value: append([]float64(nil), p.Value...)})
	}
	b, err := c.pcg.MarshalBinary()
	if err != nil {
		return s, fmt.Errorf("client %d: dropout stream: %w", c.ID, err)
	}
	s.RNG = b
	if c.hook != nil {
		if st, ok := c.hook.(Stateful); ok {
			if s.Hook, err = st.MarshalState(); err != nil {
				return s, fmt.Errorf("client %d: %w", c.ID, err)
			}
		} else if why := unsaved(c.hook); why != "" {
			return s, fmt.Errorf("client %d: its ClientHook (%T) %s", c.ID, c.hook, why)
		}
	}
	return s, nil
}

// SetState restores a state returned by State of a client with the same
// id and model.
func (c *Client) SetState(s ClientState) error {
	params := c.model.Params()
	if s.ID != c.ID {
		return fmt.Errorf("client %d: the checkpoint holds client %d here", c.ID, s.ID)
	}
	if len(s.Params) != len(params) {
		return fmt.Errorf("client %d: %d parameter tensors in the checkpoint, the model has %d", c.ID, len(s.Params), len(params))
	}
	for i, p := range params {
		if q := s.Params[i]; q.Name != p.Name || len(q.Value) != len(p.Value) {
			return fmt.Errorf("client %d: checkpoint tensor %s of %d values, the model has %s of %d", c.ID, q.Name, len(q.Value), p.Name, len(p.Value))
		}
	}
	if err := c.opt.SetState(s.Adam); err != nil {
		return fmt.Errorf("client %d: %w", c.ID, err)
	}
	if err := c.pcg.UnmarshalBinary(s.RNG); err != nil {
		return fmt.Errorf("client %d: dropout stream: %w", c.ID, err)
	}
	if st, ok := c.hook.(Stateful); ok && s.Hook != nil { // nil: a fresh hook (ForkAs)
		if err := st.UnmarshalState(s.Hook); err != nil {
			return fmt.Errorf("client %d: hook state: %w", c.ID, err)
		}
	}
	for i, p := range params {
		copy(p.Value, s.Params[i].Value)
	}
	return nil
}

// sharedLen returns the number of values the client sends and receives.
func (c *Client) sharedLen() int {
	n := 0
	for _, p := range c.shared {
		n += len(p.Value)
	}
	return n
}

// mayKeepState reports whether a strategy or hook could carry state from
// one round to the next (see keepsState).
func mayKeepState(st any) bool { return keepsState(st) != "" }

// keepsState says why st could carry state from one round to the next,
// or "" when it cannot: a pointer's methods may change its fields, and a
// reference (map, slice, pointer, ...) among its fields is shared by its
// copies. A value of plain fields (its settings) cannot.
func keepsState(st any) string {
	t := reflect.TypeOf(st)
	if t.Kind() == reflect.Pointer {
		return fmt.Sprintf("it is a pointer, %v, whose methods may change it", t)
	}
	var refs func(t reflect.Type, path string) string
	refs = func(t reflect.Type, path string) string {
		switch t.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
			return fmt.Sprintf("its field %s holds a reference (%v)", path, t.Kind())
		case reflect.Array:
			return refs(t.Elem(), path+"[i]")
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if why := refs(f.Type, strings.TrimPrefix(path+"."+f.Name, ".")); why != "" {
					return why
				}
			}
		}
		return ""
	}
	return refs(t, "")
}

// unsaved says why a checkpoint cannot save the strategy or hook st: it
// may keep state (keepsState) and is not Stateful; "" when it can.
func unsaved(st any) string {
	if _, ok := st.(Stateful); ok {
		return ""
	}
	if why := keepsState(st); why != "" {
		return fmt.Sprintf("may keep state across rounds (%s) but has no MarshalState/UnmarshalState: %s", why, stateHint)
	}
	return ""
}

// stateHint is what a strategy or hook that may keep state and cannot
// save it should do.
const stateHint = "implement MarshalState and UnmarshalState (sim.Stateful), or, if it keeps no state, make it a value of plain fields (T{...}, not &T{...})"

// dataFingerprint returns the SHA-256 (hex) of everything a run reads of
// data: sizes, every client's id, nodes, roles, labels, adjacency and
// features. A resumed run checks it against its checkpoint's.
func dataFingerprint(d *Data) string {
	h := &hasher{h: sha256.New()}
	h.ints(d.NumFeatures, d.NumClasses, len(d.Clients))
	for _, c := range d.Clients {
		g := c.Graph
		h.ints(c.ID, g.N(), g.NumClasses)
		h.ints(c.Nodes...)
		for _, r := range c.Roles {
			h.ints(int(r))
		}
		h.ints(g.Labels...)
		h.ints(g.Adj.Rows, g.Adj.Cols)
		h.ints(g.Adj.Indptr...)
		h.ints(g.Adj.Indices...)
		h.floats(g.Adj.Values)
		if g.Dense != nil {
			r, f := g.Dense.Dims()
			h.ints(-1, r, f)
			for i := range r {
				h.floats(g.Dense.RawRowView(i))
			}
		} else if x := g.Features; x != nil {
			h.ints(-2, x.Rows, x.Cols)
			h.ints(x.Indptr...)
			h.ints(x.Indices...)
			h.floats(x.Values)
		}
	}
	h.flush()
	return hex.EncodeToString(h.h.Sum(nil))
}

// hasher feeds numbers to a hash through a buffer.
type hasher struct {
	h   hash.Hash
	buf []byte
}

func (h *hasher) put(u uint64) {
	h.buf = binary.LittleEndian.AppendUint64(h.buf, u)
	if len(h.buf) >= 1<<16 {
		h.flush()
	}
}

func (h *hasher) ints(v ...int) {
	h.put(uint64(len(v)))
	for _, x := range v {
		h.put(uint64(int64(x)))
	}
}

func (h *hasher) floats(v []float64) {
	h.put(uint64(len(v)))
	for _, x := range v {
		h.put(math.Float64bits(x))
	}
}

func (h *hasher) flush() {
	h.h.Write(h.buf)
	h.buf = h.buf[:0]
}

// DiffConfig lists the settings (see Settings) in which b differs from
// a, each as "KEY: A, not B". The worker count is not a setting:
// results do not depend on it.
func DiffConfig(a, b Config) []string {
	var out []string
	for _, s := range allSettings() {
		x, y := s.get(&a), s.get(&b)
		if x != y {
			out = append(out, fmt.Sprintf("%s: %s, not %s", s.key, x, y))
		}
	}
	return out
}
