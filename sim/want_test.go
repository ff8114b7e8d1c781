package sim_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/fedaux/fedaux/methods"
	"github.com/fedaux/fedaux/sim"
)

// TestUnreadViewsAreNotComputed checks that an engine nobody reads
// computes only the view its strategy's weights need: no other similarity
// view and no ground truth, no signature for them in the clients'
// updates; that wanting a view from some round on gives, from that round,
// exactly the matrix an engine that wanted it all along has; and that
// what is wanted changes nothing else of the run.
func TestUnreadViewsAreNotComputed(t *testing.T) {
	uses := map[sim.Algorithm][]string{methods.FedAux: {"apv"}, methods.FedPub: {"functional"}, methods.GCFL: {"update"}, methods.FedAvg: nil}
	for algo, need := range uses {
		t.Run(string(algo), func(t *testing.T) {
			c := sim.SmallConfig(algo)
			all := sim.RunEngine(t, c, sim.SmallData(t, 7), sim.WantAll)
			e, err := sim.New(c, sim.SmallData(t, 7), nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for r := 1; r <= c.Rounds; r++ {
				if r == 3 {
					e.Want("pc1", "functional", sim.MatrixGroundTruth)
				}
				rep, err := e.Step(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := slices.Clone(need)
				if r >= 3 {
					want = append(want, "pc1", "functional")
				}
				var got []string
				for s := range rep.Views {
					got = append(got, string(s))
				}
				slices.Sort(got)
				slices.Sort(want)
				want = slices.Compact(want)
				if !slices.Equal(got, want) {
					t.Errorf("round %d: views %v, want %v", r, got, want)
				}
				if (rep.GroundTruth != nil) != (r >= 3) {
					t.Errorf("round %d: ground truth computed: %v", r, rep.GroundTruth != nil)
				}
				ref := all.Reports()[r-1]
				for s, m := range rep.Views {
					if !reflect.DeepEqual(m, ref.Views[s]) {
						t.Errorf("round %d: view %s differs from the one of an engine that wanted every view", r, s)
					}
				}
				if r >= 3 && !reflect.DeepEqual(rep.GroundTruth, ref.GroundTruth) {
					t.Errorf("round %d: ground truth differs", r)
				}
				if !reflect.DeepEqual(rep.Clients, ref.Clients) || !reflect.DeepEqual(rep.Weights, ref.Weights) || !reflect.DeepEqual(rep.Similarity, ref.Similarity) {
					t.Errorf("round %d: wanting views changed the run", r)
				}
			}
		})
	}
}

// TestClientComputesOnlyAskedSignatures checks the client boundary: a
// client reports the signatures and the embedding the message asks for,
// and no other.
func TestClientComputesOnlyAskedSignatures(t *testing.T) {
	e, err := sim.New(sim.SmallConfig(methods.FedAux), sim.SmallData(t, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := sim.ClientOf(e, 0)
	up, err := c.Round(context.Background(), &sim.Message{Round: 1, Sigma: 1, Signatures: []sim.Source{sim.SourceAPV}})
	if err != nil {
		t.Fatal(err)
	}
	if len(up.Signatures) != 1 || up.Signatures[sim.SourceAPV] == nil || up.Embedding != nil {
		t.Errorf("asked for the APV only, got signatures %v and embedding %v", up.Signatures, up.Embedding != nil)
	}
	if err := e.EnsureProxy([]sim.Source{sim.SourceFunctional}); err != nil {
		t.Fatal(err)
	}
	up, err = c.Round(context.Background(), &sim.Message{Round: 2, Sigma: 1, Signatures: []sim.Source{sim.SourceReadout, sim.SourcePC1, sim.SourceFunctional}, Embedding: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []sim.Source{sim.SourceReadout, sim.SourcePC1, sim.SourceFunctional} {
		if up.Signatures[s] == nil {
			t.Errorf("signature %s asked for and not reported", s)
		}
	}
	if len(up.Signatures) != 3 || up.Embedding == nil {
		t.Errorf("got %d signatures and embedding %v, want 3 and an embedding", len(up.Signatures), up.Embedding != nil)
	}
}

// TestOffered checks the optional matrices an engine lists.
func TestOffered(t *testing.T) {
	for algo, want := range map[sim.Algorithm][]string{
		methods.FedAux: {"apv", "apv-delta", "pc1", "readout", "functional", sim.MatrixGroundTruth},
		methods.FedAvg: {"pc1", "readout", "functional", sim.MatrixGroundTruth},
		methods.GCFL:   {"pc1", "readout", "functional", "update", sim.MatrixGroundTruth},
		// The GraphSAGE clients give no readout nor functional embedding.
		methods.FedSagePlus: {sim.MatrixGroundTruth},
		methods.FedSageAPV:  {"apv", "apv-delta", "pc1", sim.MatrixGroundTruth},
		methods.FedGTAAPV:   {"apv", "apv-delta", "pc1", "readout", "functional", sim.MatrixGroundTruth},
	} {
		e, err := sim.New(sim.SmallConfig(algo), sim.SmallData(t, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Offered(); !slices.Equal(got, want) {
			t.Errorf("%s: offered %v, want %v", algo, got, want)
		}
	}
}

// TestCompleteGivesTheWantedMatrices runs an engine that wants nothing
// next to one that wants every matrix, with a client missing round 2;
// after round 2, Complete gives the first the last round's matrices of
// the second, bit for bit, and the runs go on identically. FedSage+APV's
// round 2 is its generator phase's last: the clients evaluate on the full
// graph, then mend it (no client misses it: FedSage+ refuses absences).
func TestCompleteGivesTheWantedMatrices(t *testing.T) {
	for _, algo := range []sim.Algorithm{methods.FedAux, methods.FedAvg, methods.FedSageAPV} {
		t.Run(string(algo), func(t *testing.T) {
			c := sim.SmallConfig(algo)
			sim.SetOpts(t, &c, "gen_rounds", "2")
			build := func(want ...string) *sim.Engine {
				e, err := sim.New(c, sim.SmallData(t, 7), nil)
				if err != nil {
					t.Fatal(err)
				}
				if algo != methods.FedSageAPV {
					hooks := &sim.FaultHooks{Absent: func(round, client int) bool { return round == 2 && client == 2 }}
					if err := e.SetFaults(sim.Faults{Hooks: hooks}); err != nil {
						t.Fatal(err)
					}
				}
				e.Want(want...)
				return e
			}
			all, lazy := build(sim.WantAll), build()
			ctx := context.Background()
			for range 2 {
				for _, e := range []*sim.Engine{all, lazy} {
					if _, err := e.Step(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, ref := lazy.Reports()[1], all.Reports()[1]
			if len(got.Missing) != boolInt(algo != methods.FedSageAPV) || len(got.Views) >= len(ref.Views) || got.GroundTruth != nil {
				t.Fatalf("round 2: missing %v, %d views of %d, ground truth %v", got.Missing, len(got.Views), len(ref.Views), got.GroundTruth != nil)
			}
			if err := lazy.Complete(ctx, sim.WantAll); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Views, ref.Views) || !reflect.DeepEqual(got.GroundTruth, ref.GroundTruth) {
				t.Error("the completed matrices differ from those the round computes when they are wanted")
			}
			if !reflect.DeepEqual(got.Matrices(), ref.Matrices()) {
				t.Error("the completed report lists other matrices")
			}
			for _, e := range []*sim.Engine{all, lazy} {
				if _, err := e.Step(ctx); err != nil {
					t.Fatal(err)
				}
			}
			a, b := all.Reports()[2], lazy.Reports()[2]
			if !reflect.DeepEqual(a.Clients, b.Clients) || !reflect.DeepEqual(a.Weights, b.Weights) {
				t.Error("Complete changed the next round")
			}
		})
	}
}
