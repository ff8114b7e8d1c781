package graphio

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/floats"
)

// maxExactPairs bounds the node pairs NonIIDWith keeps in memory (4 bytes
// each); above it the caller must subsample with NonIIDOptions.MaxNodes.
const maxExactPairs = 1 << 29

// gramBlock is the number of rows of one Z Z^T block.
const gramBlock = 512

// NonIIDOptions tunes NonIIDWith. The zero value computes everything
// exactly on all nodes, with GOMAXPROCS workers.
type NonIIDOptions struct {
	// MaxNodes, when positive and smaller than the total node count, makes
	// the MMD term use a seeded stratified sample of about MaxNodes nodes:
	// client k contributes max(1, round(MaxNodes*n_k/N)) nodes drawn
	// uniformly without replacement. The JSD term always uses every node.
	MaxNodes int
	// Seed drives the sample when MaxNodes is in effect (client k's nodes
	// are the first ones of Permutation(n_k, Seed+k)).
	Seed uint64
	// Workers bounds the goroutines of the kernel passes; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int
}

// NonIIDStats is the non-IID degree xi = JSD + MMD of a set of clients
// (FedAux paper appendix) with its ingredients.
type NonIIDStats struct {
	// Counts[k][c] is the number of client k's nodes with label c.
	Counts [][]int
	// Prior is the global label distribution P over all clients' nodes.
	Prior []float64
	// JS[k] is JS(P_k, P) in nats.
	JS []float64
	// JSD is the mean of JS over clients.
	JSD float64
	// PairMMD[k][l] is the squared MMD between clients k and l (zero
	// diagonal, symmetric).
	PairMMD [][]float64
	// MMD is the mean of PairMMD[k][l] over pairs k < l (0 for one client).
	MMD float64
	// Bandwidth is the RBF bandwidth: the median Euclidean distance over
	// all unordered pairs of distinct nodes pooled from all clients.
	Bandwidth float64
	// Nodes is the number of nodes that entered the MMD term (all nodes
	// unless NonIIDOptions.MaxNodes subsampled them).
	Nodes int
	// Xi is JSD + MMD.
	Xi float64
}

// NonIID computes the non-IID degree of clients exactly; it is
// NonIIDWith(clients, numClasses, NonIIDOptions{}).
func NonIID(clients []*Client, numClasses int) (*NonIIDStats, error) {
	return NonIIDWith(clients, numClasses, NonIIDOptions{})
}

// NonIIDWith computes xi = JSD + MMD over clients (paper appendix, spec
// section 10). The FedAux reference code (github.com/JhuoW/FedAux) ships no
// implementation of this metric, so the conventions are the standard ones:
//
//   - JSD = (1/K) sum_k JS(P_k, P), JS(p, q) = KL(p||m)/2 + KL(q||m)/2 with
//     m = (p+q)/2 and natural logarithms; P_k is client k's label
//     distribution, P the distribution over the nodes of all clients
//     (0 log 0 = 0). Labels must lie in [0, numClasses); numClasses <= 0
//     means the largest label plus one.
//   - z = A_k X_k: each node's row is the sum of its neighbours' feature
//     rows in its client's own induced subgraph (binary adjacency, no self
//     loops, no normalisation); X_k are the client's features as stored in
//     its Graph (sparse or dense; row-normalised when the caller applied
//     RowNormalize as the data protocol does).
//   - Gaussian kernel k(x, y) = exp(-||x-y||^2 / (2 b^2)) with b the median
//     heuristic (Gretton et al., 2012): the median of ||z_i - z_j|| over all
//     unordered pairs of distinct nodes pooled from every client (the
//     average of the two middle values for an even count, as numpy does).
//   - MMD^2_kl = ||mean phi(z) over V_k - mean phi(z) over V_l||^2, the
//     biased V-statistic mean K(V_k,V_k) + mean K(V_l,V_l) -
//     2 mean K(V_k,V_l) (diagonal terms included); MMD is the mean of
//     MMD^2_kl over the K(K-1)/2 pairs k < l, and enters xi squared.
//
// The pairwise squared distances come from blocked Z Z^T products (gonum
// BLAS) and are held in single precision (relative error below 1e-7), so
// memory is 2 N^2 bytes for N nodes; the median is an exact selection over
// them. Above 2^29 pairs (about 32800 nodes) MaxNodes must be set.
//
// It returns an error for no clients, an empty client, a label out of
// range, missing or mismatched features, non-finite z, or a zero median
// distance.
func NonIIDWith(clients []*Client, numClasses int, opt NonIIDOptions) (*NonIIDStats, error) {
	if len(clients) == 0 {
		return nil, errors.New("graphio: NonIID: no clients")
	}
	if opt.MaxNodes < 0 {
		return nil, fmt.Errorf("graphio: NonIID: MaxNodes = %d, want >= 0", opt.MaxNodes)
	}
	st, err := labelJSD(clients, numClasses)
	if err != nil {
		return nil, err
	}
	k := len(clients)
	st.PairMMD = make([][]float64, k)
	for i := range st.PairMMD {
		st.PairMMD[i] = make([]float64, k)
	}
	if k > 1 {
		if err := clientMMD(clients, opt, st); err != nil {
			return nil, err
		}
	} else {
		st.Nodes = clients[0].Graph.N()
	}
	st.Xi = st.JSD + st.MMD
	return st, nil
}

// labelJSD fills Counts, Prior, JS and JSD.
func labelJSD(clients []*Client, numClasses int) (*NonIIDStats, error) {
	if numClasses <= 0 {
		for _, c := range clients {
			for _, y := range c.Graph.Labels {
				numClasses = max(numClasses, y+1)
			}
		}
	}
	st := &NonIIDStats{Counts: make([][]int, len(clients)), Prior: make([]float64, numClasses), JS: make([]float64, len(clients))}
	total := 0
	for k, c := range clients {
		g := c.Graph
		if g == nil || g.Adj == nil || g.N() == 0 {
			return nil, fmt.Errorf("graphio: NonIID: client %d has no nodes", k)
		}
		if len(g.Labels) != g.N() {
			return nil, fmt.Errorf("graphio: NonIID: client %d has %d labels for %d nodes", k, len(g.Labels), g.N())
		}
		st.Counts[k] = make([]int, numClasses)
		for i, y := range g.Labels {
			if y < 0 || y >= numClasses {
				return nil, fmt.Errorf("graphio: NonIID: client %d node %d has label %d, want [0,%d)", k, i, y, numClasses)
			}
			st.Counts[k][y]++
		}
		for y, n := range st.Counts[k] {
			st.Prior[y] += float64(n)
		}
		total += g.N()
	}
	for y := range st.Prior {
		st.Prior[y] /= float64(total)
	}
	pk := make([]float64, numClasses)
	for k, c := range clients {
		for y, n := range st.Counts[k] {
			pk[y] = float64(n) / float64(c.Graph.N())
		}
		st.JS[k] = jsDivergence(pk, st.Prior)
		st.JSD += st.JS[k]
	}
	st.JSD /= float64(len(clients))
	return st, nil
}

// jsDivergence returns the Jensen-Shannon divergence of the distributions
// p and q in nats.
func jsDivergence(p, q []float64) float64 {
	var s float64
	for i := range p {
		m := (p[i] + q[i]) / 2
		if p[i] > 0 {
			s += p[i] * math.Log(p[i]/m)
		}
		if q[i] > 0 {
			s += q[i] * math.Log(q[i]/m)
		}
	}
	return s / 2
}

// clientMMD fills PairMMD, MMD, Bandwidth and Nodes.
func clientMMD(clients []*Client, opt NonIIDOptions, st *NonIIDStats) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sel := selectNodes(clients, opt)
	z, f, off, err := propagate(clients, sel)
	if err != nil {
		return err
	}
	m := off[len(off)-1]
	st.Nodes = m
	pairs := m * (m - 1) / 2
	if pairs > maxExactPairs {
		return fmt.Errorf("graphio: NonIID: %d nodes give %d pairs, more than %d; set NonIIDOptions.MaxNodes", m, pairs, maxExactPairs)
	}
	d2 := pairDistances(z, m, f, workers)
	st.Bandwidth = medianDistance(d2, workers)
	if !(st.Bandwidth > 0) {
		return fmt.Errorf("graphio: NonIID: median pairwise distance of z = A X is %v; the RBF bandwidth is undefined", st.Bandwidth)
	}
	sums := kernelSums(d2, off, 1/(2*st.Bandwidth*st.Bandwidth), workers)
	k := len(clients)
	within := make([]float64, k)
	for a := range k {
		n := float64(off[a+1] - off[a])
		within[a] = (n + 2*sums[a*k+a]) / (n * n)
	}
	for a := range k {
		for b := a + 1; b < k; b++ {
			na, nb := float64(off[a+1]-off[a]), float64(off[b+1]-off[b])
			cross := (sums[a*k+b] + sums[b*k+a]) / (na * nb)
			v := max(within[a]+within[b]-2*cross, 0)
			st.PairMMD[a][b], st.PairMMD[b][a] = v, v
			st.MMD += v
		}
	}
	st.MMD /= float64(k * (k - 1) / 2)
	return nil
}

// selectNodes returns, per client, the local nodes entering the MMD term
// (nil means all of them).
func selectNodes(clients []*Client, opt NonIIDOptions) [][]int {
	total := 0
	for _, c := range clients {
		total += c.Graph.N()
	}
	sel := make([][]int, len(clients))
	if opt.MaxNodes <= 0 || opt.MaxNodes >= total {
		return sel
	}
	for k, c := range clients {
		n := c.Graph.N()
		q := int(math.Round(float64(opt.MaxNodes) * float64(n) / float64(total)))
		p := Permutation(n, opt.Seed+uint64(k))
		sel[k] = p[:min(max(q, 1), n)]
		slices.Sort(sel[k])
	}
	return sel
}

// propagate returns the pooled rows z = A_k X_k of the selected nodes of
// every client, row-major with f columns, client k in rows off[k]:off[k+1].
func propagate(clients []*Client, sel [][]int) (z []float64, f int, off []int, err error) {
	f = -1
	off = make([]int, len(clients)+1)
	for k, c := range clients {
		g := c.Graph
		rows, nf := -1, 0
		switch {
		case g.Dense != nil:
			rows, nf = g.Dense.Dims()
		case g.Features != nil:
			rows, nf = g.Features.Rows, g.Features.Cols
		}
		if rows < 0 {
			return nil, 0, nil, fmt.Errorf("graphio: NonIID: client %d has no features", k)
		} else if rows != g.N() {
			return nil, 0, nil, fmt.Errorf("graphio: NonIID: client %d has %d feature rows for %d nodes", k, rows, g.N())
		}
		if f >= 0 && nf != f {
			return nil, 0, nil, fmt.Errorf("graphio: NonIID: client %d has %d features, client 0 has %d", k, nf, f)
		}
		f = nf
		n := g.N()
		if sel[k] != nil {
			n = len(sel[k])
		}
		off[k+1] = off[k] + n
	}
	z = make([]float64, off[len(clients)]*f)
	for k, c := range clients {
		g := c.Graph
		for r := range off[k+1] - off[k] {
			i := r
			if sel[k] != nil {
				i = sel[k][r]
			}
			row := z[(off[k]+r)*f : (off[k]+r+1)*f]
			cols, vals := g.Adj.Row(i)
			for e, j := range cols {
				w := vals[e]
				if g.Dense != nil {
					for t, x := range g.Dense.RawRowView(j) {
						row[t] += w * x
					}
					continue
				}
				fc, fv := g.Features.Row(j)
				for t, col := range fc {
					row[col] += w * fv[t]
				}
			}
			for _, x := range row {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, 0, nil, fmt.Errorf("graphio: NonIID: client %d node %d: z = A X is not finite", k, i)
				}
			}
		}
	}
	return z, f, off, nil
}

// rowStart is the offset of row i in the packed strict upper triangle of
// an m x m matrix.
func rowStart(i, m int) int { return i*m - i*(i+1)/2 }

// pairDistances returns the squared distances ||z_i - z_j||^2 for i < j in
// the packed strict upper triangle (row-major), in single precision. The
// Gram blocks Z_I Z^T come from BLAS Gemm, or from sparse row products when
// z has few non-zeros (bag-of-words features on sparse graphs).
func pairDistances(z []float64, m, f, workers int) []float32 {
	norms := make([]float64, m)
	nnz := 0
	for i := range m {
		row := z[i*f : (i+1)*f]
		norms[i] = floats.Dot(row, row)
		for _, x := range row {
			if x != 0 {
				nnz++
			}
		}
	}
	d2 := make([]float32, m*(m-1)/2)
	if f == 0 || m < 2 {
		return d2
	}
	// gram(i0, b, g) fills g with the b x (m-i0) block Z[i0:i0+b] Z[i0:]^T;
	// entry (r, c) is at g[r*rs + c*cs].
	var gram func(i0, b int, g []float64) (rs, cs int)
	if nnz*8 < m*f {
		gram = sparseGram(z, m, f, workers)
	} else {
		gram = denseGram(z, m, f, workers)
	}
	buf := make([]float64, gramBlock*m)
	for i0 := 0; i0 < m-1; i0 += gramBlock {
		b := min(gramBlock, m-i0)
		w := m - i0
		rs, cs := gram(i0, b, buf)
		parallelRange(b, workers, func(r int) {
			i := i0 + r
			out := d2[rowStart(i, m) : rowStart(i, m)+m-1-i]
			for c := r + 1; c < w; c++ {
				v := norms[i] + norms[i0+c] - 2*buf[r*rs+c*cs]
				if !(v > 0) { // also turns -0 and NaN into +0
					v = 0
				}
				out[c-r-1] = float32(v)
			}
		})
	}
	return d2
}

// gemmBlock and gemmMinPar are gonum's Dgemm block size and the number of
// blocks from which it splits a product into blocks (blas/gonum:
// blockSize, minParBlock), whose sums denseGram keeps.
const gemmBlock, gemmMinPar = 64, 4

// denseGram returns a Gram block function for a dense z: the b x w block
// Z[i0:i0+b] Z[i0:]^T, row-major, with the bits gonum's
// Dgemm(NoTrans, Trans, 1, ..., 0, ...) gives it (the package used
// blas64.Gemm before). Gonum splits a product of at least gemmMinPar
// blocks of gemmBlock x gemmBlock entries into such blocks and sums each
// entry from +0 by the dot products of its rows' gemmBlock-column pieces,
// in order; a smaller product gets +0 plus one dot product of the whole
// rows. Every dot product is vec.Dot's, which keeps the order of gonum's
// DotUnitary on amd64, so that the block is the same there; vec.DotMN
// computes them several rows at a time.
func denseGram(z []float64, m, f, workers int) func(i0, b int, g []float64) (int, int) {
	blocks := func(n int) int { return (n + gemmBlock - 1) / gemmBlock }
	var ys [][]float64
	return func(i0, b int, g []float64) (int, int) {
		w := m - i0
		piece := f
		if blocks(b)*blocks(w) >= gemmMinPar {
			piece = gemmBlock
		}
		np := (f + piece - 1) / piece
		ys = slices.Grow(ys[:0], np*w)[:np*w]
		for p := range np {
			k0, k1 := p*piece, min((p+1)*piece, f)
			for c := range w {
				ys[p*w+c] = z[(i0+c)*f+k0 : (i0+c)*f+k1]
			}
		}
		// A task sums a tile of rows x cols entries, piece after piece:
		// its pieces of z (64 x 64 and 256 x 64 entries) and its sums stay
		// in the second-level cache, and z is read from memory once a
		// tile rather than once a few rows.
		const rows, cols = 64, 256
		rt, ct := (b+rows-1)/rows, (w+cols-1)/cols
		tasks := rt * ct
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(max(workers, 1), tasks) {
			wg.Go(func() {
				dot := make([]float64, rows*cols)
				xs := make([][]float64, rows)
				for {
					t := int(next.Add(1) - 1)
					if t >= tasks {
						return
					}
					r0, c0 := t/ct*rows, t%ct*cols
					r1, c1 := min(r0+rows, b), min(c0+cols, w)
					nr, nc := r1-r0, c1-c0
					for a := r0; a < r1; a++ {
						clear(g[a*w+c0 : a*w+c1])
					}
					for p := range np {
						k0, k1 := p*piece, min((p+1)*piece, f)
						for a := range nr {
							xs[a] = z[(i0+r0+a)*f+k0 : (i0+r0+a)*f+k1]
						}
						d := dot[:nr*nc]
						vec.DotMN(d, xs[:nr], ys[p*w+c0:p*w+c1])
						for a := range nr {
							out := g[(r0+a)*w+c0 : (r0+a)*w+c1]
							for e, v := range d[a*nc : (a+1)*nc] {
								out[e] += v
							}
						}
					}
				}
			})
		}
		wg.Wait()
		return w, 1
	}
}

// sparseGram returns a Gram block function for a sparse z: column c of the
// block is the sum over the non-zeros (t, v) of row i0+c of v times row t
// of the transposed dense block Z[i0:i0+b]^T.
func sparseGram(z []float64, m, f, workers int) func(i0, b int, g []float64) (int, int) {
	ptr := make([]int, m+1)
	var idx []int32
	var val []float64
	for i := range m {
		for t, x := range z[i*f : (i+1)*f] {
			if x != 0 {
				idx = append(idx, int32(t))
				val = append(val, x)
			}
		}
		ptr[i+1] = len(idx)
	}
	zt := make([]float64, f*gramBlock)
	return func(i0, b int, g []float64) (int, int) {
		for r := range b {
			for p := ptr[i0+r]; p < ptr[i0+r+1]; p++ {
				zt[int(idx[p])*b+r] = val[p]
			}
		}
		w := m - i0
		const cols = 64
		parallelRange((w+cols-1)/cols, workers, func(task int) {
			for c := task * cols; c < min((task+1)*cols, w); c++ {
				gc := g[c*b : (c+1)*b]
				clear(gc)
				j := i0 + c
				for p := ptr[j]; p < ptr[j+1]; p++ {
					t := int(idx[p])
					floats.AddScaled(gc, val[p], zt[t*b:(t+1)*b])
				}
			}
		})
		for r := range b {
			for p := ptr[i0+r]; p < ptr[i0+r+1]; p++ {
				zt[int(idx[p])*b+r] = 0
			}
		}
		return 1, b
	}
}

// parallelRange calls fn(i) for i in [0, n) on up to workers goroutines.
func parallelRange(n, workers int, fn func(i int)) {
	parallelSum(n, workers, 0, func(_ []int, i int) { fn(i) })
}

// medianDistance returns the median of sqrt(d2) (numpy convention: the
// mean of the two middle values for an even count); NaN for no pairs.
func medianDistance(d2 []float32, workers int) float64 {
	n := len(d2)
	if n == 0 {
		return math.NaN()
	}
	hi := math.Sqrt(float64(selectFloat32(d2, n/2, workers)))
	if n%2 == 1 {
		return hi
	}
	lo := math.Sqrt(float64(selectFloat32(d2, n/2-1, workers)))
	return (lo + hi) / 2
}

// selectFloat32 returns the k-th smallest (0-based) of the non-negative
// values v without reordering them: a two-pass radix select on the bit
// patterns, whose order is the numeric order for non-negative floats.
func selectFloat32(v []float32, k, workers int) float32 {
	var prefix uint32
	for pass := range 2 {
		shift := uint(16 - 16*pass) // high half, then low half
		counts := histogram16(v, pass, prefix, shift, workers)
		for b, c := range counts {
			if k < c {
				prefix |= uint32(b) << shift
				break
			}
			k -= c
		}
	}
	return math.Float32frombits(prefix)
}

// histogram16 counts the values of v by the 16 bits at shift; in pass 1
// only values whose high 16 bits equal those of prefix are counted.
func histogram16(v []float32, pass int, prefix uint32, shift uint, workers int) []int {
	const chunk = 1 << 20
	return parallelSum((len(v)+chunk-1)/chunk, workers, 1<<16, func(h []int, c int) {
		for _, x := range v[c*chunk : min((c+1)*chunk, len(v))] {
			bits := math.Float32bits(x)
			if pass == 1 && bits>>16 != prefix>>16 {
				continue
			}
			h[(bits>>shift)&0xffff]++
		}
	})
}

// parallelSum runs fn(acc, t) for the tasks t in [0, tasks) on up to
// workers goroutines, each with its own zeroed accumulator of the given
// size, and returns the sum of the accumulators.
func parallelSum(tasks, workers, size int, fn func(acc []int, t int)) []int {
	workers = min(max(workers, 1), max(tasks, 1))
	acc := make([][]int, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		acc[w] = make([]int, size)
		wg.Go(func() {
			for {
				t := int(next.Add(1) - 1)
				if t >= tasks {
					return
				}
				fn(acc[w], t)
			}
		})
	}
	wg.Wait()
	for _, a := range acc[1:] {
		for i, x := range a {
			acc[0][i] += x
		}
	}
	return acc[0]
}

// kernelSums returns S (k x k, row-major) with S[a*k+b] the sum of
// exp(-gamma d2_ij) over pairs i < j with i in client a and j in client b;
// off gives the clients' row ranges.
func kernelSums(d2 []float32, off []int, gamma float64, workers int) []float64 {
	k := len(off) - 1
	m := off[k]
	client := make([]int, m)
	for a := range k {
		for i := off[a]; i < off[a+1]; i++ {
			client[i] = a
		}
	}
	// Each task sums its rows into its own slot and the slots are added in
	// task order, so the result does not depend on scheduling.
	const rows = 16
	tasks := (m + rows - 1) / rows
	part := make([]float64, tasks*k*k)
	parallelRange(tasks, workers, func(t int) {
		s := part[t*k*k : (t+1)*k*k]
		for i := t * rows; i < min((t+1)*rows, m); i++ {
			a := client[i]
			row := d2[rowStart(i, m) : rowStart(i, m)+m-1-i]
			for b := a; b < k; b++ {
				lo, hi := max(i+1, off[b]), off[b+1]
				var sum float64
				for _, x := range row[lo-i-1 : hi-i-1] {
					sum += math.Exp(-gamma * float64(x))
				}
				s[a*k+b] += sum
			}
		}
	})
	out := make([]float64, k*k)
	for t := range tasks {
		floats.Add(out, part[t*k*k:(t+1)*k*k])
	}
	return out
}
