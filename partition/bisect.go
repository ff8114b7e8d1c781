package partition

// Two-way refinement used by the recursive bisections of the initial
// partitioning: Fiduccia-Mattheyses passes with hill climbing and rollback,
// and boundary balancing, after METIS's FM_2WayCutRefine and Balance2Way
// (Karypis & Kumar 1998).

// bisection is a two-way partition of a graph with its gain bookkeeping.
type bisection struct {
	g        *graph
	where    []int32
	id, ed   []int32 // internal and external weighted degree
	bndptr   []int32 // position in bndind, or -1
	bndind   []int32 // boundary vertices (ed > 0)
	pwgts    [2]int
	cut      int
	q        [2]*pq
	moved    []int32
	swaps    []int32
	permTmpl []int32
}

func newBisection(g *graph) *bisection {
	return &bisection{
		g:      g,
		where:  make([]int32, g.n),
		id:     make([]int32, g.n),
		ed:     make([]int32, g.n),
		bndptr: make([]int32, g.n),
	}
}

// compute derives degrees, boundary, part weights and cut from where.
func (b *bisection) compute() {
	g := b.g
	b.pwgts = [2]int{}
	b.cut = 0
	b.bndind = b.bndind[:0]
	for v := 0; v < g.n; v++ {
		w := b.where[v]
		b.pwgts[w] += int(g.vwgt[v])
		var id, ed int32
		for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
			if b.where[g.adjncy[e]] == w {
				id += g.adjwgt[e]
			} else {
				ed += g.adjwgt[e]
			}
		}
		b.id[v], b.ed[v] = id, ed
		b.cut += int(ed)
		b.bndptr[v] = -1
		if ed > 0 {
			b.bndInsert(int32(v))
		}
	}
	b.cut /= 2
}

func (b *bisection) bndInsert(v int32) {
	b.bndptr[v] = int32(len(b.bndind))
	b.bndind = append(b.bndind, v)
}

func (b *bisection) bndDelete(v int32) {
	i := b.bndptr[v]
	last := b.bndind[len(b.bndind)-1]
	b.bndind[i] = last
	b.bndptr[last] = i
	b.bndind = b.bndind[:len(b.bndind)-1]
	b.bndptr[v] = -1
}

// project returns the bisection of the finer graph fine induced by b.
func (b *bisection) project(fine *graph) *bisection {
	f := newBisection(fine)
	for v := range f.where {
		f.where[v] = b.where[fine.cmap[v]]
	}
	f.compute()
	return f
}

// imbalance returns max_s pwgts[s]/tpw[s] - ub (<= 0 when balanced).
func (b *bisection) imbalance(tpw [2]int, ub float64) float64 {
	m := 0.0
	for s := 0; s < 2; s++ {
		r := float64(b.pwgts[s]) / float64(max(tpw[s], 1))
		if s == 0 || r > m {
			m = r
		}
	}
	return m - ub
}

func (b *bisection) ensureQueues() {
	if b.q[0] == nil {
		b.q[0], b.q[1] = newPQ(b.g.n), newPQ(b.g.n)
		b.moved = make([]int32, b.g.n)
		for i := range b.moved {
			b.moved[i] = -1
		}
	}
}

// move switches v to the other side and updates the bookkeeping of v and
// its neighbours; queue maintenance is left to the caller through upd,
// called for each neighbour after its degrees change (it may be nil).
func (b *bisection) move(v int32, upd func(u int32, wasBnd bool)) {
	g := b.g
	from := b.where[v]
	to := 1 - from
	b.where[v] = to
	b.pwgts[to] += int(g.vwgt[v])
	b.pwgts[from] -= int(g.vwgt[v])
	b.cut -= int(b.ed[v] - b.id[v])
	b.id[v], b.ed[v] = b.ed[v], b.id[v]
	if b.ed[v] == 0 && b.bndptr[v] >= 0 {
		b.bndDelete(v)
	} else if b.ed[v] > 0 && b.bndptr[v] < 0 {
		b.bndInsert(v)
	}
	for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
		u := g.adjncy[e]
		w := g.adjwgt[e]
		if b.where[u] == to {
			b.id[u] += w
			b.ed[u] -= w
		} else {
			b.id[u] -= w
			b.ed[u] += w
		}
		wasBnd := b.bndptr[u] >= 0
		if wasBnd && b.ed[u] == 0 {
			b.bndDelete(u)
		} else if !wasBnd && b.ed[u] > 0 {
			b.bndInsert(u)
		}
		if upd != nil {
			upd(u, wasBnd)
		}
	}
}

// fm runs up to npasses FM passes. Each pass moves boundary vertices by
// decreasing gain, always from the side heavier relative to its target,
// allows a bounded run of non-improving moves and rolls back to the best
// cut seen.
func (b *bisection) fm(c *ctrl, tpw [2]int, npasses int) {
	g := b.g
	if g.n == 0 {
		return
	}
	b.ensureQueues()
	limit := min(max(g.n/100, 15), 100)
	tot := b.pwgts[0] + b.pwgts[1]
	avgvwgt := min(tot/20, 2*tot/g.n)
	origdiff := abs(tpw[0] - b.pwgts[0])
	upd := func(u int32, wasBnd bool) {
		if b.moved[u] >= 0 {
			return
		}
		q := b.q[b.where[u]]
		switch {
		case b.ed[u] == 0 && q.contains(u):
			q.remove(u)
		case b.ed[u] > 0 && q.contains(u):
			q.update(u, int(b.ed[u]-b.id[u]))
		case b.ed[u] > 0:
			q.insert(u, int(b.ed[u]-b.id[u]))
		}
	}
	for pass := 0; pass < npasses; pass++ {
		b.q[0].reset()
		b.q[1].reset()
		initcut := b.cut
		mincut := b.cut
		mindiff := abs(tpw[0] - b.pwgts[0])
		mincutorder := -1
		b.permTmpl = append(b.permTmpl[:0], b.bndind...)
		c.rng.shuffle(b.permTmpl)
		for _, v := range b.permTmpl {
			b.q[b.where[v]].insert(v, int(b.ed[v]-b.id[v]))
		}
		b.swaps = b.swaps[:0]
		for nswaps := 0; nswaps < g.n; nswaps++ {
			from := 1
			if tpw[0]-b.pwgts[0] < tpw[1]-b.pwgts[1] {
				from = 0
			}
			v := b.q[from].pop()
			if v < 0 {
				break
			}
			vw := int(g.vwgt[v])
			newcut := b.cut - int(b.ed[v]-b.id[v])
			newdiff := abs(tpw[0] - b.pwgts[0] + vw*(1-2*from))
			if (newcut < mincut && newdiff <= origdiff+avgvwgt) || (newcut == mincut && newdiff < mindiff) {
				mincut, mindiff, mincutorder = newcut, newdiff, nswaps
			} else if nswaps-mincutorder > limit {
				break
			}
			b.moved[v] = int32(nswaps)
			b.swaps = append(b.swaps, v)
			b.move(v, upd)
		}
		for _, v := range b.swaps {
			b.moved[v] = -1
		}
		for i := len(b.swaps) - 1; i > mincutorder; i-- {
			b.move(b.swaps[i], nil)
		}
		if mincutorder < 0 || mincut == initcut {
			break
		}
	}
}

// balance moves vertices from the overweight side to the other one, in
// order of decreasing gain, until the overweight side fits its target, if
// the bisection violates the tolerance ub.
func (b *bisection) balance(tpw [2]int, ub float64) {
	g := b.g
	if b.imbalance(tpw, ub) <= 0 {
		return
	}
	if abs(tpw[0]-b.pwgts[0]) < 3*g.tvwgt/max(g.n, 1) {
		return
	}
	b.ensureQueues()
	from := int32(0)
	if b.pwgts[0] < tpw[0] {
		from = 1
	}
	to := 1 - from
	q := b.q[0]
	q.reset()
	general := len(b.bndind) == 0
	if general {
		for v := int32(0); int(v) < g.n; v++ {
			if b.where[v] == from {
				q.insert(v, int(b.ed[v]-b.id[v]))
			}
		}
	} else {
		for _, v := range b.bndind {
			if b.where[v] == from {
				q.insert(v, int(b.ed[v]-b.id[v]))
			}
		}
	}
	upd := func(u int32, wasBnd bool) {
		if b.where[u] != from {
			return
		}
		switch {
		case q.contains(u):
			q.update(u, int(b.ed[u]-b.id[u]))
		case !general && b.ed[u] > 0:
			q.insert(u, int(b.ed[u]-b.id[u]))
		}
	}
	for {
		v := q.pop()
		if v < 0 || b.pwgts[to]+int(g.vwgt[v]) > tpw[to] {
			break
		}
		b.move(v, upd)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
