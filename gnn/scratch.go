package gnn

// Scratch is the memory a model needs only while it computes: the
// activations and caches of its layers and the gradients of its
// parameters. Models of one configuration that compute one at a time
// (the clients that one worker trains in turn) can share a Scratch, so
// that only as many copies of that memory exist as models compute at
// once. A Scratch is not safe for concurrent use: one model borrows it at
// a time.
type Scratch struct {
	floats [][]float64
	ints   [][]int
	grads  [][]float64
	act32  *act32 // the float32 layers' activations (Config.Precision F32)
}

// Borrow makes the model compute in s's memory from now on: every
// activation buffer, cache and gradient of the model takes s's array in
// its place (growing it when it is short), and the model's own arrays are
// dropped, but for gradients s does not hold yet. The gradients' contents are then undefined: call ZeroGrad
// before the next Backward, as for every fresh step. Return gives the
// memory back.
func (m *Model) Borrow(s *Scratch) {
	m.Release()
	i, j := 0, 0
	m.scratchSlots(func(p *[]float64) {
		if i < len(s.floats) {
			*p = s.floats[i][:0]
		}
		i++
	}, func(p *[]int) {
		if j < len(s.ints) {
			*p = s.ints[j][:0]
		}
		j++
	})
	for k, p := range m.params {
		if k < len(s.grads) && s.grads[k] != nil {
			p.Grad = s.grads[k]
		}
		p.Grad = grow(p.Grad, len(p.Value))
	}
	if m.b32 != nil && s.act32 != nil {
		m.b32.act32, s.act32 = *s.act32, nil
	}
}

// Return hands the model's scratch memory, gradients included, to s for
// the next model that borrows it, and leaves the model without any: its
// parameters stay, and the next Forward (or Borrow) provides new memory.
func (m *Model) Return(s *Scratch) {
	var floats [][]float64
	var ints [][]int
	m.scratchSlots(func(p *[]float64) { floats = append(floats, *p) },
		func(p *[]int) { ints = append(ints, *p) })
	s.floats, s.ints = keepLarger(s.floats, floats), keepLarger(s.ints, ints)
	grads := make([][]float64, len(m.params))
	for k, p := range m.params {
		grads[k], p.Grad = p.Grad, nil
	}
	s.grads = keepLarger(s.grads, grads)
	if m.b32 != nil && m.b32.layers != nil {
		a := m.b32.act32
		s.act32 = &a
	}
	m.Release()
}

// keepLarger returns, slot by slot, the larger of the arrays in old and
// in new (by capacity), so that a Scratch keeps what its largest
// borrower needed.
func keepLarger[T any](old, new [][]T) [][]T {
	for i, a := range new {
		if i >= len(old) {
			old = append(old, a)
		} else if cap(a) > cap(old[i]) {
			old[i] = a
		}
	}
	return old
}

// ensureGrads gives every parameter a gradient array of its size (zero
// when new), after Return left the model without one.
func (m *Model) ensureGrads() {
	for _, p := range m.params {
		if len(p.Grad) != len(p.Value) {
			p.Grad = make([]float64, len(p.Value))
		}
	}
}

// scratchSlots calls f (and fi, for int arrays) with a pointer to every
// scratch array of the model, in an order fixed by its configuration.
// Release must follow (or precede) any change of an array, since the
// layers' matrices view their arrays.
func (m *Model) scratchSlots(f func(*[]float64), fi func(*[]int)) {
	for i := range m.layers {
		l := &m.layers[i]
		l.conv.scratchSlots(f)
		l.relu.scratchSlots(f)
		l.drop.scratchSlots(f)
	}
	m.cls.scratchSlots(f)
	if m.head != nil {
		m.head.scratchSlots(f)
	}
	if m.hard != nil {
		m.hard.scratchSlots(f, fi)
	}
}

func (l *GCN) scratchSlots(f func(*[]float64)) {
	for _, b := range []*buffer{&l.weff, &l.xw, &l.out, &l.dxw, &l.dweff, &l.dx} {
		f(&b.data)
	}
	f(&l.row)
}

func (r *ReLU) scratchSlots(f func(*[]float64)) {
	f(&r.out.data)
	f(&r.dx.data)
}

func (d *Dropout) scratchSlots(f func(*[]float64)) {
	f(&d.scale)
	f(&d.out.data)
	f(&d.dx.data)
}

func (l *Linear) scratchSlots(f func(*[]float64)) {
	for _, b := range []*buffer{&l.weff, &l.wpad, &l.out, &l.dweff, &l.dpad, &l.dx} {
		f(&b.data)
	}
}

func (h *kernelHead) scratchSlots(f func(*[]float64)) {
	for _, b := range []*buffer{&h.wcat, &h.p, &h.logits, &h.dq, &h.dwcat, &h.dweff, &h.dh} {
		f(&b.data)
	}
	a := &h.agg
	for _, b := range []*buffer{&a.in, &a.tr, &a.z, &a.bin, &a.btr, &a.dx} {
		f(&b.data)
	}
	f(&a.s)
	f(&a.ds)
	h.score.scratchSlots(f)
}

func (s *Score) scratchSlots(f func(*[]float64)) {
	f(&s.s)
	f(&s.norms)
	f(&s.dh.data)
}

func (k *hardHead) scratchSlots(f func(*[]float64), fi func(*[]int)) {
	for _, b := range []*buffer{&k.xs, &k.cat, &k.dy, &k.dh} {
		f(&b.data)
	}
	f(&k.ds)
	fi(&k.perm)
	k.relu.scratchSlots(f)
	k.drop.scratchSlots(f)
	for _, c := range []*Conv1D{k.conv1, k.conv2} {
		f(&c.out.data)
		f(&c.dx.data)
	}
	k.score.scratchSlots(f)
}
