package gnn

// Release drops the model's activation and gradient scratch memory (the
// buffers of every layer and the caches that backward passes read). The
// parameters and their gradients stay, and so does what a layer derives
// from its sparse input alone (its columns and block plans, see
// GCN.columns): that input is the client's features in every round. A
// client that is idle between rounds calls it so that only the clients
// training at once hold activations; the next Forward allocates them
// again.
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
	if m.b32 != nil {
		m.b32.release()
	}
	m.h, m.scores, m.ready = nil, nil, false
}

func (l *GCN) release() {
	l.prop, l.x = nil, Features{}
	l.row, l.src = nil, nil
	l.weff, l.xw, l.out, l.dxw, l.dweff, l.dx = buffer{}, buffer{}, buffer{}, buffer{}, buffer{}, buffer{}
}

func (l *Linear) release() {
	l.x = nil
	l.weff, l.wpad, l.out, l.dweff, l.dpad, l.dx = buffer{}, buffer{}, buffer{}, buffer{}, buffer{}, buffer{}
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

// Release drops the generator's activation and gradient scratch memory
// (every part's buffers and the caches their backward passes read); the
// parameters, their gradients and FGen.Out's attached gradient stay.
// FedSage+'s clients call it after each generator step: a client's
// activations of fGen's output layer (N x MaxPred x Width) are then held
// only while it steps, not for the whole generator phase.
func (g *NeighGen) Release() {
	g.Enc.release()
	g.DGen.release()
	g.FGen.Release()
	g.dRelu, g.dn = ReLU{}, buffer{}
}

// Release drops the generator's activation and gradient scratch memory,
// as NeighGen.Release.
func (f *FGen) Release() {
	f.FC1.release()
	f.FC2.release()
	f.Out.release()
	f.relu1, f.relu2 = ReLU{}, ReLU{}
	f.drop = Dropout{P: f.drop.P}
	f.noisy, f.dy, f.y = buffer{}, buffer{}, nil
}

func (l *SlotLinear) release() {
	l.h, l.counts, l.rows, l.tile = nil, nil, nil, nil
	l.out, l.dh = buffer{}, buffer{}
}

func (m *SAGENet) release() {
	m.L1.release()
	m.L2.release()
	m.relu = ReLU{}
	m.drop = Dropout{P: m.drop.P}
	m.h = nil
}

func (l *SAGE) release() {
	l.adj, l.x, l.extra = nil, Features{}, nil
	l.pr, l.pn, l.agg, l.dpn, l.dx, l.de = buffer{}, buffer{}, buffer{}, buffer{}, buffer{}, buffer{}
	l.wr, l.wn = buffer{}, buffer{}
}
