package gnn

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestReleaseChangesNothing trains two equal models for three steps, one
// of them releasing its scratch memory between steps (as idle clients do
// between rounds), and expects bit-identical parameters and logits, for
// every model variant including the FedAux_hard head.
func TestReleaseChangesNothing(t *testing.T) {
	cases := append(slices.Clone(modelCases), struct {
		name  string
		cfg   Config
		train bool
	}{"fedaux_hard", Config{Masked: true, Kernel: true, Hard: true, Score: Cosine, Sigma: 1, Dropout: 0.5}, true})
	for _, c := range f32Cases { // the float32 layers lend their activations too
		c.name += "/f32"
		c.cfg.Precision = F32
		cases = append(cases, c)
	}
	for _, mc := range cases {
		t.Run(mc.name, func(t *testing.T) {
			cfg := mc.cfg
			cfg.InFeatures, cfg.Hidden, cfg.Classes = 20, 6, 3
			a, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
			b, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
			cl := newTestClient(rand.New(rand.NewPCG(3, 4)), 15, 20, 3)
			ra, rb := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
			oa, ob := NewAdam(a.Params(), 0.01, 1e-6), NewAdam(b.Params(), 0.01, 1e-6)
			var la, lb *mat.Dense
			for step := 0; step < 3; step++ {
				for _, m := range []struct {
					model *Model
					rng   *rand.Rand
					opt   *Adam
					out   **mat.Dense
				}{{a, ra, oa, &la}, {b, rb, ob, &lb}} {
					m.model.ZeroGrad()
					logits, err := m.model.Forward(cl.in, true, m.rng)
					if err != nil {
						t.Fatal(err)
					}
					d := mat.NewDense(15, 3, nil)
					SoftmaxCrossEntropy(logits, cl.labels, cl.train, d)
					m.model.Backward(d)
					m.opt.Step()
					ev, err := m.model.Forward(cl.in, false, nil)
					if err != nil {
						t.Fatal(err)
					}
					*m.out = mat.DenseCopyOf(ev)
				}
				b.Release()
			}
			if !mat.Equal(la, lb) {
				t.Error("logits differ after Release")
			}
			for i, p := range a.Params() {
				if !slices.Equal(p.Value, b.Params()[i].Value) {
					t.Errorf("%s differs after Release", p.Name)
				}
			}
		})
	}
}

// TestScratchSharedChangesNothing trains two models of different clients
// (15 and 9 nodes) in turn in one shared Scratch, borrowing it for each
// step and returning it after, and expects the parameters and logits of
// models that kept their own memory, bit for bit: a borrower must not
// depend on what the previous one left in the arrays. Between steps the
// models hold no gradient memory.
func TestScratchSharedChangesNothing(t *testing.T) {
	cases := append(slices.Clone(modelCases), struct {
		name  string
		cfg   Config
		train bool
	}{"fedaux_hard", Config{Masked: true, Kernel: true, Hard: true, Score: Cosine, Sigma: 1, Dropout: 0.5}, true})
	for _, c := range f32Cases { // the float32 layers lend their activations too
		c.name += "/f32"
		c.cfg.Precision = F32
		cases = append(cases, c)
	}
	for _, mc := range cases {
		t.Run(mc.name, func(t *testing.T) {
			cfg := mc.cfg
			cfg.InFeatures, cfg.Hidden, cfg.Classes = 20, 6, 3
			type run struct {
				model  *Model
				opt    *Adam
				rng    *rand.Rand
				client testClient
				logits *mat.Dense
			}
			mk := func(seed uint64, n int) *run {
				m, _ := NewModel(cfg, rand.New(rand.NewPCG(seed, 2)))
				return &run{model: m, opt: NewAdam(m.Params(), 0.01, 1e-6), rng: rand.New(rand.NewPCG(seed, 6)),
					client: newTestClient(rand.New(rand.NewPCG(seed, 4)), n, 20, 3)}
			}
			own := []*run{mk(1, 15), mk(2, 9)}
			shared := []*run{mk(1, 15), mk(2, 9)}
			var s Scratch
			step := func(r *run) {
				r.model.ZeroGrad()
				logits, err := r.model.Forward(r.client.in, true, r.rng)
				if err != nil {
					t.Fatal(err)
				}
				n, _ := logits.Dims()
				d := mat.NewDense(n, 3, nil)
				SoftmaxCrossEntropy(logits, r.client.labels, r.client.train, d)
				r.model.Backward(d)
				r.opt.Step()
				ev, err := r.model.Forward(r.client.in, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				r.logits = mat.DenseCopyOf(ev)
			}
			for range 3 {
				for i := range own {
					step(own[i])
					shared[i].model.Borrow(&s)
					step(shared[i])
					shared[i].model.Return(&s)
					for _, p := range shared[i].model.Params() {
						if p.Grad != nil {
							t.Fatalf("%s keeps its gradient after Return", p.Name)
						}
					}
				}
			}
			for i := range own {
				if !mat.Equal(own[i].logits, shared[i].logits) {
					t.Errorf("model %d: logits differ with a shared scratch", i)
				}
				for j, p := range own[i].model.Params() {
					if !slices.Equal(p.Value, shared[i].model.Params()[j].Value) {
						t.Errorf("model %d: %s differs with a shared scratch", i, p.Name)
					}
				}
			}
		})
	}
}

// TestReleaseKeepsColumns checks that a sparse first layer keeps its
// input's columns across Release, and builds them again for another
// input: the evaluation then equals a fresh model's on that input.
func TestReleaseKeepsColumns(t *testing.T) {
	cfg := Config{InFeatures: 20, Hidden: 6, Classes: 3, Masked: true, Kernel: true, Score: Cosine, Sigma: 1}
	m, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
	cl := newTestClient(rand.New(rand.NewPCG(3, 4)), 15, 20, 3)
	other := newTestClient(rand.New(rand.NewPCG(7, 8)), 12, 20, 3)
	if _, err := m.Forward(cl.in, false, nil); err != nil {
		t.Fatal(err)
	}
	l := m.layers[0].conv
	idx := &l.xt.idx[0]
	m.Release()
	if _, err := m.Forward(cl.in, false, nil); err != nil {
		t.Fatal(err)
	}
	if l.xtOf != cl.in.X.Sparse || &l.xt.idx[0] != idx {
		t.Error("the columns of the same input were built again after Release")
	}
	m.Release()
	got, err := m.Forward(other.in, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.xtOf != other.in.X.Sparse {
		t.Error("the columns were not built for another input")
	}
	fresh, _ := NewModel(cfg, rand.New(rand.NewPCG(1, 2)))
	want, err := fresh.Forward(other.in, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, want) {
		t.Error("evaluation on another input differs from a fresh model's")
	}
}
