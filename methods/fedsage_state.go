package methods

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"math"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/sim"
	"gonum.org/v1/gonum/mat"
)

// sageState is a sageClient's state beyond its classifier, its Adam and
// its random stream (ClientState.Extra): the generator and its optimisers
// in the generator phase, the mended graph after it. The float32 tensors
// are stored as their little-endian bits (4 bytes an entry; gob would
// spend 8 or 9).
type sageState struct {
	Gen      []sim.ParamState // NeighGen's float64 parameters
	GenAdam  gnn.AdamState    // the encoder's and dGen's
	FGenAdam gnn.AdamState    // fGen's float64 parameters
	OutW     []byte           // fgen.out.weight
	OutM     []byte           // its Adam moments
	OutV     []byte
	OutT     int

	Mended  bool
	Parents []int     // the node each generated row hangs on
	Extra   []float64 // the generated rows, row-major (Parents x features)
}

// State returns a copy of the client's state for a checkpoint.
func (c *sageClient) State() (sim.ClientState, error) {
	s := sim.ClientState{ID: c.ID, Adam: c.opt.State()}
	for _, p := range c.cls.Params() {
		s.Params = append(s.Params, sim.ParamState{Name: p.Name, Value: append([]float64(nil), p.Value...)})
	}
	b, err := c.pcg.MarshalBinary()
	if err != nil {
		return s, fmt.Errorf("client %d: random stream: %w", c.ID, err)
	}
	s.RNG = b
	var st sageState
	if g := c.gen; g != nil {
		for _, p := range g.net.Params() {
			st.Gen = append(st.Gen, sim.ParamState{Name: p.Name, Value: append([]float64(nil), p.Value...)})
		}
		st.GenAdam, st.FGenAdam = g.opt.State(), g.fopt.State()
		st.OutW, st.OutM, st.OutV = bits32(g.net.FGen.Out.W), bits32(g.outOpt.M), bits32(g.outOpt.V)
		st.OutT = g.outOpt.T
	}
	if m := c.mend; m != nil {
		st.Mended, st.Parents = true, m.parents
		if m.extra != nil {
			st.Extra = m.extra.RawMatrix().Data
		}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&st); err != nil {
		return s, fmt.Errorf("client %d: %w", c.ID, err)
	}
	s.Extra = buf.Bytes()
	return s, nil
}

// SetState restores a state returned by State of a client with the same
// id, data and settings.
func (c *sageClient) SetState(s sim.ClientState) error {
	if s.ID != c.ID {
		return fmt.Errorf("client %d: the checkpoint holds client %d here", c.ID, s.ID)
	}
	var st sageState
	if err := gob.NewDecoder(bytes.NewReader(s.Extra)).Decode(&st); err != nil {
		return fmt.Errorf("client %d: FedSage+ state: %w", c.ID, err)
	}
	if err := setParams(c.ID, c.cls.Params(), s.Params); err != nil {
		return err
	}
	if err := c.opt.SetState(s.Adam); err != nil {
		return fmt.Errorf("client %d: %w", c.ID, err)
	}
	if err := c.pcg.UnmarshalBinary(s.RNG); err != nil {
		return fmt.Errorf("client %d: random stream: %w", c.ID, err)
	}
	switch {
	case st.Mended:
		var extra *mat.Dense
		if len(st.Parents) > 0 {
			if len(st.Extra) != len(st.Parents)*c.feat {
				return fmt.Errorf("client %d: %d generated entries for %d rows of %d features", c.ID, len(st.Extra), len(st.Parents), c.feat)
			}
			extra = mat.NewDense(len(st.Parents), c.feat, st.Extra)
		}
		g, err := c.mendedGraph(extra, st.Parents)
		if err != nil {
			return fmt.Errorf("client %d: %w", c.ID, err)
		}
		c.mend, c.gen = &sageMend{extra: extra, parents: st.Parents, graph: g}, nil
	case c.gen == nil:
		if st.Gen != nil {
			return fmt.Errorf("client %d: the checkpoint holds a generator, this run has none", c.ID)
		}
	default:
		g := c.gen
		if err := setParams(c.ID, g.net.Params(), st.Gen); err != nil {
			return err
		}
		if err := g.opt.SetState(st.GenAdam); err != nil {
			return fmt.Errorf("client %d: %w", c.ID, err)
		}
		if err := g.fopt.SetState(st.FGenAdam); err != nil {
			return fmt.Errorf("client %d: %w", c.ID, err)
		}
		out := g.net.FGen.Out
		for _, t := range []struct {
			dst []float32
			src []byte
		}{{out.W, st.OutW}, {g.outOpt.M, st.OutM}, {g.outOpt.V, st.OutV}} {
			if len(t.src) != 4*len(t.dst) {
				return fmt.Errorf("client %d: fgen.out.weight state of %d bytes, want %d", c.ID, len(t.src), 4*len(t.dst))
			}
			for i := range t.dst {
				t.dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.src[4*i:]))
			}
		}
		g.outOpt.T = st.OutT
	}
	return nil
}

// setParams copies checkpointed values into ps, checking names and sizes.
func setParams(id int, ps []*gnn.Param, vs []sim.ParamState) error {
	if len(vs) != len(ps) {
		return fmt.Errorf("client %d: %d parameter tensors in the checkpoint, the model has %d", id, len(vs), len(ps))
	}
	for i, p := range ps {
		if q := vs[i]; q.Name != p.Name || len(q.Value) != len(p.Value) {
			return fmt.Errorf("client %d: checkpoint tensor %s of %d values, the model has %s of %d", id, q.Name, len(q.Value), p.Name, len(p.Value))
		}
	}
	for i, p := range ps {
		copy(p.Value, vs[i].Value)
	}
	return nil
}

// bits32 returns the little-endian bits of v.
func bits32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
