package sim

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"
)

func apvSageConfig(genRounds, rounds int) Config {
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
	for i, r := range e.runners {
		a, p := r.(*sageClient), plain.runners[i].(*sageClient)
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
	if err := e.SetKnob(KnobSigma, 0.5); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for _, rep := range e.Reports() {
		av := rep.Views[SourceAPV]
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
		if !reflect.DeepEqual(rep.Weights, softmaxRows(av, rep.Alpha)) || rep.WeightsFrom != SourceAPV {
			t.Errorf("round %d: weights are not softmax(alpha * APV cosine)", rep.Round)
		}
		if rep.Weights[0][1] == rep.Weights[0][2] {
			t.Errorf("round %d: uniform weights %v", rep.Round, rep.Weights[0])
		}
	}
	sigmaRun := stripTimes(e.Reports())
	ref := stripTimes(runEngine(t, apvSageConfig(2, 4), smallData(t, 7)).Reports())
	if reflect.DeepEqual(sigmaRun[0].Clients, ref[0].Clients) {
		t.Error("sigma 0.5 gave the run of sigma 1: the knob does not reach the head")
	}
}

// TestFedSageAPVAlignment checks FedSage+APV's alignment and its control
// against a direct computation from the head's embeddings, with the APV
// after the round and the APV the head was built with.
func TestFedSageAPVAlignment(t *testing.T) {
	e := sageEngine(t, apvSageConfig(2, 4))
	e.Want(WantAlignment)
	var start [][]float64
	for _, r := range e.runners {
		start = append(start, slices.Clone(r.(*sageClient).head.Score.APV.Value))
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
			h := e.runners[i].(*sageClient).head
			pc1 := leadingEigenvector(h.Hidden())
			if want := absCosine(h.Score.APV.Value, pc1); math.Abs(*m.Alignment-want) > 1e-9 {
				t.Errorf("round %d client %d: alignment %v, want %v", round, m.ID, *m.Alignment, want)
			}
			if want := absCosine(start[i], pc1); math.Abs(*m.AlignmentInit-want) > 1e-9 {
				t.Errorf("round %d client %d: control %v, want %v", round, m.ID, *m.AlignmentInit, want)
			}
		}
	}
}

// TestAPVVariantSettings checks the settings FedSage+APV reads (and so
// its result key).
func TestAPVVariantSettings(t *testing.T) {
	if got, want := AlgorithmSettings(FedSageAPV), []string{"alpha", "partners", "gen_rounds", "gen_steps"}; !slices.Equal(got, want) {
		t.Errorf("%s reads %v, want %v", FedSageAPV, got, want)
	}
}
