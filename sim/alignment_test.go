package sim_test

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// directAlignment computes |cos(apv, v)|, v the leading eigenvector of
// the sample covariance of h, by gonum's symmetric eigendecomposition.
func directAlignment(t *testing.T, h *mat.Dense, apv []float64) float64 {
	t.Helper()
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, h, nil)
	var eig mat.EigenSym
	if !eig.Factorize(&cov, true) {
		t.Fatal("eigendecomposition failed")
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	vals := eig.Values(nil)
	top := 0
	for i, v := range vals {
		if v > vals[top] {
			top = i
		}
	}
	v := mat.Col(nil, top, &vecs)
	return math.Abs(floats(apv, v)) / math.Sqrt(floats(apv, apv)*floats(v, v))
}

func floats(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestAlignment checks, for both score variants on a small SBM, that the
// alignment asked for and its control are in [0, 1] for every client and
// round, equal a direct computation from the client's embeddings and its
// APV (the control: the APV of a fresh engine's client), and that
// asking for it changes nothing else of the run; and that it is absent
// when not asked for, and for a model without an APV.
func TestAlignment(t *testing.T) {
	for _, score := range []gnn.ScoreKind{gnn.Cosine, gnn.MaxNorm} {
		t.Run(score.String(), func(t *testing.T) {
			c := sim.SmallConfig(methods.FedAux)
			c.Score = score
			plain := sim.RunEngine(t, c, sim.SmallData(t, 7), sim.WantAll)
			e, err := sim.New(c, sim.SmallData(t, 7), nil)
			if err != nil {
				t.Fatal(err)
			}
			e.Want(sim.WantAll, sim.WantAlignment)
			fresh, err := sim.New(c, sim.SmallData(t, 7), nil)
			if err != nil {
				t.Fatal(err)
			}
			for r := 1; r <= c.Rounds; r++ {
				rep, err := e.Step(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for i, m := range rep.Clients {
					if m.Alignment == nil {
						t.Fatalf("round %d client %d: no alignment", r, m.ID)
					}
					if m.AlignmentInit == nil {
						t.Fatalf("round %d client %d: no control alignment", r, m.ID)
					}
					a, a0 := *m.Alignment, *m.AlignmentInit
					if !(a >= 0 && a <= 1 && a0 >= 0 && a0 <= 1) {
						t.Errorf("round %d client %d: alignment %v, control %v outside [0, 1]", r, m.ID, a, a0)
					}
					// The round's evaluation pass again (it draws nothing), as Complete does.
					cl := sim.ClientOf(e, i)
					giveBack := cl.Borrow()
					if _, err := cl.Model().Forward(cl.Input(), false, nil); err != nil {
						t.Fatal(err)
					}
					want := directAlignment(t, cl.Model().Embeddings(), cl.Model().Param("apv").Value)
					want0 := directAlignment(t, cl.Model().Embeddings(), sim.ClientOf(fresh, i).Model().Param("apv").Value)
					giveBack()
					if math.Abs(a-want) > 1e-6 {
						t.Errorf("round %d client %d: alignment %.9f, direct computation %.9f", r, m.ID, a, want)
					}
					if math.Abs(a0-want0) > 1e-6 {
						t.Errorf("round %d client %d: control alignment %.9f, direct computation %.9f", r, m.ID, a0, want0)
					}
				}
			}
			got := sim.StripTimes(e.Reports())
			for i := range got {
				got[i].Clients = append([]sim.ClientMetrics(nil), got[i].Clients...)
				for j := range got[i].Clients {
					got[i].Clients[j].Alignment = nil
					got[i].Clients[j].AlignmentInit = nil
				}
			}
			ref := sim.StripTimes(plain.Reports())
			for i := range ref {
				for _, m := range ref[i].Clients {
					if m.Alignment != nil || m.AlignmentInit != nil {
						t.Fatalf("round %d: alignment reported without being asked for", i+1)
					}
				}
			}
			if !reflect.DeepEqual(got, ref) {
				t.Error("asking for the alignment changed the run")
			}
		})
	}
	e := sim.RunEngine(t, sim.SmallConfig(methods.FedAvg), sim.SmallData(t, 7), sim.WantAlignment)
	for _, m := range e.Reports()[0].Clients {
		if m.Alignment != nil || m.AlignmentInit != nil {
			t.Fatal("fedavg (no APV) reports an alignment")
		}
	}
}
