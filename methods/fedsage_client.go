package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/internal/vec"
	"github.com/fedaux/fedaux/sim"
	"gonum.org/v1/gonum/mat"
)

// FedSage+'s loss weights (docs/method.md#fedsage: a = b = c = 1) and hidden
// portion (half the validation nodes).
const (
	sageA, sageB, sageC = 1.0, 1.0, 1.0
	sageHidden          = 0.5
)

// sageClient is one FedSage+ client: its full subgraph, its GraphSAGE
// classifier and, during the generator phase, its NeighGen and impaired
// graph; after the phase, its mended graph. It shares no mutable state
// with other clients: answering another client's request reads its own
// data only, and writes into the requester's gradients.
type sageClient struct {
	ID        int
	data      *graphio.Client
	metric    sim.Metric // how val and test nodes are scored
	relay     *sageRelay
	clients   int
	epochs    int
	genRounds int
	genSteps  int
	feat      int

	full   sageGraph
	labels []int
	train  []int
	val    []int
	test   []int
	edges  bool // the graph has an edge (another client can sample neighbours)

	cls  sageClassifier
	head *gnn.SAGEAPVNet // cls when it has the APV head (FedSage+APV); nil otherwise
	opt  *gnn.Adam
	gen  *sageGen  // the generator phase's state; nil outside it
	mend *sageMend // the mended graph; nil before mending
	rng  *rand.Rand
	pcg  *rand.PCG
	up   []float64
	// apvStart is the APV the client started its last round with (head only).
	apvStart []float64
	// apvInit is the APV the run started from (head only), for the
	// alignment's control.
	apvInit []float64
}

// sageGraph is a graph as the GraphSAGE layers read it: the mean
// aggregation, the features, and the extra (generated) rows after them.
type sageGraph struct {
	adj    *gnn.MeanAdj
	x      gnn.Features
	extra  *mat.Dense // nil when none
	labels []int      // one per row of [x; extra], 0 for generated rows
}

// sageGen is a client's state in the generator phase.
type sageGen struct {
	net    *gnn.NeighGen
	opt    *gnn.Adam   // the encoder's and dGen's parameters
	fopt   *gnn.Adam   // fGen's float64 parameters
	outOpt *gnn.Adam32 // net.FGen.Out.W
	imp    sageGraph   // the impaired graph G_k^-
	csr    *gnn.CSR    // its adjacency
	keep   []int       // full-graph index of each impaired node
	train  []int       // impaired indices of the training nodes
	miss   []float64   // n_i, the hidden neighbours of every impaired node
	trMiss []int       // n_i of the training nodes
	xmiss  *mat.Dense  // X^miss of the training nodes, |train| x MaxPred*d
}

// sageScratch is the working memory other clients use to answer this
// client's request: replicas of fGen_k (k's weights and gradients, each
// with activations of its own) and the matrices of a batch of answers.
// It lives for one step.
//
// Answers are computed a batch at a time: each answer's noise, hidden
// layers and dropout on a replica of its own (answer), then fGen_k's
// output layer once for the rows of every answer of the batch (finish).
// The output layer is fGen's largest by far (2048 x 5 x 1433 float32
// weights on Cora, 59 MB), and a pass over it costs as much as a few
// dozen rows' products: answered one at a time, a request with 19 answers
// of 27 rows each (cora-20) read it 38 times. A row's output and input
// gradient do not depend on the rows beside it, and the weight's gradient
// gains the rows' terms in the order of the rows, answer after answer, so
// a batch gives every number the bits of answers one at a time.
type sageScratch struct {
	gens   []*gnn.FGen // gens[a]: answer a's activations; gens[0] also the output layer's
	z      *mat.Dense  // the request's latent codes, r x NeighLatent
	h      *mat.Dense  // the output layer's input, batch x r rows, answer after answer
	target *mat.Dense  // the answers' sampled neighbours, batch x r rows of MaxPred x d
	dxg    *mat.Dense  // dL/dx~, as target
	counts []int       // the slots computed for each row of h
	losses []float64
	batch  int // answers a batch holds
	n      int // answers in the batch so far
}

// A batch of answers holds enough answers for sageBatchRows rows, so that
// the pass over the output weight costs little beside the rows' products
// (a pass costs about as much as a few dozen rows' products), as long as
// one r x MaxPred*d float64 matrix of each answer fits in sageBatchBytes.
// The scratch has four matrices of that shape (target, dxg, and fGen's
// output and its gradient) and the answers' hidden activations: 80 to
// 110 MB a client stepping at once on Cora and CiteSeer, where each
// client holds its generator's 177 MB (Cora) for the whole phase.
// Amazon's clients, with 66 to 260 training rows each, batch one to four
// answers, and gain nothing measurable from it: their passes over the
// weight were already cheap beside their rows' products.
const (
	sageBatchRows  = 256
	sageBatchBytes = 32 << 20
)

// newSageScratch returns the scratch for a request of fGen_k (gen, with
// its output gradient attached), latent codes z and up to answers
// answers, for features of d entries, batched by rows within batchBytes
// (see sageBatchRows).
func newSageScratch(gen *gnn.FGen, z [][]float64, d, answers, rows, batchBytes int) *sageScratch {
	r := max(len(z), 1)
	row := r * gnn.MaxPred * d * 8
	batch := max(1, min(answers, (rows+r-1)/r, batchBytes/row))
	sc := &sageScratch{
		gens:   []*gnn.FGen{gen.Replica()},
		z:      mat.NewDense(r, gnn.NeighLatent, nil),
		h:      mat.NewDense(batch*r, gen.FC2.Out, nil),
		target: mat.NewDense(batch*r, gnn.MaxPred*d, nil),
		dxg:    mat.NewDense(batch*r, gnn.MaxPred*d, nil),
		counts: make([]int, batch*r),
		batch:  batch,
	}
	for row, v := range z {
		copy(sc.z.RawRowView(row), v)
	}
	return sc
}

// full reports whether the batch holds as many answers as it can.
func (sc *sageScratch) full() bool { return sc.n == sc.batch }

// finish computes the answers of the batch (see sageScratch): fGen_k's
// output for their rows, each answer's loss L^f_{k<-j} (returned in the
// order of the answers) with its gradient scaled by req.Scale, and the
// backward passes that add the gradients to fGen_k's. It empties the
// batch.
func (sc *sageScratch) finish(req *sageRequest) []float64 {
	if sc.n == 0 {
		return nil
	}
	r := len(req.Z)
	rows := sc.n * r
	out := sc.gens[0].Output(sageRowsOf(sc.h, rows), sc.counts[:rows])
	dxg := sageRowsOf(sc.dxg, rows)
	dxg.Zero()
	sc.losses = sc.losses[:0]
	for a := 0; a < sc.n; a++ {
		sc.losses = append(sc.losses, gnn.GreedyLoss(sageAnswerRows(out, a, r), nil, sageAnswerRows(sc.target, a, r),
			req.Pred, req.True, req.Scale, sageAnswerRows(dxg, a, r)))
	}
	dh := sc.gens[0].OutputBackward(dxg)
	for a := 0; a < sc.n; a++ {
		sc.gens[a].HiddenBackward(sageAnswerRows(dh, a, r))
	}
	sc.n = 0
	return sc.losses
}

// sageMend is the mended full graph: the generated rows and the node each
// hangs on (what a checkpoint keeps), and the graph they make.
type sageMend struct {
	extra   *mat.Dense // nil when nothing was generated
	parents []int
	graph   sageGraph
}

// newSageClient builds client c: the shared initial classifier and
// generator (every client draws them from the run's "init" stream, so all
// start alike), its hidden nodes and impaired graph.
func newSageClient(c *graphio.Client, data *sim.Data, cfg *sim.Config, relay *sageRelay) (*sageClient, error) {
	g := c.Graph
	adj := sim.ToGNN(g.Adj)
	mean, err := gnn.NewMeanAdj(adj)
	if err != nil {
		return nil, fmt.Errorf("client %d: %w", c.ID, err)
	}
	src := rand.NewPCG(cfg.Seed, sim.StreamKey("fedsage", c.ID))
	sc := &sageClient{
		ID: c.ID, data: c, metric: data.Metric, relay: relay, clients: len(data.Clients), epochs: cfg.Epochs,
		genRounds: cfg.Options.Int("gen_rounds"), genSteps: max(cfg.Options.Int("gen_steps"), 1), feat: data.NumFeatures,
		full:   sageGraph{adj: mean, x: sim.Features(g), labels: g.Labels},
		labels: g.Labels, edges: adj.NNZ() > 0,
		rng: rand.New(src), pcg: src,
	}
	if sc.train, sc.val, sc.test, err = sim.SplitRoles(c); err != nil {
		return nil, err
	}
	init := sim.Stream(cfg.Seed, "init", 0)
	net := gnn.NewSAGENet("cls", data.NumFeatures, cfg.Hidden, data.NumClasses, cfg.Dropout, init)
	sc.cls = plainSAGE{net}
	if cfg.Algo == FedSageAPV {
		sc.head = newSageHead(net, cfg, g.N(), len(data.Clients))
		sc.cls = sc.head
		sc.apvInit = slices.Clone(sc.head.Score.APV.Value)
	}
	sc.opt = gnn.NewAdam(sc.cls.Params(), cfg.LR, cfg.WD)
	if cfg.Options.Int("gen_rounds") > 0 {
		net := gnn.NewNeighGen(data.NumFeatures, cfg.Hidden, cfg.Dropout, init)
		sc.gen = &sageGen{net: net, opt: gnn.NewAdam(encoderParams(net), cfg.LR, cfg.WD),
			fopt: gnn.NewAdam(net.FGen.Params(), cfg.LR, cfg.WD), outOpt: gnn.NewAdam32(len(net.FGen.Out.W), cfg.LR, cfg.WD)}
		if err := sc.impair(sim.Stream(cfg.Seed, "fedsage-hide", c.ID)); err != nil {
			return nil, fmt.Errorf("client %d: %w", c.ID, err)
		}
	}
	return sc, nil
}

// impair hides floor(sageHidden |Va_k|) validation nodes drawn from rng
// and builds the impaired graph G_k^- they leave, with n_i (hidden
// neighbours of each remaining node) and X^miss_i (the features of its
// first min(n_i, MaxPred) hidden neighbours, in adjacency order, zero
// padded) for the training nodes.
func (c *sageClient) impair(rng *rand.Rand) error {
	g := c.data.Graph
	n := g.N()
	val := append([]int(nil), c.val...)
	h := int(math.Floor(sageHidden * float64(len(val))))
	for i := 0; i < h; i++ { // a partial Fisher-Yates shuffle
		j := i + rng.IntN(len(val)-i)
		val[i], val[j] = val[j], val[i]
	}
	hidden := make([]bool, n)
	for _, v := range val[:h] {
		hidden[v] = true
	}
	s := c.gen
	index := make([]int, n)
	for i := range index {
		index[i] = -1
		if !hidden[i] {
			index[i] = len(s.keep)
			s.keep = append(s.keep, i)
		}
	}
	m := len(s.keep)
	csr := &gnn.CSR{Rows: m, Cols: m, Indptr: make([]int, m+1)}
	s.miss = make([]float64, m)
	var nb []int
	for a, i := range s.keep {
		nb = graphNeighbours(g, i, nb)
		for _, j := range nb {
			if index[j] >= 0 {
				csr.Indices = append(csr.Indices, index[j])
				csr.Values = append(csr.Values, 1)
			} else {
				s.miss[a]++
			}
		}
		csr.Indptr[a+1] = len(csr.Indices)
	}
	mean, err := gnn.NewMeanAdj(csr)
	if err != nil {
		return err
	}
	labels := make([]int, m)
	for a, i := range s.keep {
		labels[a] = c.labels[i]
	}
	s.imp = sageGraph{adj: mean, x: selectRows(c.full.x, s.keep, c.feat), labels: labels}
	s.csr = csr
	d := c.feat
	for _, i := range c.train {
		s.train = append(s.train, index[i])
	}
	s.xmiss = mat.NewDense(len(s.train), gnn.MaxPred*d, nil)
	for r, a := range s.train {
		s.trMiss = append(s.trMiss, int(s.miss[a]))
		u := 0
		for _, j := range graphNeighbours(g, s.keep[a], nb) {
			if hidden[j] && u < gnn.MaxPred {
				featureRow(c.full.x, j, s.xmiss.RawRowView(r)[u*d:(u+1)*d])
				u++
			}
		}
	}
	return nil
}

// Round runs one round: GenSteps generator steps in the generator phase,
// Epochs classifier steps on the mended graph after it; then it
// evaluates the classifier (on the un-mended full graph in the generator
// phase) and, at the phase's last round, mends the graph.
func (c *sageClient) Round(ctx context.Context, msg *sim.Message) (*sim.Update, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if msg.Shared != nil {
		c.load(msg.Shared)
	}
	if c.head != nil {
		c.head.SetSigma(msg.Sigma)
		c.apvStart = append(c.apvStart[:0], c.head.Score.APV.Value...)
	}
	var loss float64
	var err error
	inGen := c.gen != nil && msg.Round <= c.genRounds
	if msg.Round == c.genRounds+1 {
		c.relay.endGenPhase()
	}
	steps := c.epochs
	if inGen {
		steps = c.genSteps
	}
	for s := 0; s < steps; s++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if inGen {
			loss, err = c.genStep(msg.Round, s)
		} else {
			loss, err = c.classifierStep(msg.Round, s)
		}
		if err != nil {
			if _, ok := err.(*sim.NonFiniteError); ok {
				return nil, err // it names the client
			}
			return nil, fmt.Errorf("client %d: %w", c.ID, err)
		}
	}
	g := c.graph()
	logits, err := c.cls.Forward(g.adj, g.x, g.extra, false, nil)
	if err != nil {
		return nil, fmt.Errorf("client %d: %w", c.ID, err)
	}
	n := len(c.labels)
	up := &sim.Update{
		ClientMetrics: sim.ClientMetrics{
			ID: c.ID, Nodes: n, TrainLoss: loss,
			ValAcc:  c.metric.Score(logits, c.labels, c.val),
			TestAcc: c.metric.Score(logits, c.labels, c.test),
		},
		Embedding: sim.MeanRows(sageRowsOf(c.cls.Hidden(), n)),
	}
	if c.head != nil {
		c.headSignatures(msg, up)
	}
	if inGen && msg.Round == c.genRounds {
		if err := c.mendGraph(); err != nil {
			return nil, fmt.Errorf("client %d: %w", c.ID, err)
		}
	}
	if c.mend != nil && c.mend.extra != nil {
		up.Generated, _ = c.mend.extra.Dims()
	}
	c.up = c.up[:0]
	for _, p := range c.cls.Params() {
		c.up = append(c.up, p.Value...)
	}
	for i, v := range c.up {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("client %d: classifier entry %d is %v after training", c.ID, i, v)
		}
	}
	up.Shared = c.up
	return up, nil
}

// graph returns the graph the classifier reads now: the full graph, mended
// once the generator phase is over.
func (c *sageClient) graph() sageGraph {
	if c.mend == nil {
		return c.full
	}
	return c.mend.graph
}

// load sets the classifier from a vector in layout order.
func (c *sageClient) load(v []float64) {
	off := 0
	for _, p := range c.cls.Params() {
		off += copy(p.Value, v[off:off+len(p.Value)])
	}
}

// classifierStep is one full-batch Adam step of the classifier's
// cross-entropy on the training nodes.
func (c *sageClient) classifierStep(round, step int) (float64, error) {
	g := c.graph()
	zeroGrads(c.cls.Params())
	var logits *mat.Dense
	var err error
	if p, ok := c.cls.(plainSAGE); ok {
		// The loss reads the training rows only: their generated
		// neighbours are all the generated rows whose root products it
		// needs (SAGENet.ForwardAt).
		logits = p.ForwardAt(g.adj, g.x, g.extra, c.train, c.rng)
	} else if logits, err = c.cls.Forward(g.adj, g.x, g.extra, true, c.rng); err != nil {
		return 0, err
	}
	r, k := logits.Dims()
	dl := mat.NewDense(r, k, nil)
	loss := gnn.SoftmaxCrossEntropy(logits, g.labels, c.train, dl)
	c.cls.Backward(dl, false)
	if err := c.finite(round, step, loss, c.cls.Params()); err != nil {
		return 0, err
	}
	c.opt.Step()
	return loss, nil
}

// genStep is one Adam step of the generator phase on L_k (see
// fedSagePlus): the classifier reads the impaired graph mended with this
// step's generated neighbours, and the other clients' gradients of their
// feature losses reach fGen through the relay. It returns L^c.
func (c *sageClient) genStep(round, step int) (float64, error) {
	s := c.gen
	net := s.net
	m := float64(c.clients)
	zeroGrads(c.cls.Params())
	zeroGrads(net.Params())
	grad := c.relay.gradBuffer(len(net.FGen.Out.W))
	net.FGen.Out.AttachGrad(grad)
	defer func() {
		net.FGen.Out.AttachGrad(nil)
		c.relay.release(grad)
	}()

	z := net.Enc.Forward(s.imp.adj, s.imp.x, nil, true, c.rng)
	zTrain := make([][]float64, len(s.train))
	for r, a := range s.train {
		zTrain[r] = append([]float64(nil), z.RawRowView(a)...)
	}
	nhat := net.Degrees(z, true)
	counts := gnn.Counts(nhat)
	xg := net.FGen.Forward(z, counts, true, c.rng)
	mended, src, err := c.mendWith(s.imp, s.csr, xg, counts, nil)
	if err != nil {
		return 0, err
	}
	logits, err := c.cls.Forward(mended.adj, mended.x, mended.extra, true, c.rng)
	if err != nil {
		return 0, err
	}
	rows, classes := logits.Dims()
	dl := mat.NewDense(rows, classes, nil)
	lc := gnn.SoftmaxCrossEntropy(logits, mended.labels, s.train, dl)
	dl.Scale(sageC/m, dl)
	dExtra := c.cls.Backward(dl, true)

	nImp, cols := xg.Dims()
	dxg := mat.NewDense(nImp, cols, nil)
	for r, a := range src { // L^c reaches the generated features
		slot := r - firstChild(src, r)
		copy(dxg.RawRowView(a)[slot*c.feat:(slot+1)*c.feat], dExtra.RawRowView(r))
	}
	trPred := make([]int, len(s.train))
	for r, a := range s.train {
		trPred[r] = counts[a]
	}
	lf := gnn.GreedyLoss(xg, s.train, s.xmiss, trPred, s.trMiss, sageB/m, dxg)
	dn := make([]float64, nImp)
	ld := gnn.SmoothL1(nhat.RawMatrix().Data, s.miss, s.train, sageA/m, dn)
	dz := mat.DenseCopyOf(net.FGen.Backward(dxg))
	dz.Add(dz, net.DegreesBackward(dn))
	net.Enc.Backward(dz, false)

	scratch := newSageScratch(net.FGen, zTrain, c.feat, c.clients-1, sageBatchRows, sageBatchBytes)
	cross, used := c.relay.exchange(&sageRequest{From: c.ID, Round: round, Step: step, Gen: scratch,
		Z: zTrain, Pred: trPred, True: s.trMiss, Scale: sageB / m})
	total := (sageA*ld + sageB*lf + sageC*lc + sageB*cross) / m
	if err := c.finite(round, step, total, c.cls.Params()); err != nil {
		return 0, err
	}
	if err := c.finite(round, step, total, net.Params()); err != nil {
		return 0, err
	}
	if i := vec.FirstNonFinite(grad); i >= 0 {
		return 0, &sim.NonFiniteError{Client: c.ID, Round: round, Epoch: step + 1, What: fmt.Sprintf("gradient of fgen.out.weight entry %d", i), Value: grad[i]}
	}
	c.opt.Step()
	s.opt.Step()
	if used || slices.ContainsFunc(counts, func(k int) bool { return k > 0 }) {
		// fGen took part in the step's loss. When no neighbour was
		// generated, here or by any answer, it did not, and like torch's
		// Adam for a parameter without a gradient, its optimiser does not
		// step (which would move every weight by about lr on the weight
		// decay alone).
		s.fopt.Step()
		s.outOpt.Step(net.FGen.Out.W, grad)
	}
	// The step's activations are not read again: drop them, so that only
	// the clients stepping at once hold them (on CiteSeer fGen's output
	// alone is 18,515 numbers a node).
	net.Release()
	return lc, nil
}

// encoderParams returns the parameters of NeighGen's encoder and dGen.
func encoderParams(net *gnn.NeighGen) []*gnn.Param {
	return append(append([]*gnn.Param(nil), net.Enc.Params()...), net.DGen.Params()...)
}

// firstChild returns the first index r' <= r with parents[r'] == parents[r]
// (generated rows of one node are consecutive).
func firstChild(parents []int, r int) int {
	for r > 0 && parents[r-1] == parents[r] {
		r--
	}
	return r
}

// answer is client j's part of k's generator step: it draws |Tr_k|
// nodes u of its own graph (redrawing isolated ones) and MaxPred
// neighbours of each, with replacement, whose features are the targets,
// and runs fGen_k's noise and hidden layers on z_k; the request's
// scratch then runs the output layer for a batch of answers and adds the
// gradient of (b/M) L^f_{k<-j} to fGen_k's gradients (sageScratch.finish,
// which returns L^f_{k<-j}). Its draws come from a stream of its own for
// (round, step, k, j), so they do not depend on the order clients run.
// It returns whether any neighbour is generated (fGen takes part), and
// false for ok when j has nothing to answer (no edges, or k no training
// nodes): its loss is then 0 and the batch unchanged.
func (c *sageClient) answer(req *sageRequest, clients int) (used, ok bool) {
	if !c.edges || len(req.Z) == 0 {
		return false, false
	}
	rng := sim.Stream(c.relay.seed, "fedsage-cross", ((req.Round*c.genSteps+req.Step)*clients+req.From)*clients+c.ID)
	g := c.data.Graph
	d := c.feat
	r := len(req.Z)
	sc := req.Gen
	a := sc.n
	target := sageAnswerRows(sc.target, a, r)
	var nb []int
	for row := 0; row < r; row++ {
		for nb = nb[:0]; len(nb) == 0; {
			nb = graphNeighbours(g, rng.IntN(g.N()), nb)
		}
		dst := target.RawRowView(row)
		for s := 0; s < gnn.MaxPred; s++ {
			featureRow(c.full.x, nb[rng.IntN(len(nb))], dst[s*d:(s+1)*d])
		}
	}
	counts := sc.counts[a*r : (a+1)*r]
	for row := range req.Z {
		counts[row] = 0
		if req.True[row] > 0 {
			counts[row] = req.Pred[row]
			used = used || counts[row] > 0
		}
	}
	if a == len(sc.gens) {
		sc.gens = append(sc.gens, sc.gens[0].Replica())
	}
	sageAnswerRows(sc.h, a, r).Copy(sc.gens[a].Hidden(sc.z, true, rng))
	sc.n++
	return used, true
}

// mendGraph ends the generator phase: the generator, in evaluation mode
// (its noise still drawn), predicts on the impaired graph; each remaining
// node of the full graph gets its n~_i generated neighbours (hidden nodes
// get none); the generator is freed.
func (c *sageClient) mendGraph() error {
	s := c.gen
	z := s.net.Enc.Forward(s.imp.adj, s.imp.x, nil, false, nil)
	counts := gnn.Counts(s.net.Degrees(z, false))
	xg := s.net.FGen.Forward(z, counts, false, c.rng)
	g, src, err := c.mendWith(c.full, sim.ToGNN(c.data.Graph.Adj), xg, counts, s.keep)
	if err != nil {
		return err
	}
	parents := make([]int, len(src))
	for r, a := range src {
		parents[r] = s.keep[a]
	}
	c.mend, c.gen = &sageMend{extra: g.extra, parents: parents, graph: g}, nil
	return nil
}
