package methods

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/internal/fdcheck"
	"github.com/fedaux/fedaux/sim"
)

// TestFedSagePlusAnswerGradient checks the gradient client j returns for
// k's request against finite differences of (b/M) L^f_{k<-j} in fGen_k's
// float64 parameters (fc1's bias, the output bias).
func TestFedSagePlusAnswerGradient(t *testing.T) {
	e := sageEngine(t, sageConfig(2, 2))
	if _, err := e.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	k, j := sageClients(e)[0], sageClients(e)[1]
	net := k.gen.net
	grad := make([]float64, len(net.FGen.Out.W))
	net.FGen.Out.AttachGrad(grad)
	z := net.Enc.Forward(k.gen.imp.adj, k.gen.imp.x, nil, false, nil)
	counts := gnn.Counts(net.Degrees(z, false))
	req := &sageRequest{From: 0, Round: 2, Scale: 0.125}
	for _, a := range k.gen.train {
		req.Z = append(req.Z, slices.Clone(z.RawRowView(a)))
		req.Pred = append(req.Pred, max(counts[a], 2)) // some slots to compare
	}
	req.True = k.gen.trMiss
	req.Gen = newSageScratch(net.FGen, req.Z, k.feat, 1, sageBatchRows, sageBatchBytes)
	answer := func() float64 {
		t.Helper()
		used, ok := j.answer(req, len(sageClients(e)))
		if !ok || !used {
			t.Fatal("no neighbour generated: the check proves nothing")
		}
		return req.Gen.finish(req)[0]
	}
	zeroGrads(net.FGen.Params())
	answer()
	loss := func() float64 { return req.Scale * answer() }
	ps := []*gnn.Param{net.FGen.FC1.Bias, net.FGen.Out.Bias}
	var grads [][]float64
	for _, p := range ps {
		grads = append(grads, slices.Clone(p.Grad)) // before the loss adds more
	}
	// Every entry takes four answers; the race pass (-short) checks every
	// eighth.
	every := 1
	if testing.Short() {
		every = 8
	}
	for i, p := range ps {
		var idx []int
		for a := 0; a < len(p.Value); a += every {
			idx = append(idx, a)
		}
		g := make([]float64, len(idx))
		for k, a := range idx {
			g[k] = grads[i][a]
		}
		num := fdcheck.GradAt(loss, p.Value, 1e-5, idx)
		if d := relDiff(g, num); d > 1e-6 {
			t.Errorf("%s: relative error %.3g of the returned gradient at %d of its %d entries", p.Name, d, len(idx), len(p.Value))
		}
	}
}

func relDiff(a, b []float64) float64 { return fdcheck.RelErr(a, b) }

// TestFedSagePlusBatchedAnswers checks that answering a request a batch
// at a time gives the loss and every gradient of fGen_k the bits of
// answering it one answer at a time.
func TestFedSagePlusBatchedAnswers(t *testing.T) {
	c := sageConfig(2, 2)
	e, err := sim.New(c, smallData(t, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	clients := sageClients(e)
	if len(clients) < 4 {
		t.Fatalf("%d clients: too few for batches of 1, 2 and all answers", len(clients))
	}
	k := clients[0]
	net := k.gen.net
	z := net.Enc.Forward(k.gen.imp.adj, k.gen.imp.x, nil, false, nil)
	counts := gnn.Counts(net.Degrees(z, false))
	req := &sageRequest{From: 0, Round: 2, Scale: 0.125, True: k.gen.trMiss}
	for _, a := range k.gen.train {
		req.Z = append(req.Z, slices.Clone(z.RawRowView(a)))
		req.Pred = append(req.Pred, max(counts[a], 2))
	}
	row := len(req.Z) * gnn.MaxPred * k.feat * 8
	type result struct {
		loss  float64
		used  bool
		grads [][]float64
	}
	answerAll := func(batchBytes int) result {
		grad := make([]float64, len(net.FGen.Out.W))
		net.FGen.Out.AttachGrad(grad)
		defer net.FGen.Out.AttachGrad(nil)
		zeroGrads(net.FGen.Params())
		req.Gen = newSageScratch(net.FGen, req.Z, k.feat, len(clients)-1, 1<<30, batchBytes)
		loss, used := k.relay.exchange(req)
		res := result{loss: loss, used: used, grads: [][]float64{grad}}
		for _, p := range net.FGen.Params() {
			res.grads = append(res.grads, slices.Clone(p.Grad))
		}
		return res
	}
	one := answerAll(row)
	if one.loss == 0 || !one.used {
		t.Fatalf("loss %v, used %v: the check proves nothing", one.loss, one.used)
	}
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	for _, batch := range []int{2, len(clients) - 1} {
		got := answerAll(batch * row)
		if req.Gen.batch != batch {
			t.Fatalf("batch of %d answers, want %d", req.Gen.batch, batch)
		}
		if math.Float64bits(got.loss) != math.Float64bits(one.loss) || got.used != one.used {
			t.Errorf("batches of %d: loss %v used %v, one at a time %v %v", batch, got.loss, got.used, one.loss, one.used)
		}
		for i := range one.grads {
			if !same(got.grads[i], one.grads[i]) {
				t.Errorf("batches of %d: gradient %d differs from one answer at a time", batch, i)
			}
		}
	}
}
