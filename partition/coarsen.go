package partition

// Coarsening phase of the multilevel partitioner: sorted heavy-edge matching
// (Karypis & Kumar 1998) with METIS's two-hop matching of leftover
// low-degree vertices, and contraction of matched pairs.

// coarsenFraction stops coarsening once a level shrinks the graph by less
// than 15 %, as METIS does.
const coarsenFraction = 0.85

// unmatchedFor2Hop is the fraction of unmatched vertices above which
// two-hop matching is tried.
const unmatchedFor2Hop = 0.10

// coarsen returns the hierarchy levels[0] = g, levels[1], ... of ever
// coarser graphs; each level's cmap maps it to the next. Coarsening stops
// at coarsenTo vertices, or when a level no longer shrinks the graph enough.
// No coarse vertex gets heavier than 1.5*tvwgt/coarsenTo through matching.
// When where is not nil, only vertices of the same part are matched, and
// where is carried to the coarsest level, which is returned as well.
func (c *ctrl) coarsen(g *graph, coarsenTo int, where []int32) ([]*graph, []int32) {
	levels := []*graph{g}
	maxvwgt := int(1.5 * float64(g.tvwgt) / float64(max(coarsenTo, 1)))
	cur := g
	for cur.n > coarsenTo && cur.nedges() > 0 {
		match := c.matchSHEM(cur, maxvwgt, where)
		cg := cur.contract(match)
		if cg.n == cur.n {
			cur.cmap = nil
			break
		}
		levels = append(levels, cg)
		if where != nil {
			cw := make([]int32, cg.n)
			for v, p := range where {
				cw[cur.cmap[v]] = p
			}
			where = cw
		}
		if float64(cg.n) >= coarsenFraction*float64(cur.n) || cg.nedges() <= cg.n/2 {
			break
		}
		cur = cg
	}
	return levels, where
}

// matchSHEM computes a sorted heavy-edge matching: vertices are visited in
// increasing order of (capped) degree, ties in a random order, and each
// unmatched vertex is matched with the unmatched neighbour joined by the
// heaviest edge, if their combined weight stays within maxvwgt. match[v] is
// v's mate, v itself when unmatched.
// If where is not nil, only vertices of the same part are matched.
func (c *ctrl) matchSHEM(g *graph, maxvwgt int, where []int32) []int32 {
	n := g.n
	xadj, adjncy, adjwgt, vwgt := g.xadj, g.adjncy, g.adjwgt, g.vwgt

	tperm := make([]int32, n)
	c.rng.perm(tperm)
	avgdeg := int(0.7 * float64(g.nedges()) / float64(n))
	if avgdeg < 1 {
		avgdeg = 1
	}
	// Stable bucket sort of the random order by capped degree.
	counts := make([]int32, avgdeg+2)
	deg := func(i int32) int { return min(int(xadj[i+1]-xadj[i]), avgdeg) }
	for _, i := range tperm {
		counts[deg(i)+1]++
	}
	for d := 1; d < len(counts); d++ {
		counts[d] += counts[d-1]
	}
	perm := make([]int32, n)
	for _, i := range tperm {
		d := deg(i)
		perm[counts[d]] = i
		counts[d]++
	}

	match := make([]int32, n)
	for i := range match {
		match[i] = -1
	}
	lastUnmatched := -1
	nunmatched := 0
	for pi, i := range perm {
		if match[i] != -1 {
			continue
		}
		mate := i
		if int(vwgt[i]) < maxvwgt {
			if xadj[i] == xadj[i+1] && where == nil {
				// An isolated vertex: pair it with any unmatched vertex.
				lastUnmatched = max(pi, lastUnmatched) + 1
				for ; lastUnmatched < n; lastUnmatched++ {
					if j := perm[lastUnmatched]; match[j] == -1 {
						mate = j
						break
					}
				}
			} else {
				best := int32(-1)
				for e := xadj[i]; e < xadj[i+1]; e++ {
					k := adjncy[e]
					if match[k] == -1 && adjwgt[e] > best && int(vwgt[i]+vwgt[k]) <= maxvwgt && (where == nil || where[k] == where[i]) {
						mate, best = k, adjwgt[e]
					}
				}
				if mate == i && 3*int(vwgt[i]) < maxvwgt {
					// Left for the two-hop matching.
					nunmatched++
					continue
				}
			}
		}
		match[i], match[mate] = mate, i
	}

	if nunmatched > int(unmatchedFor2Hop*float64(n)) {
		nunmatched = match2HopAny(g, perm, match, where, maxvwgt, 2, nunmatched)
		if nunmatched > int(1.5*unmatchedFor2Hop*float64(n)) {
			nunmatched = match2HopAny(g, perm, match, where, maxvwgt, 3, nunmatched)
		}
		if nunmatched > int(2*unmatchedFor2Hop*float64(n)) {
			match2HopAny(g, perm, match, where, maxvwgt, n, nunmatched)
		}
	}
	for i, m := range match {
		if m == -1 {
			match[i] = int32(i)
		}
	}
	return match
}

// match2HopAny pairs unmatched vertices of degree below maxdeg that share a
// neighbour (METIS's Match_2HopAny). It returns the new number of
// unmatched vertices.
func match2HopAny(g *graph, perm, match, where []int32, maxvwgt, maxdeg, nunmatched int) int {
	n := g.n
	xadj, adjncy, vwgt := g.xadj, g.adjncy, g.vwgt
	// colptr/rowind list, for every vertex, its unmatched neighbours of
	// low degree.
	colptr := make([]int32, n+1)
	for i := 0; i < n; i++ {
		if d := int(xadj[i+1] - xadj[i]); match[i] == -1 && d > 0 && d < maxdeg {
			for e := xadj[i]; e < xadj[i+1]; e++ {
				colptr[adjncy[e]+1]++
			}
		}
	}
	for i := 0; i < n; i++ {
		colptr[i+1] += colptr[i]
	}
	rowind := make([]int32, colptr[n])
	fill := make([]int32, n)
	copy(fill, colptr[:n])
	for i := 0; i < n; i++ {
		if d := int(xadj[i+1] - xadj[i]); match[i] == -1 && d > 0 && d < maxdeg {
			for e := xadj[i]; e < xadj[i+1]; e++ {
				k := adjncy[e]
				rowind[fill[k]] = int32(i)
				fill[k]++
			}
		}
	}
	for _, i := range perm {
		lo, hi := colptr[i], colptr[i+1]
		if hi-lo < 2 {
			continue
		}
		jj := hi
		for j := lo; j < jj; j++ {
			u := rowind[j]
			if match[u] != -1 {
				continue
			}
			for jj--; jj > j; jj-- {
				v := rowind[jj]
				if match[v] == -1 && int(vwgt[u]+vwgt[v]) <= maxvwgt && (where == nil || where[u] == where[v]) {
					match[u], match[v] = v, u
					nunmatched -= 2
					break
				}
			}
		}
	}
	return nunmatched
}

// contract builds the coarse graph in which every matched pair of g
// becomes one vertex, with summed vertex weights and merged parallel edges;
// it sets g.cmap. Coarse vertices are numbered in order of their smaller
// member.
func (g *graph) contract(match []int32) *graph {
	n := g.n
	cmap := make([]int32, n)
	cn := int32(0)
	for i := int32(0); int(i) < n; i++ {
		if m := match[i]; i <= m {
			cmap[i], cmap[m] = cn, cn
			cn++
		}
	}
	g.cmap = cmap
	cg := &graph{
		n:     int(cn),
		xadj:  make([]int32, cn+1),
		vwgt:  make([]int32, cn),
		tvwgt: g.tvwgt,
	}
	adjncy := make([]int32, 0, len(g.adjncy))
	adjwgt := make([]int32, 0, len(g.adjncy))
	htable := make([]int32, cn)
	for i := range htable {
		htable[i] = -1
	}
	c := int32(0)
	for i := int32(0); int(i) < n; i++ {
		m := match[i]
		if m < i {
			continue
		}
		start := len(adjncy)
		cg.vwgt[c] = g.vwgt[i]
		members := [2]int32{i, m}
		nm := 2
		if m == i {
			nm = 1
		} else {
			cg.vwgt[c] += g.vwgt[m]
		}
		for _, u := range members[:nm] {
			for e := g.xadj[u]; e < g.xadj[u+1]; e++ {
				cx := cmap[g.adjncy[e]]
				if cx == c {
					continue
				}
				if h := htable[cx]; h >= 0 {
					adjwgt[h] += g.adjwgt[e]
				} else {
					htable[cx] = int32(len(adjncy))
					adjncy = append(adjncy, cx)
					adjwgt = append(adjwgt, g.adjwgt[e])
				}
			}
		}
		for _, cx := range adjncy[start:] {
			htable[cx] = -1
		}
		c++
		cg.xadj[c] = int32(len(adjncy))
	}
	cg.adjncy = adjncy
	cg.adjwgt = adjwgt
	return cg
}
