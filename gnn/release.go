package gnn

// Release drops the model's activation and gradient scratch memory (the
// buffers of every layer and the caches that backward passes read). The
// parameters and their gradients stay. A client that is idle between
// rounds calls it so that only the clients training at once hold
// activations; the next Forward allocates them again.
func (m *Model) Release() {
	for i := range m.layers {
		l := &m.layers[i]
		l.conv.release()
		l.relu = ReLU{}
		l.drop = Dropout{P: l.drop.P}
	}
	m.cls.release()
	if m.head != nil {
		m.head.release()
	}
	if m.hard != nil {
		m.hard.release()
	}
	m.h, m.scores, m.ready = nil, nil, false
}

func (l *GCN) release() {
	l.prop, l.x = nil, Features{}
	l.xt, l.row = cscMatrix{}, nil
	l.weff, l.xw, l.out, l.dxw, l.dweff, l.dx = buffer{}, buffer{}, buffer{}, buffer{}, buffer{}, buffer{}
}

func (l *Linear) release() {
	l.x = nil
	l.weff, l.out, l.dweff, l.dx = buffer{}, buffer{}, buffer{}, buffer{}
}

func (h *kernelHead) release() {
	h.h = nil
	h.wcat, h.p, h.logits, h.dq, h.dwcat, h.dweff, h.dh = buffer{}, buffer{}, buffer{}, buffer{}, buffer{}, buffer{}, buffer{}
	h.agg = Kernel{Gauss: h.agg.Gauss, Sigma: h.agg.Sigma}
	h.score.release()
}

func (c *Conv1D) release() {
	c.x, c.out, c.dx = nil, buffer{}, buffer{}
}

// release keeps the score's kind and APV and drops its caches.
func (s *Score) release() {
	*s = Score{Kind: s.Kind, APV: s.APV}
}
