package partition

import (
	"cmp"
	"slices"
)

// Uncoarsening phase: the k-way partition of each level is projected to the
// next finer level and improved by greedy boundary refinement (Karypis &
// Kumar 1998, after METIS 5's Greedy_KWayOptimize) and k-way FM (see
// fm.go), with explicit balancing moves whenever a part exceeds its
// maximum weight.

// overweightFactor lets a refinement move with positive gain overfill its
// target part by up to this many times the gain at the coarser levels, as
// METIS allows; the balancing step repairs the excess.
const overweightFactor = 5

// FM passes per level after the greedy passes, and the number of moves
// without improvement after which an FM pass stops.
const (
	fmPasses = 2
	fmLimit  = 100
)

// kway is a k-way partition of a graph with its gain bookkeeping.
type kway struct {
	g      *graph
	k      int
	where  []int32
	pwgts  []int
	id, ed []int32 // weight to the own part, to all other parts
	conn   []int32 // scratch: weight from one vertex to each part
	parts  []int32 // scratch: parts with conn > 0
	q      *pq
	done   []uint32 // done[v] == stamp: v was extracted in this pass
	stamp  uint32
	perm   []int32
}

// refineKway uncoarsens the partition where of the coarsest level and
// returns the refined, balanced partition of levels[0].
func (c *ctrl) refineKway(levels []*graph, where []int32) []int32 {
	fine := levels[0]
	r := &kway{
		k:     c.k,
		where: make([]int32, fine.n),
		pwgts: make([]int, c.k),
		id:    make([]int32, fine.n),
		ed:    make([]int32, fine.n),
		conn:  make([]int32, c.k),
		q:     newPQ(fine.n),
		done:  make([]uint32, fine.n),
	}
	copy(r.where, where)
	for l := len(levels) - 1; l >= 0; l-- {
		g := levels[l]
		if l < len(levels)-1 {
			// Project the partition of levels[l+1] onto levels[l].
			coarse := append([]int32(nil), r.where[:levels[l+1].n]...)
			for v := 0; v < g.n; v++ {
				r.where[v] = coarse[g.cmap[v]]
			}
		}
		r.g = g
		r.compute()
		r.balance(c.maxp, false)
		ff := float64(overweightFactor)
		if l == 0 {
			ff = 0
		}
		r.greedy(c, c.niter, ff)
		r.fm(c, fmPasses, fmLimit, c.maxp)
	}
	// Enforce the balance on the finest level: boundary moves first, then
	// any vertex (with unit weights this always succeeds, as k*maxp >= n).
	movedBnd := r.balance(c.maxp, false)
	if movedAll := r.balance(c.maxp, true); movedBnd || movedAll {
		r.greedy(c, c.niter, 0)
	}
	r.fillEmpty()
	return r.where
}

// compute derives part weights and degrees from where.
func (r *kway) compute() {
	g := r.g
	for p := range r.pwgts {
		r.pwgts[p] = 0
	}
	for v := 0; v < g.n; v++ {
		w := r.where[v]
		r.pwgts[w] += int(g.vwgt[v])
		var id, ed int32
		for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
			if r.where[g.adjncy[e]] == w {
				id += g.adjwgt[e]
			} else {
				ed += g.adjwgt[e]
			}
		}
		r.id[v], r.ed[v] = id, ed
	}
}

// gatherConn fills conn and parts with the weight from v to each other
// part; the caller must call clearConn.
func (r *kway) gatherConn(v int32) {
	g := r.g
	from := r.where[v]
	for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
		p := r.where[g.adjncy[e]]
		if p == from {
			continue
		}
		if r.conn[p] == 0 {
			r.parts = append(r.parts, p)
		}
		r.conn[p] += g.adjwgt[e]
	}
}

func (r *kway) clearConn() {
	for _, p := range r.parts {
		r.conn[p] = 0
	}
	r.parts = r.parts[:0]
}

// pickTarget returns the part, among those gathered by gatherConn, that the
// vertex is most connected to (the lighter one on ties) among the parts p
// with ok(p), or -1 if there is none.
func (r *kway) pickTarget(ok func(p int32) bool) int32 {
	best := int32(-1)
	for _, p := range r.parts {
		if !ok(p) {
			continue
		}
		if best < 0 || r.conn[p] > r.conn[best] || (r.conn[p] == r.conn[best] && r.pwgts[p] < r.pwgts[best]) {
			best = p
		}
	}
	return best
}

// bestTarget gathers the connections of v and returns the part pickTarget
// chooses for it, with the weight from v to that part (0 if there is none),
// leaving the scratch clear.
func (r *kway) bestTarget(v int32, ok func(p int32) bool) (to, connTo int32) {
	r.gatherConn(v)
	to = r.pickTarget(ok)
	if to >= 0 {
		connTo = r.conn[to]
	}
	r.clearConn()
	return to, connTo
}

// move puts v into part to, given the weight connTo from v to that part,
// and updates the degrees of v and its neighbours; upd (if not nil) is
// called for every neighbour afterwards.
func (r *kway) move(v, to int32, connTo int32, upd func(u int32)) {
	g := r.g
	from := r.where[v]
	vw := int(g.vwgt[v])
	r.where[v] = to
	r.pwgts[from] -= vw
	r.pwgts[to] += vw
	tot := r.id[v] + r.ed[v]
	r.id[v], r.ed[v] = connTo, tot-connTo
	for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
		u := g.adjncy[e]
		w := g.adjwgt[e]
		switch r.where[u] {
		case from:
			r.id[u] -= w
			r.ed[u] += w
		case to:
			r.id[u] += w
			r.ed[u] -= w
		default:
			continue
		}
		if upd != nil {
			upd(u)
		}
	}
}

// greedy runs up to npasses refinement passes. A pass visits the vertices
// that could move without increasing the cut (ed >= id, ed > 0) by
// decreasing ed-id, moving each to the adjacent part it is most connected
// to if that reduces the cut, or keeps it and improves the balance, within
// the weight limits. Vertices extracted once are not revisited in the pass.
func (r *kway) greedy(c *ctrl, npasses int, ffactor float64) {
	g := r.g
	q := r.q
	cand := func(u int32) bool { return r.ed[u] > 0 && r.ed[u] >= r.id[u] }
	upd := func(u int32) { r.requeue(u, cand) }
	for pass := 0; pass < npasses; pass++ {
		r.startPass(c, cand)
		nmoved := 0
		for iter := 0; ; iter++ {
			v := q.pop()
			if v < 0 {
				break
			}
			r.done[v] = r.stamp
			from := r.where[v]
			vw := int(g.vwgt[v])
			if r.id[v] > 0 && r.pwgts[from]-vw < c.minp {
				continue
			}
			best, connTo := r.bestTarget(v, func(p int32) bool {
				gain := int(r.conn[p] - r.id[v])
				return gain >= 0 && float64(r.pwgts[p]+vw) <= float64(c.maxp)+ffactor*float64(gain)
			})
			if best < 0 {
				continue
			}
			gain := int(connTo - r.id[v])
			// Zero-gain moves are taken when they improve the balance, and
			// on every other extraction anyway (as METIS does), which lets
			// the partition drift along plateaus of equal cut.
			if gain == 0 && r.pwgts[from] < c.maxp && r.pwgts[from] <= r.pwgts[best]+vw && iter%2 != 0 {
				continue
			}
			r.move(v, best, connTo, upd)
			nmoved++
		}
		if nmoved == 0 {
			break
		}
	}
}

// key is the priority of v in the refinement queue: ed - id, the gain of
// moving v if all its external edges led to one part.
func (r *kway) key(v int32) int { return int(r.ed[v] - r.id[v]) }

// startPass begins a refinement pass: a new stamp, and the queue holding
// the vertices with cand, inserted in random order with their keys.
func (r *kway) startPass(c *ctrl, cand func(v int32) bool) {
	r.stamp++
	r.q.reset()
	r.perm = r.perm[:0]
	for v := int32(0); int(v) < r.g.n; v++ {
		if cand(v) {
			r.perm = append(r.perm, v)
		}
	}
	c.rng.shuffle(r.perm)
	for _, v := range r.perm {
		r.q.insert(v, r.key(v))
	}
}

// requeue updates the queue after the degrees of u changed within a pass:
// u is left alone if it was extracted in this pass, else rekeyed or
// inserted if it is a candidate and removed if not.
func (r *kway) requeue(u int32, cand func(v int32) bool) {
	q := r.q
	switch {
	case r.done[u] == r.stamp:
	case q.contains(u) && cand(u):
		q.update(u, r.key(u))
	case q.contains(u):
		q.remove(u)
	case cand(u):
		q.insert(u, r.key(u))
	}
}

// balance moves vertices out of parts heavier than maxp, into parts where
// they fit, choosing the moves that cost the least cut first. Only boundary
// vertices and adjacent parts are considered unless general is set, in
// which case every vertex of an overweight part may move to the lightest
// part too. It reports whether any vertex moved; the result may still be
// unbalanced when vertex weights make balance impossible.
func (r *kway) balance(maxp int, general bool) bool {
	g := r.g
	q := r.q
	movedAny := false
	over := func(p int32) bool { return r.pwgts[p] > maxp }
	var lightQ *pq // parts by increasing weight, in general mode
	if general {
		lightQ = newPQ(r.k)
		for p, w := range r.pwgts {
			lightQ.insert(int32(p), -w)
		}
	}
	for {
		q.reset()
		for v := int32(0); int(v) < g.n; v++ {
			if over(r.where[v]) && (general || r.ed[v] > 0) {
				q.insert(v, r.key(v))
			}
		}
		if q.len() == 0 {
			return movedAny
		}
		upd := func(u int32) {
			if q.contains(u) {
				q.update(u, r.key(u))
			} else if over(r.where[u]) && r.ed[u] > 0 {
				q.insert(u, r.key(u))
			}
		}
		moved := 0
		for {
			v := q.pop()
			if v < 0 {
				break
			}
			if !over(r.where[v]) {
				continue
			}
			vw := int(g.vwgt[v])
			r.gatherConn(v)
			best := r.pickTarget(func(p int32) bool { return r.pwgts[p]+vw <= maxp })
			if general {
				light, _ := lightQ.top()
				if r.pwgts[light]+vw <= maxp && (best < 0 || r.conn[light] > r.conn[best]) {
					best = light
				}
			}
			var connTo int32
			if best >= 0 {
				connTo = r.conn[best]
			}
			r.clearConn()
			if best < 0 {
				continue
			}
			gain := int(connTo - r.id[v])
			if _, top := q.top(); q.len() > 0 && gain < top {
				// The key was optimistic; requeue with the true gain.
				q.insert(v, gain)
				continue
			}
			from := r.where[v]
			r.move(v, best, connTo, upd)
			if general {
				lightQ.update(from, -r.pwgts[from])
				lightQ.update(best, -r.pwgts[best])
			}
			moved++
			movedAny = true
		}
		if moved == 0 {
			return movedAny
		}
	}
}

// fillEmpty gives every empty part one vertex of the currently heaviest
// part, the one least connected inside it. It expects unit vertex weights
// and n >= k, so the heaviest part holds at least two vertices while a
// part is empty.
func (r *kway) fillEmpty() {
	g := r.g
	var empty []int32
	for p, w := range r.pwgts {
		if w == 0 {
			empty = append(empty, int32(p))
		}
	}
	if len(empty) == 0 {
		return
	}
	// Vertices of each part by increasing internal degree.
	order := make([]int32, g.n)
	for v := range order {
		order[v] = int32(v)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(r.id[a], r.id[b]) })
	start := make([]int32, r.k+1)
	for _, p := range r.where {
		start[p+1]++
	}
	for p := 0; p < r.k; p++ {
		start[p+1] += start[p]
	}
	next := slices.Clone(start[:r.k])
	byPart := make([]int32, g.n)
	for _, v := range order {
		p := r.where[v]
		byPart[next[p]] = v
		next[p]++
	}
	copy(next, start[:r.k])
	heavy := newPQ(r.k)
	for p, w := range r.pwgts {
		if w > 0 {
			heavy.insert(int32(p), w)
		}
	}
	for _, p := range empty {
		h, _ := heavy.top()
		v := byPart[next[h]]
		next[h]++
		// p is still empty, so v has no weight to it.
		r.move(v, p, 0, nil)
		heavy.update(h, r.pwgts[h])
	}
}
