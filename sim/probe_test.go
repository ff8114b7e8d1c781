package sim_test

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
	"gonum.org/v1/gonum/mat"
)

// probeTargets returns, per client of d, its train nodes, then two nodes
// of the next client and one of the client after (other clients' nodes).
func probeTargets(d *sim.Data) [][]sim.NodeRef {
	k := len(d.Clients)
	out := make([][]sim.NodeRef, k)
	for i, c := range d.Clients {
		for v, r := range c.Roles {
			if r == graphio.Train {
				out[i] = append(out[i], sim.NodeRef{i, v})
			}
		}
		out[i] = append(out[i], sim.NodeRef{(i + 1) % k, 0}, sim.NodeRef{(i + 1) % k, 3}, sim.NodeRef{(i + 2) % k, 1})
	}
	return out
}

// withoutProbes returns the reports with the probes taken out.
func withoutProbes(reps []*sim.RoundReport) []sim.RoundReport {
	out := sim.StripTimes(reps)
	for i := range out {
		out[i].Clients = append([]sim.ClientMetrics(nil), out[i].Clients...)
		for j := range out[i].Clients {
			out[i].Clients[j].Probe = nil
		}
	}
	return out
}

// probeEngine runs c on smallData, wanting probes in the rounds of at,
// with targets (nil: the default), and returns the engine.
func probeEngine(t *testing.T, c sim.Config, at map[int]bool, targets bool) *sim.Engine {
	t.Helper()
	d := sim.SmallData(t, 7)
	e, err := sim.New(c, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if targets {
		if err := e.SetProbeTargets(probeTargets(d)); err != nil {
			t.Fatal(err)
		}
	}
	for !e.Done() {
		if at[e.Round()+1] {
			e.Want(sim.WantProbe)
		} else {
			e.Want()
		}
		if _, err := e.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// TestProbe checks, for each kind of descriptor, that probes come in the
// rounds asked for only, with the strategy's descriptor and a row per
// target; that their rows agree with quantities computed another way
// from the client's model as the round left it (the eval-mode
// cross-entropy of gnn, softmax, norms, the descriptor's projection, on
// the client's own graph and on other clients' graphs); that asking for
// probes changes nothing else of the run; and that the probes do not
// depend on the number of workers.
func TestProbe(t *testing.T) {
	kinds := map[sim.Algorithm]sim.Descriptor{methods.FedAux: sim.DescriptorAPV, methods.FedAvg: sim.DescriptorNone, methods.FedPub: sim.DescriptorFunctional,
		methods.FedGTA: sim.DescriptorMoments, methods.FedGNN: sim.DescriptorBoundary}
	at := map[int]bool{2: true, 4: true}
	for algo, kind := range kinds {
		t.Run(string(algo), func(t *testing.T) {
			c := sim.SmallConfig(algo)
			c.Workers = 1
			plain := probeEngine(t, c, nil, false)
			e := probeEngine(t, c, at, true)
			if !reflect.DeepEqual(withoutProbes(e.Reports()), withoutProbes(plain.Reports())) {
				t.Fatal("asking for probes changed the run")
			}
			c.Workers = 3
			if e3 := probeEngine(t, c, at, true); !reflect.DeepEqual(sim.StripTimes(e3.Reports()), sim.StripTimes(e.Reports())) {
				t.Error("probes differ between 1 and 3 workers")
			}
			targets := probeTargets(e.Data())
			for r, rep := range e.Reports() {
				for k, m := range rep.Clients {
					if !at[r+1] {
						if m.Probe != nil {
							t.Fatalf("round %d: a probe without asking", r+1)
						}
						continue
					}
					if m.Probe == nil || m.Probe.Descriptor != kind || len(m.Probe.Rows) != len(targets[k]) {
						t.Fatalf("round %d client %d: probe %+v, want descriptor %s and %d rows", r+1, k, m.Probe, kind, len(targets[k]))
					}
				}
			}
			// The last round's probes against the models as it left them.
			last := e.Reports()[len(e.Reports())-1]
			for k, m := range last.Clients {
				checkProbe(t, e, k, targets[k], m.Probe)
			}
			// The default targets: every node of the client's graph.
			all := probeEngine(t, sim.SmallConfig(algo), map[int]bool{1: true}, false)
			for k, m := range all.Reports()[0].Clients {
				if n := all.Data().Clients[k].Graph.N(); len(m.Probe.Rows) != n {
					t.Errorf("client %d: %d rows by default, want its %d nodes", k, len(m.Probe.Rows), n)
				}
			}
		})
	}
}

// checkProbe compares probe p of client k with a computation from its
// model as the last round left it.
func checkProbe(t *testing.T, e *sim.Engine, k int, targets []sim.NodeRef, p *sim.Probe) {
	t.Helper()
	cl := sim.ClientOf(e, k)
	defer cl.Borrow()()
	var desc []float64
	switch p.Descriptor {
	case sim.DescriptorFunctional:
		desc = sim.FunctionalSignature(cl.Model(), cl.Proxy())
	case sim.DescriptorMoments:
		logits, err := cl.Model().Forward(cl.Input(), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		up := &sim.Update{Signatures: map[sim.Source][]float64{}}
		if err := cl.GTASignature(logits, up); err != nil {
			t.Fatal(err)
		}
		desc = up.Signatures[sim.SourceMoments][:e.Data().NumClasses]
	}
	var apv []float64
	if a := cl.Model().Param("apv"); a != nil {
		apv = a.Value
	}
	for i, ref := range targets {
		row := p.Rows[i]
		in := cl.Input()
		if ref.Client != k {
			o := sim.ClientOf(e, ref.Client)
			in = gnn.Input{Prop: o.Input().Prop, X: o.Input().X}
		}
		logits, err := cl.Model().Forward(in, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		labels := e.Data().Clients[ref.Client].Graph.Labels
		if want := gnn.SoftmaxCrossEntropy(logits, labels, []int{ref.Node}, nil); math.Abs(row.Loss-want) > 1e-9 {
			t.Errorf("client %d target %d: loss %v, want %v", k, i, row.Loss, want)
		}
		prob := gnn.Softmax(logits).RawRowView(ref.Node)
		var sorted []float64
		var ent float64
		for _, q := range prob {
			sorted = append(sorted, q)
			ent -= q * math.Log(q)
		}
		for a := range sorted { // selection sort, descending
			for b := a + 1; b < len(sorted); b++ {
				if sorted[b] > sorted[a] {
					sorted[a], sorted[b] = sorted[b], sorted[a]
				}
			}
		}
		for j := 0; j < 3; j++ {
			if math.Abs(row.Top[j]-sorted[j]) > 1e-12 {
				t.Errorf("client %d target %d: top %v, want %v", k, i, row.Top, sorted[:3])
			}
		}
		if math.Abs(row.Entropy-ent) > 1e-9 {
			t.Errorf("client %d target %d: entropy %v, want %v", k, i, row.Entropy, ent)
		}
		h := mat.DenseCopyOf(cl.Model().Embeddings())
		hv := h.RawRowView(ref.Node)
		if want := mat.Norm(mat.NewVecDense(len(hv), hv), 2); math.Abs(row.Norm-want) > 1e-9 {
			t.Errorf("client %d target %d: norm %v, want %v", k, i, row.Norm, want)
		}
		var wantCos, wantProj float64
		if apv != nil {
			wantCos = floats(hv, apv) / math.Sqrt(floats(hv, hv)*floats(apv, apv))
		}
		switch p.Descriptor {
		case sim.DescriptorAPV:
			n, _ := h.Dims()
			top := 0.0
			for u := range n {
				top = math.Max(top, math.Sqrt(floats(h.RawRowView(u), h.RawRowView(u))))
			}
			wantProj = floats(hv, apv) / top / math.Sqrt(floats(apv, apv))
		case sim.DescriptorFunctional:
			wantProj = floats(hv, desc) / math.Sqrt(floats(hv, hv)*floats(desc, desc))
		case sim.DescriptorMoments:
			wantProj = floats(prob, desc)
		case sim.DescriptorBoundary:
			h1 := cl.Model().FirstLayer(gnn.Input{Prop: in.Prop, X: in.X}).RawRowView(ref.Node)
			wantProj = math.Inf(-1)
			for _, s := range cl.SentBoundary() {
				wantProj = math.Max(wantProj, floats(h1, s)/math.Sqrt(floats(h1, h1)*floats(s, s)))
			}
			if len(cl.SentBoundary()) == 0 || !(wantProj >= -1-1e-12 && wantProj <= 1+1e-12) {
				t.Fatalf("client %d: %d boundary embeddings sent, projection %v", k, len(cl.SentBoundary()), wantProj)
			}
		}
		if math.IsNaN(wantCos) {
			wantCos = 0
		}
		if math.Abs(row.APVCos-wantCos) > 1e-9 {
			t.Errorf("client %d target %d: cos(h, apv) %v, want %v", k, i, row.APVCos, wantCos)
		}
		if math.Abs(row.Projection-wantProj) > 1e-9 {
			t.Errorf("client %d target %d: %s projection %v, want %v", k, i, p.Descriptor, row.Projection, wantProj)
		}
	}
}

// TestProbeTargetsAndCheckpoint checks SetProbeTargets' refusals, that
// a client that misses a round has no probe for it, and that probes
// survive a checkpoint.
func TestProbeTargetsAndCheckpoint(t *testing.T) {
	d := sim.SmallData(t, 7)
	e, err := sim.New(sim.SmallConfig(methods.FedAux), d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		targets [][]sim.NodeRef
		want    string
	}{
		{make([][]sim.NodeRef, 3), "for 3 clients"},
		{append(make([][]sim.NodeRef, 7), []sim.NodeRef{{8, 0}}), "client 8 out of range"},
		{append(make([][]sim.NodeRef, 7), []sim.NodeRef{{1, 10000}}), "node 10000 out of range"},
	} {
		if err := e.SetProbeTargets(tc.targets); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetProbeTargets: %v, want an error with %q", err, tc.want)
		}
	}
	hooks := &sim.FaultHooks{Absent: func(round, client int) bool { return round == 2 && client == 3 }}
	if err := e.SetFaults(sim.Faults{Hooks: hooks}); err != nil {
		t.Fatal(err)
	}
	e.Want(sim.WantProbe)
	for range 2 {
		if _, err := e.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	rep := e.Reports()[1]
	for k, m := range rep.Clients {
		if (m.Probe == nil) != (k == 3) {
			t.Errorf("round 2 client %d (absent %v): probe %v", k, m.Absent, m.Probe != nil)
		}
	}
	path := filepath.Join(t.TempDir(), "probe.ckpt")
	if err := e.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	ck, err := sim.LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ck.Resume(sim.SmallData(t, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sim.StripTimes(r.Reports()), sim.StripTimes(e.Reports())) || r.Reports()[0].Clients[0].Probe == nil {
		t.Error("the probes did not survive the checkpoint")
	}
}

// TestSoftmaxStats checks the probe's softmax statistics on a row worked
// by hand: logits (0, ln 2, ln 3, 0) give probabilities (1, 2, 3, 1)/7.
func TestSoftmaxStats(t *testing.T) {
	loss, top, ent := sim.SoftmaxStats([]float64{0, math.Ln2, math.Log(3), 0}, 1)
	p := []float64{1.0 / 7, 2.0 / 7, 3.0 / 7, 1.0 / 7}
	var wantEnt float64
	for _, q := range p {
		wantEnt -= q * math.Log(q)
	}
	if math.Abs(loss-math.Log(3.5)) > 1e-12 || math.Abs(ent-wantEnt) > 1e-12 {
		t.Errorf("loss %v entropy %v, want %v and %v", loss, ent, math.Log(3.5), wantEnt)
	}
	if want := [3]float64{3.0 / 7, 2.0 / 7, 1.0 / 7}; math.Abs(top[0]-want[0])+math.Abs(top[1]-want[1])+math.Abs(top[2]-want[2]) > 1e-12 {
		t.Errorf("top %v, want %v", top, want)
	}
	if _, top, _ := sim.SoftmaxStats([]float64{1, 2}, 0); top[2] != 0 || !(top[0] > top[1]) {
		t.Errorf("two classes: top %v, want two sorted probabilities and a 0", top)
	}
	if d, err := sim.ParseDescriptor("moments"); err != nil || d != sim.DescriptorMoments {
		t.Errorf("ParseDescriptor(moments) = %v, %v", d, err)
	}
	if _, err := sim.ParseDescriptor("apv2"); err == nil {
		t.Error("ParseDescriptor(apv2): no error")
	}
}
