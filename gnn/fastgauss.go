package gnn

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"
)

// DefaultFastTol is the error bound per unit of weight that Fast uses when
// its Tol is zero.
const DefaultFastTol = 1e-15

// Fast computes the Gauss transforms of Gauss in time linear in the number
// of points, with a one-dimensional fast Gauss transform in the style of
// Greengard & Strain (1991, "The fast Gauss transform", SIAM J. Sci. Stat.
// Comput. 12(1)): the sorted points are binned into boxes of width W (about
// sigma or less), only boxes within a cutoff radius interact, and each pair
// of boxes interacts in the cheapest of four ways: directly, through the
// source box's expansion, into the target box's expansion, or expansion to
// expansion. The expansions are Chebyshev interpolants of order p in each
// box (the kernel-independent variant of Fong & Darve 2009, "The black-box
// fast multipole method") instead of Hermite and Taylor series: for the
// Gaussian they converge about 2^p times faster.
//
// Error bound. With r = W/(2 sigma) the half-width of a box in units of
// sigma and Tol the tolerance, the truncation error of one kernel entry is
// at most
//
//	E(p, r) = (1 + Lambda_p) * 2 * kappa * (r/sqrt(2))^p / sqrt(p!),
//
// where kappa = 1.086435 is the constant of Cramér's inequality
// |H_n(x)| exp(-x^2/2) <= kappa 2^(n/2) sqrt(n!), which bounds the p-th
// derivative of exp(-x^2), and Lambda_p <= 1 + (2/pi) ln(p+1) bounds the
// Lebesgue constant of the p Chebyshev nodes (interpolating in one variable
// only costs E/(1 + Lambda_p)). Pairs of boxes whose points are at least
// R sigma apart, R^2 = ln(1/Tol), are skipped, so a skipped kernel entry is
// at most Tol. Plan takes the smallest p with E(p, r) <= Tol, and every
// source reaches every target through exactly one of the routes above, so
// for every row i and column c
//
//	|fast_ic - exact_ic| <= Tol * sum_j |w_jc|  (+ floating-point rounding).
//
// With the default Tol = 1e-15 this is far below the 1e-9 the aggregator
// needs for any N up to 10^6 and weights of order one. Box edges are exact
// binary fractions, so box centres are exact and offsets from them are
// computed without cancellation.
//
// Cost. Plan sorts the scores (O(N log N)) and picks the box width W among
// powers of two and 1.5 times powers of two between sigma/64 and 2.5 sigma
// by a cost model of the actual box populations (p is 7 to 28 at the
// default Tol). A box with at least p points has an expansion, so Apply
// costs 2p multiply-adds per point and column for the expansions, p^2 per
// pair of such boxes and at most p per pair of a point and a box otherwise;
// with at most 2*ceil(R sigma/W)+1 boxes within reach of a box, this is
// O(N p m), linear in N.
//
// Apply is deterministic: every output entry is computed by the same
// sequence of floating-point operations whatever Workers is, and a plan is
// safe for concurrent use.
type Fast struct {
	// Workers is the number of goroutines one Apply uses; 0 means 1.
	Workers int
	// Tol is the error bound per unit of weight, in (0, 1); zero means
	// DefaultFastTol.
	Tol float64
}

// Name returns "fast".
func (Fast) Name() string { return "fast" }

// fgtKappa is the constant of Cramér's inequality for Hermite functions.
const fgtKappa = 1.086435

// fgtMaxOrder is the largest expansion order Plan considers.
const fgtMaxOrder = 48

// fgtColBlock is the number of columns one task of Apply handles. It
// depends on nothing but itself, so task boundaries do not depend on Workers.
const fgtColBlock = 128

// fgtExpCost is the cost of one exponential, in multiply-adds per column,
// in the model that chooses the box width.
const fgtExpCost = 0.3

// Plan sorts the scores, chooses the box width and expansion order, and
// precomputes the interpolation weights and the box-to-box translation
// matrices. It fails when sigma is not a positive finite number, when a
// score is not finite, or when Tol is outside (0, 1).
func (f Fast) Plan(s []float64, sigma float64) (GaussPlan, error) {
	if !(sigma > 0) || math.IsInf(sigma, 1) {
		return nil, fmt.Errorf("gnn: kernel bandwidth sigma = %v, want a finite value > 0", sigma)
	}
	tol := f.Tol
	if tol == 0 {
		tol = DefaultFastTol
	}
	if !(tol > 0 && tol < 1) {
		return nil, fmt.Errorf("gnn: fast Gauss tolerance %v, want a value in (0, 1)", f.Tol)
	}
	for i, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("gnn: score %d is %v, want a finite value", i, v)
		}
	}
	n := len(s)
	q := &fastPlan{n: n, h: sigma, workers: max(f.Workers, 1)}
	type scored struct {
		v float64
		i int
	}
	order := make([]scored, n)
	for i, v := range s {
		order[i] = scored{v, i}
	}
	slices.SortFunc(order, func(a, b scored) int {
		if c := cmp.Compare(a.v, b.v); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	q.perm, q.x = make([]int, n), make([]float64, n)
	for k, o := range order {
		q.perm[k], q.x[k] = o.i, o.v
	}
	radius := math.Sqrt(-math.Log(tol))

	// Choose the box width by the cost model.
	best, bestCost := fgtGrid{}, math.Inf(1)
	for _, c := range fgtCandidates(sigma, tol) {
		width, p := c.width, c.p
		g := fgtGrid{width: width, p: p, dmax: int(math.Ceil(radius / (width / sigma)))}
		g.boxes = fgtBin(q.x, width, radius*sigma, g.dmax)
		if c := g.cost(); c < bestCost {
			best, bestCost = g, c
		}
	}
	if best.p == 0 {
		return nil, fmt.Errorf("gnn: no box width for sigma = %v and tolerance %v", sigma, tol)
	}
	q.setup(best)
	return q, nil
}

// fgtCandidate is a box width and the expansion order it needs.
type fgtCandidate struct {
	width float64
	p     int
}

// fgtCandidateCache holds fgtCandidates' lists by bandwidth and tolerance
// (a run uses one or a few); it is cleared when it reaches 64.
var fgtCandidateCache struct {
	sync.Mutex
	m map[[2]float64][]fgtCandidate
}

// fgtCandidates returns the widths of fgtWidths(h) that reach tol with
// some order, with that order (fgtOrder), widest first. The list is
// shared: callers must not change it.
func fgtCandidates(h, tol float64) []fgtCandidate {
	c := &fgtCandidateCache
	key := [2]float64{h, tol}
	c.Lock()
	defer c.Unlock()
	if l, ok := c.m[key]; ok {
		return l
	}
	var l []fgtCandidate
	for _, w := range fgtWidths(h) {
		if p := fgtOrder(w/h/2, tol); p > 0 {
			l = append(l, fgtCandidate{w, p})
		}
	}
	if c.m == nil || len(c.m) >= 64 {
		c.m = map[[2]float64][]fgtCandidate{}
	}
	c.m[key] = l
	return l
}

// fgtWidths lists the candidate box widths for bandwidth h: 2^e and
// 1.5 * 2^e between h/64 and 2.5 h, widest first. They are exact binary
// fractions.
func fgtWidths(h float64) []float64 {
	_, e := math.Frexp(h) // 2^(e-1) <= h < 2^e
	var out []float64
	for e++; ; e-- {
		for _, f := range [2]float64{1.5, 1} {
			w := math.Ldexp(f, e)
			if w/h > 2.5 {
				continue
			}
			if w/h < 1.0/64 || w == 0 {
				return out
			}
			out = append(out, w)
		}
	}
}

// fgtLebesgue bounds the Lebesgue constant of p Chebyshev nodes.
func fgtLebesgue(p int) float64 { return 1 + 2/math.Pi*math.Log(float64(p+1)) }

// fgtBound is the bound E(p, r) of the Fast documentation on the error of
// one kernel entry interpolated with p Chebyshev nodes in boxes of
// half-width r (in units of sigma), in both variables.
func fgtBound(p int, r float64) float64 {
	lg, _ := math.Lgamma(float64(p + 1))
	return (1 + fgtLebesgue(p)) * 2 * fgtKappa * math.Exp(float64(p)*math.Log(r/math.Sqrt2)-lg/2)
}

// fgtOrder returns the smallest order p with fgtBound(p, r) <= tol, or 0
// if no order up to fgtMaxOrder achieves it.
func fgtOrder(r, tol float64) int {
	for p := 1; p <= fgtMaxOrder; p++ {
		if fgtBound(p, r) <= tol {
			return p
		}
	}
	return 0
}

// fgtBox is a run of sorted points sharing a box.
type fgtBox struct {
	key    int     // grid index; boxes of one cluster have consecutive keys
	lo, hi int     // sorted points lo..hi-1
	centre float64 // box centre
}

// fgtGrid is one choice of box width with its boxes.
type fgtGrid struct {
	width float64 // box width W
	p     int     // expansion order
	dmax  int     // boxes whose keys differ by more than dmax do not interact
	boxes []fgtBox
}

// fgtBin bins the sorted points x into boxes of the given width. Points
// separated by a gap of at least cut start a new cluster, whose keys are
// offset from the previous cluster's by more than dmax so that the two never
// interact (a cluster also starts where the keys would overflow); within a cluster the box edges are integer multiples of width
// (unless the scores are too large for that to be exact), so box centres
// and point offsets are computed without cancellation.
func fgtBin(x []float64, width, cut float64, dmax int) []fgtBox {
	var boxes []fgtBox
	var anchor float64
	base, first := 0, 0
	for i, v := range x {
		kf := 0.0
		fresh := i == 0 || v-x[i-1] >= cut
		if !fresh {
			kf = math.Floor((v - anchor) / width)
			// A cluster too wide for integer keys needs a span of more
			// than 2^52 boxes, which only overflow can produce.
			fresh = !(math.Abs(kf) < 1<<52)
		}
		if fresh {
			if i > 0 {
				base = boxes[len(boxes)-1].key + dmax + 1
			}
			anchor = v
			if a := math.Floor(v / width); math.Abs(a) < 1<<50 {
				anchor = a * width
			}
			kf = math.Floor((v - anchor) / width)
			first = int(kf)
		}
		k := int(kf)
		key := base + k - first
		if len(boxes) > 0 && boxes[len(boxes)-1].key == key {
			boxes[len(boxes)-1].hi = i + 1
			continue
		}
		boxes = append(boxes, fgtBox{key: key, lo: i, hi: i + 1, centre: anchor + (float64(k)+0.5)*width})
	}
	return boxes
}

// cost estimates the work of one Apply per column, in multiply-adds, with
// the routes Apply takes: a box with at least p points is big and has an
// expansion; big-big pairs translate expansions (p^2), big sources are
// evaluated at the points of small targets and small sources are added
// into big targets' expansions (p per point, plus exponentials), and
// small-small pairs are summed directly.
func (g *fgtGrid) cost() float64 {
	p := float64(g.p)
	nb := len(g.boxes)
	// Prefix sums over boxes of the points in small boxes and of big boxes.
	smallPts := make([]float64, nb+1)
	bigs := make([]float64, nb+1)
	total := 0.0
	for k, b := range g.boxes {
		cnt := float64(b.hi - b.lo)
		smallPts[k+1], bigs[k+1] = smallPts[k], bigs[k]
		if cnt >= p {
			bigs[k+1]++
			total += 2 * cnt * p
		} else {
			smallPts[k+1] += cnt
		}
	}
	lo, hi := 0, 0
	for _, t := range g.boxes {
		for g.boxes[lo].key < t.key-g.dmax {
			lo++
		}
		for hi < nb && g.boxes[hi].key <= t.key+g.dmax {
			hi++
		}
		sp, nbig := smallPts[hi]-smallPts[lo], bigs[hi]-bigs[lo]
		cnt := float64(t.hi - t.lo)
		if cnt >= p {
			total += nbig*p*p + sp*p*(1+fgtExpCost)
		} else {
			total += cnt * (nbig*p + sp) * (1 + fgtExpCost)
		}
	}
	return total
}
