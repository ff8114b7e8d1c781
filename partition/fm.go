package partition

// k-way Fiduccia-Mattheyses refinement with hill climbing, run after the
// greedy passes of each level: unlike the greedy refinement it also makes
// moves that increase the cut, in the hope of a larger decrease later, and
// rolls back to the best cut seen (the k-way FM of Karypis & Kumar's
// "Multilevel k-way Partitioning Scheme for Irregular Graphs", 1998, in the
// single-queue form used by later partitioners).

// fm runs up to npasses FM passes. Moves never overfill a part beyond
// maxp; each vertex moves at most once per pass; a pass ends after limit
// moves without improvement and is rolled back to its best prefix.
func (r *kway) fm(c *ctrl, npasses, limit, maxp int) {
	g := r.g
	q := r.q
	type mv struct{ v, from int32 }
	var moves []mv
	// Keys are upper bounds (ed - id) of the true best gain, refreshed
	// lazily when a vertex reaches the top of the queue.
	boundary := func(u int32) bool { return r.ed[u] > 0 }
	upd := func(u int32) { r.requeue(u, boundary) }
	for pass := 0; pass < npasses; pass++ {
		r.startPass(c, boundary)
		moves = moves[:0]
		cur, best, bestLen := 0, 0, 0
		for q.len() > 0 {
			v, key := q.top()
			from := r.where[v]
			vw := int(g.vwgt[v])
			if r.id[v] > 0 && r.pwgts[from]-vw < c.minp {
				q.pop()
				continue
			}
			to, connTo := r.bestTarget(v, func(p int32) bool { return r.pwgts[p]+vw <= maxp })
			if to < 0 {
				q.pop()
				continue
			}
			gain := int(connTo - r.id[v])
			if gain < key {
				// The key was optimistic: requeue with the true gain,
				// unless v stays on top anyway.
				q.update(v, gain)
				if top, _ := q.top(); top != v {
					continue
				}
			}
			q.pop()
			r.done[v] = r.stamp
			r.move(v, to, connTo, upd)
			moves = append(moves, mv{v, from})
			cur += gain
			if cur > best {
				best, bestLen = cur, len(moves)
			} else if len(moves)-bestLen > limit {
				break
			}
		}
		for i := len(moves) - 1; i >= bestLen; i-- {
			v, from := moves[i].v, moves[i].from
			r.gatherConn(v)
			connFrom := r.conn[from]
			r.clearConn()
			r.move(v, from, connFrom, nil)
		}
		if best <= 0 {
			break
		}
	}
}
