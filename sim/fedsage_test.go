package sim

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/internal/fdcheck"
	"gonum.org/v1/gonum/mat"
)

func sageConfig(genRounds, rounds int) Config {
	c := smallConfig(FedSagePlus)
	c.Rounds = rounds
	if err := c.Set("gen_rounds", strconv.Itoa(genRounds)); err != nil {
		panic(err)
	}
	return c
}

func sageEngine(t *testing.T, c Config) *Engine {
	t.Helper()
	e, err := New(c, smallData(t, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestFedSagePlusImpairedGraph checks the hidden portion of every client
// against a brute force: floor(|Va_k|/2) validation nodes hidden, the
// impaired graph induced by the others, n_i and X^miss_i.
func TestFedSagePlusImpairedGraph(t *testing.T) {
	e := sageEngine(t, sageConfig(2, 2))
	for _, r := range e.runners {
		c := r.(*sageClient)
		s := c.gen
		g := c.data.Graph
		kept := map[int]int{}
		for a, i := range s.keep {
			kept[i] = a
		}
		if hidden := g.N() - len(s.keep); hidden != len(c.val)/2 {
			t.Errorf("client %d hides %d nodes, want %d of %d validation nodes", c.ID, hidden, len(c.val)/2, len(c.val))
		}
		for i := 0; i < g.N(); i++ {
			if _, ok := kept[i]; !ok && c.data.Roles[i] != graphio.Val {
				t.Fatalf("client %d hides node %d, a %v node", c.ID, i, c.data.Roles[i])
			}
		}
		for a, i := range s.keep {
			var missing, inImp int
			for _, j := range graphNeighbours(g, i, nil) {
				if _, ok := kept[j]; ok {
					inImp++
				} else {
					missing++
				}
			}
			if s.miss[a] != float64(missing) || s.csr.Indptr[a+1]-s.csr.Indptr[a] != inImp {
				t.Fatalf("client %d node %d: n_i %v and %d impaired neighbours, want %d and %d", c.ID, i, s.miss[a], s.csr.Indptr[a+1]-s.csr.Indptr[a], missing, inImp)
			}
		}
		d := c.feat
		row := make([]float64, d)
		for r, a := range s.train {
			if c.labels[s.keep[a]] != s.imp.labels[a] || c.data.Roles[s.keep[a]] != graphio.Train {
				t.Fatalf("client %d: impaired training node %d is not a training node", c.ID, a)
			}
			u := 0
			for _, j := range graphNeighbours(g, s.keep[a], nil) {
				if _, ok := kept[j]; ok || u == gnn.MaxPred {
					continue
				}
				featureRow(c.full.x, j, row)
				if !slices.Equal(s.xmiss.RawRowView(r)[u*d:(u+1)*d], row) {
					t.Fatalf("client %d: X^miss row %d slot %d is not hidden neighbour %d", c.ID, r, u, j)
				}
				u++
			}
			for ; u < gnn.MaxPred; u++ {
				for _, v := range s.xmiss.RawRowView(r)[u*d : (u+1)*d] {
					if v != 0 {
						t.Fatalf("client %d: X^miss row %d slot %d is not zero padding", c.ID, r, u)
					}
				}
			}
		}
	}
}

// TestFedSagePlusPhases runs two generator rounds and two FedAvg rounds:
// the phases are reported, the server mixes from the last generator round
// on with weights proportional to the training-set sizes, and the mended
// graphs hang generated nodes on non-hidden nodes by undirected edges.
func TestFedSagePlusPhases(t *testing.T) {
	e := sageEngine(t, sageConfig(2, 4))
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, r := range e.Reports() {
		phases = append(phases, r.Phase)
	}
	if want := []string{PhaseNeighGen, PhaseNeighGen, PhaseFedAvg, PhaseFedAvg}; !slices.Equal(phases, want) {
		t.Errorf("phases %v, want %v", phases, want)
	}
	if e.Reports()[0].Weights != nil {
		t.Error("the server mixed in the first generator round")
	}
	var total float64
	for _, r := range e.runners {
		total += float64(len(r.(*sageClient).train))
	}
	for _, rep := range e.Reports()[1:] {
		for k, row := range rep.Weights {
			for l, w := range row {
				if want := float64(len(e.runners[l].(*sageClient).train)) / total; math.Abs(w-want) > 1e-15 {
					t.Fatalf("round %d: w[%d][%d] = %v, want |Tr_l|/sum = %v", rep.Round, k, l, w, want)
				}
			}
		}
	}
	generated := 0
	for _, r := range e.runners {
		c := r.(*sageClient)
		if c.gen != nil || c.mend == nil {
			t.Fatalf("client %d: generator kept (%v) or graph not mended (%v) after the generator phase", c.ID, c.gen != nil, c.mend == nil)
		}
		n := c.data.Graph.N()
		if got, want := c.mend.graph.adj.N(), n+len(c.mend.parents); got != want {
			t.Fatalf("client %d: mended graph of %d nodes, want %d", c.ID, got, want)
		}
		for _, p := range c.mend.parents {
			if c.data.Roles[p] == graphio.Val && !isKept(t, c, p) {
				t.Fatalf("client %d: a hidden node got a generated neighbour", c.ID)
			}
		}
		generated += len(c.mend.parents)
		// The reports count them from the mending round (2) on.
		for _, rep := range e.Reports() {
			want := 0
			if rep.Round >= 2 {
				want = len(c.mend.parents)
			}
			if got := rep.Clients[c.ID].Generated; got != want {
				t.Errorf("client %d round %d: %d generated neighbours reported, want %d", c.ID, rep.Round, got, want)
			}
		}
		// The mean aggregation of the mended graph: node p averages its
		// neighbours, generated ones included, and a generated node its parent.
		a := c.mend.graph.adj
		for r, p := range c.mend.parents {
			if !slices.Contains(rowCols(a, n+r), p) || !slices.Contains(rowCols(a, p), n+r) {
				t.Fatalf("client %d: edge %d-%d is not undirected", c.ID, p, n+r)
			}
		}
	}
	t.Logf("%d generated nodes in all", generated)
}

// isKept reports whether node i of client c was not hidden; the impaired
// graph is gone after mending, so it draws the hidden set again.
func isKept(t *testing.T, c *sageClient, i int) bool {
	t.Helper()
	e := sageEngine(t, sageConfig(2, 2))
	return slices.Contains(e.runners[c.ID].(*sageClient).gen.keep, i)
}

// rowCols returns the columns of row i of the aggregation.
func rowCols(a *gnn.MeanAdj, i int) []int {
	n := a.N()
	x := make([]float64, n)
	probe := func(j int) bool {
		clear(x)
		x[j] = 1
		return applyRow(a, i, x) != 0
	}
	var out []int
	for j := 0; j < n; j++ {
		if probe(j) {
			out = append(out, j)
		}
	}
	return out
}

// applyRow returns (M x)_i for a vector x.
func applyRow(a *gnn.MeanAdj, i int, x []float64) float64 {
	n := a.N()
	in, out := mat.NewDense(n, 1, x), mat.NewDense(n, 1, nil)
	a.Apply(out, in)
	return out.At(i, 0)
}

// TestFedSagePlusDeterministicAcrossWorkers runs FedSage+ and
// FedSage+APV across the phase boundary with 1, 2 and 5 workers, wanting
// every matrix.
func TestFedSagePlusDeterministicAcrossWorkers(t *testing.T) {
	for _, algo := range []Algorithm{FedSagePlus, FedSageAPV} {
		t.Run(string(algo), func(t *testing.T) {
			var runs [][]RoundReport
			for _, w := range []int{1, 2, 5} {
				c := sageConfig(2, 4)
				c.Algo, c.Workers = algo, w
				runs = append(runs, stripTimes(runEngine(t, c, smallData(t, 7), WantAll).Reports()))
			}
			for i := 1; i < len(runs); i++ {
				if !reflect.DeepEqual(runs[0], runs[i]) {
					t.Fatal("reports differ between worker counts")
				}
			}
		})
	}
}

// TestFedSagePlusCheckpoint checkpoints in the generator phase, at its
// last round (just after mending) and after it, resumes with another
// worker count, and compares with an uninterrupted run.
func TestFedSagePlusCheckpoint(t *testing.T) {
	for _, algo := range []Algorithm{FedSagePlus, FedSageAPV} {
		t.Run(string(algo), func(t *testing.T) { sageCheckpoint(t, algo) })
	}
}

func sageCheckpoint(t *testing.T, algo Algorithm) {
	c := sageConfig(2, 4)
	c.Algo = algo
	engine := func(workers int) *Engine {
		t.Helper()
		c := c
		c.Workers = workers
		e, err := New(c, smallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	runTo := func(e *Engine, n int) { // alpha changes to 4 before round 3
		t.Helper()
		for e.Round() < n {
			if e.Round()+1 == 3 {
				if err := e.SetKnob("alpha", 4); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := e.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := t.TempDir()
	ref := engine(2) // no log: a log would add the ground-truth view to every round
	runTo(ref, c.Rounds)
	for _, at := range []int{1, 2, 3} {
		ck := filepath.Join(dir, "run.ckpt")
		a := engine(1)
		runTo(a, at)
		if err := a.SaveCheckpoint(ck); err != nil {
			t.Fatal(err)
		}
		b, err := resumeFile(ck, smallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		b.cfg.Workers = 3
		runTo(b, c.Rounds)
		if !reflect.DeepEqual(stripTimes(b.Reports()), stripTimes(ref.Reports())) {
			t.Errorf("resumed after round %d: reports differ from the uninterrupted run's", at)
		}
	}
}

// TestFedSagePlusAnswerGradient checks the gradient client j returns for
// k's request against finite differences of (b/M) L^f_{k<-j} in fGen_k's
// float64 parameters (fc1's bias, the output bias).
func TestFedSagePlusAnswerGradient(t *testing.T) {
	e := sageEngine(t, sageConfig(2, 2))
	if _, err := e.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	k, j := e.runners[0].(*sageClient), e.runners[1].(*sageClient)
	net := k.gen.net
	grad := make([]float64, len(net.FGen.Out.W))
	net.FGen.Out.AttachGrad(grad)
	z := net.Enc.Forward(k.gen.imp.adj, k.gen.imp.x, nil, false, nil)
	counts := gnn.Counts(net.Degrees(z, false))
	r, d := len(k.gen.train), gnn.MaxPred*k.feat
	sc := &sageScratch{gen: net.FGen.Replica(), z: mat.NewDense(r, gnn.NeighLatent, nil),
		target: mat.NewDense(r, d, nil), dxg: mat.NewDense(r, d, nil)}
	req := &sageRequest{From: 0, Round: 2, Gen: sc, Scale: 0.125}
	for _, a := range k.gen.train {
		req.Z = append(req.Z, slices.Clone(z.RawRowView(a)))
		req.Pred = append(req.Pred, max(counts[a], 2)) // some slots to compare
	}
	req.True = k.gen.trMiss
	zeroGrads(net.FGen.Params())
	if _, used := j.answer(req, len(e.runners)); !used {
		t.Fatal("no neighbour generated: the check proves nothing")
	}
	loss := func() float64 { l, _ := j.answer(req, len(e.runners)); return req.Scale * l }
	ps := []*gnn.Param{net.FGen.FC1.Bias, net.FGen.Out.Bias}
	var grads [][]float64
	for _, p := range ps {
		grads = append(grads, slices.Clone(p.Grad)) // before the loss adds more
	}
	for i, p := range ps {
		g := grads[i]
		num := numericGrad(loss, p.Value)
		if d := relDiff(g, num); d > 1e-6 {
			t.Errorf("%s: relative error %.3g of the returned gradient", p.Name, d)
		}
	}
}

func numericGrad(f func() float64, x []float64) []float64 { return fdcheck.Grad(f, x, 1e-5) }

func relDiff(a, b []float64) float64 { return fdcheck.RelErr(a, b) }

// TestFedSagePlusSettings checks the settings FedSage+ reads and refuses.
func TestFedSagePlusSettings(t *testing.T) {
	if got := AlgorithmSettings(FedSagePlus); !slices.Equal(got, []string{"gen_rounds", "gen_steps"}) {
		t.Errorf("fedsage_plus settings %v", got)
	}
	for key, v := range map[string]string{"gen_rounds": "-1", "gen_steps": "0", "layers": "3"} {
		c := sageConfig(2, 4)
		if err := c.Set(key, v); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); settingKey(err) != key {
			t.Errorf("%s = %s: Validate says %v", key, v, err)
		}
	}
	c := sageConfig(0, 2) // no generator: FedAvg of GraphSAGE on the graphs as they are
	e := runEngine(t, c, smallData(t, 7))
	if r := e.Reports()[0]; r.Phase != PhaseFedAvg || r.Weights == nil {
		t.Errorf("gen_rounds 0: round 1 in phase %q with weights %v", r.Phase, r.Weights != nil)
	}
	if e.runners[0].(*sageClient).mend != nil {
		t.Error("gen_rounds 0 mended a graph")
	}
}
