package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedaux/fedaux/internal/prefault"
	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// Tiles of SlotLinear's weight: slotTileRows rows of W by up to
// slotTileCols columns of one slot, converted to float64 once and applied
// to every row that asks for the slot (256 KiB, in L2; the products read
// it in strips that stay in L1). The rows a tile's products sum, gathered
// once for a block of rows of W, serve every block of columns.
//
// slotTileCols is part of the numbers: an entry of dL/dh is summed from
// one dot product per block of columns, so another block width would
// change its last digits. slotTileRows is not: every sum runs over the
// rows of W in order, block after block.
const (
	slotTileRows = 128
	slotTileCols = 256
)

// SlotLinear is the output layer of FedSage+'s feature generator, In ->
// Slots x Width, computed only for the slots each row asks for:
//
//	out_{i,s} = h_i W_s + b_s      for s < count_i,   0 for the other slots,
//
// where W_s (In x Width) holds the columns s Width .. (s+1) Width - 1 of
// the weight W (In x Slots Width) and b_s the same entries of the bias.
// Rows of the generator's output beyond a node's predicted count are
// never read (not by the mending, not by the losses), so they are not
// computed: with a mean count near 1 this is a fifth of the dense cost.
//
// W is by far the largest tensor of FedSage+ (2048 x 5 x 1433 = 14.7M
// entries on Cora, 37.9M on CiteSeer), and every client holds one, with
// its Adam moments, for the whole generator phase. It is therefore
// stored in float32, as are its moments (Adam32); the arithmetic is
// float64, and the gradient, which lives only while a client steps, is a
// float64 buffer the caller attaches (AttachGrad). W's entries enter the
// products as the float64 values of the stored float32 numbers, so the
// gradient is exact for the stored weights.
//
// The matrices Forward and Backward return belong to the layer and are
// overwritten by its next call.
type SlotLinear struct {
	In, Slots, Width int
	W                []float32 // In x Slots*Width, row-major
	Bias             *Param    // 1 x Slots*Width

	// GradOnlyNonzero makes Backward compute the input gradient only
	// where the input is non-zero (exact after a ReLU or a dropout).
	GradOnlyNonzero bool

	grad   []float64 // dL/dW, attached by the caller
	h      *mat.Dense
	counts []int
	rows   [][]int // per slot, the rows that ask for it
	tile   []float64
	out    buffer
	dh     buffer
}

// NewSlotLinear returns a layer named name (name.weight, name.bias) with
// torch nn.Linear's initialisation, uniform in +-1/sqrt(In), drawn from
// rng weight first.
func NewSlotLinear(name string, in, slots, width int, rng *rand.Rand) *SlotLinear {
	l := &SlotLinear{In: in, Slots: slots, Width: width, W: make([]float32, in*slots*width)}
	bound := 1 / math.Sqrt(float64(in))
	for i := range l.W {
		l.W[i] = float32((2*rng.Float64() - 1) * bound)
	}
	l.Bias = newParam(name+".bias", 1, slots*width, false)
	l.Bias.uniform(rng, bound)
	return l
}

// AttachGrad makes g (In x Slots*Width, or nil to detach) the buffer
// Backward adds dL/dW to.
func (l *SlotLinear) AttachGrad(g []float64) {
	if g != nil && len(g) != len(l.W) {
		panic(fmt.Sprintf("gnn: slot layer gradient of %d entries, weight has %d", len(g), len(l.W)))
	}
	l.grad = g
}

// Grad returns the attached gradient buffer (nil when none).
func (l *SlotLinear) Grad() []float64 { return l.grad }

// Forward returns out (N x Slots*Width) for the N x In input h, slots
// s >= counts[i] of row i left zero. counts[i] must lie in [0, Slots].
func (l *SlotLinear) Forward(h *mat.Dense, counts []int) *mat.Dense {
	n, f := h.Dims()
	if f != l.In || len(counts) != n {
		panic(fmt.Sprintf("gnn: slot layer forward: input %dx%d with %d counts, layer takes %d", n, f, len(counts), l.In))
	}
	l.h, l.counts = h, counts
	if len(l.rows) != l.Slots {
		l.rows = make([][]int, l.Slots)
	}
	for s := range l.rows {
		l.rows[s] = l.rows[s][:0]
	}
	for i, c := range counts {
		if c < 0 || c > l.Slots {
			panic(fmt.Sprintf("gnn: slot layer forward: count %d of row %d outside [0,%d]", c, i, l.Slots))
		}
		for s := 0; s < c; s++ {
			l.rows[s] = append(l.rows[s], i)
		}
	}
	out := l.out.zeros(n, l.Slots*l.Width)
	o, x := out.RawMatrix(), h.RawMatrix()
	b := getTerms()
	defer putTerms(b)
	// Row i of a tile's product, for each row i that asks for slot s, is
	// summed into out from the tile's rows that the non-zero entries of
	// h_i select, in order (vec.RowSumsAt: the bits of one axpy after
	// another). Every element sums over the rows of W in order, block
	// after block.
	tw := min(l.Width, slotTileCols)
	var off []int
	l.eachTile(func(s, a0, a1 int) {
		rows := l.rows[s]
		b.reset(len(rows), a1-a0)
		off = b.offsets(len(rows))
		for r, i := range rows {
			b.nonzero(r, x.Data[i*x.Stride+a0:i*x.Stride+a1], tw)
			off[r] = i * o.Stride
		}
	}, func(s, a0, a1, c0, c1 int, tile []float64) {
		vec.RowSumsAt(o.Data[s*l.Width+c0:], off, c1-c0, tile, b.t, b.n, false)
	})
	for s, rows := range l.rows {
		b := l.Bias.Value[s*l.Width : (s+1)*l.Width]
		for _, i := range rows {
			axpy(o.Data[i*o.Stride+s*l.Width:i*o.Stride+(s+1)*l.Width], 1, b)
		}
	}
	return out
}

// eachTile calls rows, then fn for every block of columns, for every
// block of rows of W and every slot some row asks for: rows(s, a0, a1)
// for rows a0..a1-1 of W, and fn(s, a0, a1, c0, c1, tile) with the
// tile's float64 copy of columns c0..c1-1 of slot s, row a of the tile at
// tile[(a-a0)*tw:], tw = min(Width, slotTileCols). Slots come in order,
// then blocks of rows, then blocks of columns.
func (l *SlotLinear) eachTile(rows func(s, a0, a1 int), fn func(s, a0, a1, c0, c1 int, tile []float64)) {
	stride := l.Slots * l.Width
	tw := min(l.Width, slotTileCols)
	l.tile = grow(l.tile, slotTileRows*tw)
	for s := 0; s < l.Slots; s++ {
		if len(l.rows[s]) == 0 {
			continue
		}
		for a0 := 0; a0 < l.In; a0 += slotTileRows {
			a1 := min(a0+slotTileRows, l.In)
			rows(s, a0, a1)
			for c0 := 0; c0 < l.Width; c0 += slotTileCols {
				c1 := min(c0+slotTileCols, l.Width)
				tile := l.tile[:(a1-a0)*tw]
				for a := a0; a < a1; a++ {
					src := l.W[a*stride+s*l.Width+c0 : a*stride+s*l.Width+c1]
					vec.From32(tile[(a-a0)*tw:(a-a0)*tw+c1-c0], src)
				}
				fn(s, a0, a1, c0, c1, tile)
			}
		}
	}
}

// Backward takes dL/dout (entries of slots not computed are ignored),
// adds dL/db to the bias gradient and dL/dW to the attached buffer (none
// attached: W gets no gradient) and returns dL/dh when needInput.
func (l *SlotLinear) Backward(dOut *mat.Dense, needInput bool) *mat.Dense {
	n, _ := l.h.Dims()
	d, x := dOut.RawMatrix(), l.h.RawMatrix()
	stride := l.Slots * l.Width
	for s, rows := range l.rows {
		b := l.Bias.Grad[s*l.Width : (s+1)*l.Width]
		for _, i := range rows {
			axpy(b, 1, d.Data[i*d.Stride+s*l.Width:i*d.Stride+(s+1)*l.Width])
		}
	}
	var dh *mat.Dense
	var g []float64
	if needInput {
		dh = l.dh.zeros(n, l.In)
		g = dh.RawMatrix().Data
	} else if l.grad == nil {
		return nil
	}
	b, rb := getTerms(), getTerms()
	defer putTerms(b)
	defer putTerms(rb)
	var off []int
	l.eachTile(func(s, a0, a1 int) {
		rows := l.rows[s]
		if l.grad != nil {
			// Row a0+a of dL/dW (slot s) receives h_ia dOut_i for the
			// rows i that ask for slot s, in their order, skipping
			// h_ia = 0 (vec.RowSumsAt: the bits of one axpy after
			// another).
			b.slotColumns(x, rows, a0, a1, d.Stride, 0)
			off = b.offsets(a1 - a0)
			for a := range off {
				off[a] = (a0 + a) * stride
			}
		}
		if g != nil {
			// The entries of dL/dh_i to compute: those where h_i is
			// non-zero (GradOnlyNonzero) or all, as terms whose Off is
			// the row of the tile.
			rb.reset(len(rows), a1-a0)
			for r, i := range rows {
				hrow := x.Data[i*x.Stride+a0 : i*x.Stride+a1]
				if l.GradOnlyNonzero {
					rb.nonzero(r, hrow, 1)
					continue
				}
				for a, v := range hrow {
					rb.t = append(rb.t, vec.Term{Off: a, A: v})
				}
				rb.n[r] = len(hrow)
			}
		}
	}, func(s, a0, a1, c0, c1 int, tile []float64) {
		w := c1 - c0
		rows := l.rows[s]
		if l.grad != nil {
			vec.RowSumsAt(l.grad[s*l.Width+c0:], off, w, d.Data[s*l.Width+c0:], b.t, b.n, false)
		}
		if g == nil {
			return
		}
		// dL/dh_{i,a} gains dOut_i . W_a over the tile's columns, the
		// dot products of vec.DotN (vec.Dot's order) from shortLoop
		// columns on, summed in sequence below.
		tw := min(l.Width, slotTileCols)
		ys, _, dots := b.kept(a1 - a0)
		ts := rb.t
		for r, i := range rows {
			src := d.Data[i*d.Stride+s*l.Width+c0 : i*d.Stride+s*l.Width+c1]
			k := rb.n[r]
			for q, t := range ts[:k] {
				ys[q] = tile[t.Off*tw : t.Off*tw+w]
			}
			if w >= shortLoop {
				vec.DotN(dots[:k], src, ys[:k])
			} else {
				for q, y := range ys[:k] {
					dots[q] = dot(src, y)
				}
			}
			grow := g[i*l.In+a0 : i*l.In+a1]
			for q, t := range ts[:k] {
				grow[t.Off] += dots[q]
			}
			ts = ts[k:]
		}
	})
	return dh
}

// Adam32 is Adam with coupled weight decay, exactly as Adam, for a
// float32 tensor (SlotLinear.W) with a float64 gradient: the update is
// computed in float64 from the stored float32 weight and moments, and
// the results are stored in float32.
type Adam32 struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64

	M, V []float32
	T    int // steps taken

	buf []float64 // Step's float64 chunks
}

// NewAdam32 returns an optimiser for a tensor of n entries with beta1
// 0.9, beta2 0.999 and eps 1e-8.
func NewAdam32(n int, lr, weightDecay float64) *Adam32 {
	return &Adam32{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: weightDecay,
		M: make([]float32, n), V: make([]float32, n)}
}

// Step updates w from its gradient g.
//
// The first step maps the moments before it reads them: the pages of a
// fresh array that are read first are mapped twice, the shared zero page
// on the read and a copy on the write, which flushes every core's TLB
// (half of a CiteSeer generator phase's CPU on this project's 2-core
// host). Moments that never step are never mapped.
func (a *Adam32) Step(w []float32, g []float64) {
	if a.T == 0 {
		prefault.Floats(a.M)
		prefault.Floats(a.V)
	}
	a.T++
	t := float64(a.T)
	b1, b2 := a.Beta1, a.Beta2
	s := vec.AdamStep{Beta1: b1, Beta2: b2, WeightDecay: a.WeightDecay, Eps: a.Eps,
		StepSize: a.LR / (1 - math.Pow(b1, t)), InvBC2: 1 / math.Sqrt(1-math.Pow(b2, t))}
	// For every i, in float64 (vec.Adam's expressions and roundings):
	//	x := float64(w[i])
	//	gi := g[i] + wd*x
	//	mi := b1*float64(m[i]) + (1-b1)*gi
	//	vi := b2*float64(v[i]) + (1-b2)*gi*gi
	//	m[i], v[i] = float32(mi), float32(vi)
	//	w[i] = float32(x - stepSize*mi/(sqrt(vi)*invBC2+eps))
	// a chunk at a time, widened into buffers that stay in cache.
	if a.buf == nil {
		a.buf = make([]float64, 3*adam32Chunk)
	}
	x, m, v := a.buf[:adam32Chunk], a.buf[adam32Chunk:2*adam32Chunk], a.buf[2*adam32Chunk:]
	for i0 := 0; i0 < len(w); i0 += adam32Chunk {
		i1 := min(i0+adam32Chunk, len(w))
		k := i1 - i0
		vec.From32(x[:k], w[i0:i1])
		vec.From32(m[:k], a.M[i0:i1])
		vec.From32(v[:k], a.V[i0:i1])
		vec.Adam(x[:k], g[i0:i1], m[:k], v[:k], s)
		vec.To32(w[i0:i1], x[:k])
		vec.To32(a.M[i0:i1], m[:k])
		vec.To32(a.V[i0:i1], v[:k])
	}
}

// adam32Chunk is the number of entries Adam32.Step widens at a time.
const adam32Chunk = 1024
