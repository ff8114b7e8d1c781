package partition

import "math"

// Initial partitioning phase: the coarsest graph of the k-way hierarchy is
// split into k parts by recursive multilevel bisection, as METIS does
// (Karypis & Kumar 1998): every bisection coarsens its graph again, grows
// part 0 greedily from random seed vertices, keeps the best of several
// tries after Fiduccia-Mattheyses (FM) refinement, and refines with FM
// while uncoarsening.

const (
	bisectCoarsenTo = 20 // coarsening target of a bisection
	bisectTries     = 4  // multilevel bisections per split, best kept
	growTriesSmall  = 5  // greedy growings on a small coarsest graph
	growTriesLarge  = 7  // greedy growings on a large coarsest graph
	growFMPasses    = 4  // FM passes after each growing
)

// initialKway returns a k-way partition of g by recursive bisection.
func (c *ctrl) initialKway(g *graph) []int32 {
	where := make([]int32, g.n)
	labels := make([]int32, g.n)
	for i := range labels {
		labels[i] = int32(i)
	}
	// Each vertex goes through about log2(k) bisections, whose tolerances
	// compound; METIS uses ub^(1/ln k) per bisection.
	ub := math.Pow(1+c.imb, 1/math.Log(float64(c.k)))
	c.recursiveBisect(g, labels, c.k, 0, where, ub)
	return where
}

// recursiveBisect assigns parts first..first+k-1 to the vertices of g,
// writing out[labels[v]] for each vertex v.
func (c *ctrl) recursiveBisect(g *graph, labels []int32, k int, first int32, out []int32, ub float64) {
	if k == 1 || g.n <= 1 {
		for _, l := range labels {
			out[l] = first
		}
		return
	}
	if g.n <= k {
		for v, l := range labels {
			out[l] = first + int32(v)
		}
		return
	}
	k0 := k / 2
	side := c.multilevelBisect(g, float64(k0)/float64(k), ub)
	g0, l0, g1, l1 := g.split(side, labels)
	c.recursiveBisect(g0, l0, k0, first, out, ub)
	c.recursiveBisect(g1, l1, k-k0, first+int32(k0), out, ub)
}

// split returns the subgraphs induced by the vertices of side 0 and side 1
// with their labels.
func (g *graph) split(side []int32, labels []int32) (*graph, []int32, *graph, []int32) {
	var subs [2]*graph
	var lab [2][]int32
	local := make([]int32, g.n)
	var cnt [2]int32
	for v, s := range side {
		local[v] = cnt[s]
		cnt[s]++
	}
	for s := 0; s < 2; s++ {
		sg := &graph{
			n:    int(cnt[s]),
			xadj: make([]int32, 1, cnt[s]+1),
			vwgt: make([]int32, 0, cnt[s]),
		}
		lab[s] = make([]int32, 0, cnt[s])
		for v := 0; v < g.n; v++ {
			if side[v] != int32(s) {
				continue
			}
			for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
				if u := g.adjncy[e]; side[u] == int32(s) {
					sg.adjncy = append(sg.adjncy, local[u])
					sg.adjwgt = append(sg.adjwgt, g.adjwgt[e])
				}
			}
			sg.xadj = append(sg.xadj, int32(len(sg.adjncy)))
			sg.vwgt = append(sg.vwgt, g.vwgt[v])
			sg.tvwgt += int(g.vwgt[v])
			lab[s] = append(lab[s], labels[v])
		}
		subs[s] = sg
	}
	return subs[0], lab[0], subs[1], lab[1]
}

// multilevelBisect splits g into sides 0 and 1 with target weight fraction
// frac0 for side 0 and tolerance ub, and returns the side of each vertex.
func (c *ctrl) multilevelBisect(g *graph, frac0, ub float64) []int32 {
	tpw0 := int(frac0 * float64(g.tvwgt))
	tpw := [2]int{tpw0, g.tvwgt - tpw0}
	var best []int32
	bestCut, bestBal := 0, 0.0
	for t := 0; t < bisectTries; t++ {
		levels, _ := c.coarsen(g, bisectCoarsenTo, nil)
		coarsest := levels[len(levels)-1]
		tries := growTriesLarge
		if coarsest.n <= bisectCoarsenTo {
			tries = growTriesSmall
		}
		b := c.growBisection(coarsest, tpw, ub, tries)
		for l := len(levels) - 2; l >= 0; l-- {
			b = b.project(levels[l])
			b.balance(tpw, ub)
			b.fm(c, tpw, c.niter)
		}
		bal := b.imbalance(tpw, ub)
		if t == 0 || (bal <= 0.0005 && b.cut < bestCut) || (bestBal > 0.0005 && bal < bestBal) {
			best, bestCut, bestBal = b.where, b.cut, bal
		}
	}
	return best
}

// growBisection makes tries greedy graph growings of side 0 from random
// seed vertices, each followed by balancing and FM, and keeps the best.
func (c *ctrl) growBisection(g *graph, tpw [2]int, ub float64, tries int) *bisection {
	n := g.n
	maxw1 := int(ub * float64(tpw[1]))
	minw1 := int(float64(tpw[1]) / ub)
	var best []int32
	bestCut := 0
	b := newBisection(g)
	q := newPQ(n)
	gain := make([]int32, n)
	for t := 0; t < tries; t++ {
		where := b.where
		for i := range where {
			where[i] = 1
			gain[i] = -g.wdeg(int32(i)) // weight to side 0 - weight to side 1
		}
		q.reset()
		pw1 := g.tvwgt
		for pw1 > maxw1 {
			v := q.pop()
			if v < 0 {
				// Start (or restart, on a disconnected graph) from a
				// random vertex of side 1.
				r := c.rng.intn(n)
				for where[r] != 1 {
					r = (r + 1) % n
				}
				v = int32(r)
			}
			if pw1 < g.tvwgt && pw1-int(g.vwgt[v]) < minw1 {
				// Too heavy to move; try the next one.
				if q.len() == 0 {
					break
				}
				continue
			}
			where[v] = 0
			pw1 -= int(g.vwgt[v])
			for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
				u := g.adjncy[e]
				if where[u] != 1 {
					continue
				}
				gain[u] += 2 * g.adjwgt[e]
				if q.contains(u) {
					q.update(u, int(gain[u]))
				} else {
					q.insert(u, int(gain[u]))
				}
			}
		}
		if pw1 == g.tvwgt && n > 1 {
			where[c.rng.intn(n)] = 0
		}
		if pw1 == 0 && n > 1 {
			where[c.rng.intn(n)] = 1
		}
		b.compute()
		b.balance(tpw, ub)
		b.fm(c, tpw, growFMPasses)
		if t == 0 || b.cut < bestCut {
			best = append(best[:0], where...)
			bestCut = b.cut
			if bestCut == 0 {
				break
			}
		}
	}
	copy(b.where, best)
	b.compute()
	return b
}

// wdeg returns the weighted degree of v.
func (g *graph) wdeg(v int32) int32 {
	s := int32(0)
	for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
		s += g.adjwgt[e]
	}
	return s
}
