package methods

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/sim"
	"gonum.org/v1/gonum/mat"
)

func sageConfig(genRounds, rounds int) sim.Config {
	c := smallConfig(FedSagePlus)
	c.Rounds = rounds
	if err := c.Set("gen_rounds", strconv.Itoa(genRounds)); err != nil {
		panic(err)
	}
	return c
}

// sageClients returns the FedSage+ (or FedSage+APV) clients of e.
func sageClients(e *sim.Engine) []*sageClient {
	switch st := e.Strategy().(type) {
	case *fedSagePlus:
		return st.relay.clients
	case fedSageAPV:
		return st.relay.clients
	}
	panic("not a FedSage+ engine")
}

func sageEngine(t *testing.T, c sim.Config) *sim.Engine {
	t.Helper()
	e, err := sim.New(c, smallData(t, 7), nil)
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
	for _, c := range sageClients(e) {
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
	for _, c := range sageClients(e) {
		total += float64(len(c.train))
	}
	for _, rep := range e.Reports()[1:] {
		for k, row := range rep.Weights {
			for l, w := range row {
				if want := float64(len(sageClients(e)[l].train)) / total; math.Abs(w-want) > 1e-15 {
					t.Fatalf("round %d: w[%d][%d] = %v, want |Tr_l|/sum = %v", rep.Round, k, l, w, want)
				}
			}
		}
	}
	generated := 0
	kept := keptNodes(t)
	for _, c := range sageClients(e) {
		if c.gen != nil || c.mend == nil {
			t.Fatalf("client %d: generator kept (%v) or graph not mended (%v) after the generator phase", c.ID, c.gen != nil, c.mend == nil)
		}
		n := c.data.Graph.N()
		if got, want := c.mend.graph.adj.N(), n+len(c.mend.parents); got != want {
			t.Fatalf("client %d: mended graph of %d nodes, want %d", c.ID, got, want)
		}
		for _, p := range c.mend.parents {
			if c.data.Roles[p] == graphio.Val && !slices.Contains(kept[c.ID], p) {
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

// keptNodes returns the nodes of each client (by ID) that its impaired
// graph kept (not hidden); the impaired graph is gone after mending, so
// it draws the hidden sets again, in an engine of its own.
func keptNodes(t *testing.T) map[int][]int {
	t.Helper()
	kept := map[int][]int{}
	for _, c := range sageClients(sageEngine(t, sageConfig(2, 2))) {
		kept[c.ID] = c.gen.keep
	}
	return kept
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
	for _, algo := range []sim.Algorithm{FedSagePlus, FedSageAPV} {
		t.Run(string(algo), func(t *testing.T) {
			var runs [][]sim.RoundReport
			for _, w := range []int{1, 2, 5} {
				c := sageConfig(2, 4)
				c.Algo, c.Workers = algo, w
				runs = append(runs, reports(run(t, c, smallData(t, 7), sim.WantAll)))
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
// worker count, and compares with an uninterrupted run. The race pass
// (-short) checkpoints at the last generator round only.
func TestFedSagePlusCheckpoint(t *testing.T) {
	for _, algo := range []sim.Algorithm{FedSagePlus, FedSageAPV} {
		t.Run(string(algo), func(t *testing.T) { sageCheckpoint(t, algo) })
	}
}

func sageCheckpoint(t *testing.T, algo sim.Algorithm) {
	c := sageConfig(2, 4)
	c.Algo = algo
	engine := func(workers int) *sim.Engine {
		t.Helper()
		c := c
		c.Workers = workers
		e, err := sim.New(c, smallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	runTo := func(e *sim.Engine, n int) { // alpha changes to 4 before round 3
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
	ats := []int{1, 2, 3}
	if testing.Short() { // the race pass: the checkpoint just after mending
		ats = []int{2}
	}
	for _, at := range ats {
		ck := filepath.Join(dir, "run.ckpt")
		a := engine(1)
		runTo(a, at)
		if err := a.SaveCheckpoint(ck); err != nil {
			t.Fatal(err)
		}
		saved, err := sim.LoadCheckpoint(ck)
		if err != nil {
			t.Fatal(err)
		}
		saved.Config.Workers = 3
		b, err := saved.Resume(smallData(t, 7), nil)
		if err != nil {
			t.Fatal(err)
		}
		runTo(b, c.Rounds)
		if !reflect.DeepEqual(reports(b), reports(ref)) {
			t.Errorf("resumed after round %d: reports differ from the uninterrupted run's", at)
		}
	}
}

// TestFedSagePlusSettings checks the settings FedSage+ reads and refuses.
func TestFedSagePlusSettings(t *testing.T) {
	if got := sim.AlgorithmSettings(FedSagePlus); !slices.Equal(got, []string{"gen_rounds", "gen_steps"}) {
		t.Errorf("fedsage_plus settings %v", got)
	}
	for key, v := range map[string]string{"gen_rounds": "-1", "gen_steps": "0", "layers": "3"} {
		var se *sim.SettingError
		c := sageConfig(2, 4)
		if err := c.Set(key, v); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); !errors.As(err, &se) || se.Key != key {
			t.Errorf("%s = %s: Validate says %v", key, v, err)
		}
	}
	c := sageConfig(0, 2) // no generator: FedAvg of GraphSAGE on the graphs as they are
	e := run(t, c, smallData(t, 7))
	if r := e.Reports()[0]; r.Phase != PhaseFedAvg || r.Weights == nil {
		t.Errorf("gen_rounds 0: round 1 in phase %q with weights %v", r.Phase, r.Weights != nil)
	}
	if sageClients(e)[0].mend != nil {
		t.Error("gen_rounds 0 mended a graph")
	}
}

func apvSageConfig(genRounds, rounds int) sim.Config {
	c := sageConfig(genRounds, rounds)
	c.Algo = FedSageAPV
	return c
}

// TestFedSageAPV runs two generator rounds and two mixing rounds of
// FedSage+APV: its clients start NeighGen, the hidden nodes and the
// classifier's first layer as FedSage+'s do at the same seed, its
// classifier carries the APV, the server does not mix before the
// generator phase's last round and mixes with softmax(alpha * APV cosine)
// from it on, and the live sigma reaches the head.
func TestFedSageAPV(t *testing.T) {
	plain := sageEngine(t, sageConfig(2, 4))
	e := sageEngine(t, apvSageConfig(2, 4))
	for i, a := range sageClients(e) {
		p := sageClients(plain)[i]
		if a.head == nil || a.head.Score.APV != a.cls.Params()[len(a.cls.Params())-1] {
			t.Fatalf("client %d: no APV head", i)
		}
		for j, q := range p.gen.net.Params() {
			if !slices.Equal(q.Value, a.gen.net.Params()[j].Value) {
				t.Errorf("client %d: NeighGen's %s starts unlike FedSage+'s", i, q.Name)
			}
		}
		if !slices.Equal(a.gen.keep, p.gen.keep) {
			t.Errorf("client %d: other hidden nodes than FedSage+'s", i)
		}
		if !slices.Equal(a.cls.Params()[0].Value, p.cls.Params()[0].Value) {
			t.Errorf("client %d: the classifier's first layer starts unlike FedSage+'s", i)
		}
	}
	if err := e.SetKnob(sim.KnobSigma, 0.5); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for _, rep := range e.Reports() {
		av := rep.Views[sim.SourceAPV]
		if av == nil {
			t.Fatalf("round %d: no APV view", rep.Round)
		}
		if rep.Round < 2 {
			if rep.Weights != nil || rep.Phase != PhaseNeighGen {
				t.Errorf("round %d: phase %q, weights %v", rep.Round, rep.Phase, rep.Weights != nil)
			}
			continue
		}
		if want := map[bool]string{true: PhaseNeighGen, false: PhaseAPVMix}[rep.Round <= 2]; rep.Phase != want {
			t.Errorf("round %d: phase %q, want %q", rep.Round, rep.Phase, want)
		}
		if !reflect.DeepEqual(rep.Weights, sim.SoftmaxRows(av, rep.Alpha)) || rep.WeightsFrom != sim.SourceAPV {
			t.Errorf("round %d: weights are not softmax(alpha * APV cosine)", rep.Round)
		}
		if rep.Weights[0][1] == rep.Weights[0][2] {
			t.Errorf("round %d: uniform weights %v", rep.Round, rep.Weights[0])
		}
	}
	sigmaRun := reports(e)
	ref := reports(run(t, apvSageConfig(2, 4), smallData(t, 7)))
	if reflect.DeepEqual(sigmaRun[0].Clients, ref[0].Clients) {
		t.Error("sigma 0.5 gave the run of sigma 1: the knob does not reach the head")
	}
}

// TestFedSageAPVAlignment checks FedSage+APV's alignment and its control
// against sim's computation (sim.HeadSignatures, whose numbers sim's
// tests check) from the head's embeddings, with the APV after the round
// and the APV the head was built with.
func TestFedSageAPVAlignment(t *testing.T) {
	e := sageEngine(t, apvSageConfig(2, 4))
	e.Want(sim.WantAlignment)
	var start [][]float64
	for _, c := range sageClients(e) {
		start = append(start, slices.Clone(c.head.Score.APV.Value))
	}
	for round := 1; round <= 3; round++ {
		rep, err := e.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range rep.Clients {
			if m.Alignment == nil || m.AlignmentInit == nil {
				t.Fatalf("round %d client %d: alignment %v, control %v", round, m.ID, m.Alignment, m.AlignmentInit)
			}
			h := sageClients(e)[i].head
			var want sim.Update
			sim.HeadSignatures(&sim.Message{Alignment: true}, &want, h.Score.APV.Value, nil, start[i], h.Hidden())
			if *m.Alignment != *want.Alignment {
				t.Errorf("round %d client %d: alignment %v, want %v", round, m.ID, *m.Alignment, *want.Alignment)
			}
			if *m.AlignmentInit != *want.AlignmentInit {
				t.Errorf("round %d client %d: control %v, want %v", round, m.ID, *m.AlignmentInit, *want.AlignmentInit)
			}
		}
	}
}

// TestFedSageAPVSettings checks the settings FedSage+APV reads (and so
// its result key).
func TestFedSageAPVSettings(t *testing.T) {
	if got, want := sim.AlgorithmSettings(FedSageAPV), []string{"alpha", "partners", "gen_rounds", "gen_steps"}; !slices.Equal(got, want) {
		t.Errorf("%s reads %v, want %v", FedSageAPV, got, want)
	}
}

// TestSageRelayKeepsGradBuffers checks that the relay hands a released
// fGen gradient buffer to the next step, cleared, until the generator
// phase ends, and then drops it.
func TestSageRelayKeepsGradBuffers(t *testing.T) {
	r := &sageRelay{genRounds: 2}
	b := r.gradBuffer(8)
	b[3] = 1
	r.release(b)
	c := r.gradBuffer(8)
	if &c[0] != &b[0] {
		t.Fatal("a released buffer was not handed to the next step")
	}
	if c[3] != 0 {
		t.Fatalf("the buffer handed again holds %v, want it cleared", c)
	}
	r.release(c)
	r.endGenPhase()
	if d := r.gradBuffer(8); &d[0] == &b[0] {
		t.Fatal("the buffer was kept after the generator phase")
	}
}

// TestSageGradBuffersThroughThePhase checks that the relay keeps its fGen
// gradient buffers through the generator phase's last round (whose steps
// would otherwise each allocate one) and drops them when the classifier
// rounds begin.
func TestSageGradBuffersThroughThePhase(t *testing.T) {
	e := sageEngine(t, sageConfig(2, 3))
	relay := sageClients(e)[0].relay
	for round := 1; round <= 3; round++ {
		if _, err := e.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		kept := len(relay.free)
		if round <= 2 && kept == 0 {
			t.Errorf("after generator round %d the relay keeps no buffer", round)
		}
		if round == 3 && kept != 0 {
			t.Errorf("after the first classifier round the relay keeps %d buffers", kept)
		}
	}
}
