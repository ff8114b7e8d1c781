package graphio

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/floats"
)

// maxExactPairs bounds the node pairs NonIIDWith keeps in memory (4 bytes
// each); above it the caller must subsample with NonIIDOptions.MaxNodes.
const maxExactPairs = 1 << 29

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
// The pairwise squared distances come from blocked Z Z^T products
// (pairDistances) and are held in single precision (relative error below 1e-7), so
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
	var mu sync.Mutex
	var accs [][]int
	forTasks(tasks, workers, func() func(t int) {
		acc := make([]int, size)
		mu.Lock()
		accs = append(accs, acc)
		mu.Unlock()
		return func(t int) { fn(acc, t) }
	})
	sum := make([]int, size)
	for _, a := range accs {
		for i, x := range a {
			sum[i] += x
		}
	}
	return sum
}

// forTasks runs the tasks t in [0, tasks) on up to workers goroutines,
// each taking the next task until none is left: every goroutine calls
// worker once for the function that runs its tasks, which may keep
// buffers of its own.
func forTasks(tasks, workers int, worker func() func(t int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(workers, 1), max(tasks, 1)) {
		wg.Go(func() {
			run := worker()
			for {
				t := int(next.Add(1) - 1)
				if t >= tasks {
					return
				}
				run(t)
			}
		})
	}
	wg.Wait()
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
