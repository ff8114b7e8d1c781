package gnn

import (
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/cputime"
	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// coraClient is a client of the size of a Cora-10 client: N = 250 nodes,
// about 4 edges per node, F = 1433 sparse row-normalised features with
// about 18 non-zeros per row, C = 7 classes.
func coraClient(rng *rand.Rand) testClient {
	const n, f, nnz, classes = 250, 1433, 18, 7
	adj := mat.NewDense(n, n, nil)
	for i := range n {
		for range 2 {
			j := rng.IntN(n)
			if j != i {
				adj.Set(i, j, 1)
				adj.Set(j, i, 1)
			}
		}
	}
	x := mat.NewDense(n, f, nil)
	for i := range n {
		for range nnz {
			x.Set(i, rng.IntN(f), 1.0/nnz)
		}
	}
	return benchLabels(Input{Prop: mustProp(CSRFromDense(adj)), X: Features{Sparse: CSRFromDense(x)}}, n, classes, rng)
}

// benchLabels returns a client of in's n nodes with labels drawn from
// rng among classes, every fifth node a training node.
func benchLabels(in Input, n, classes int, rng *rand.Rand) testClient {
	c := testClient{in: in, labels: make([]int, n)}
	for i := range c.labels {
		c.labels[i] = rng.IntN(classes)
		if i%5 == 0 {
			c.train = append(c.train, i)
		}
	}
	return c
}

// computerClient is a client of the size of an Amazon-Computer-10
// client: N = 1375 nodes, about 36 neighbours a node, F = 767
// bag-of-words features of which about a third are non-zero, C = 10
// classes.
func computerClient(rng *rand.Rand) testClient {
	const n, f, classes = 1375, 767, 10
	return benchLabels(Input{Prop: mustProp(randGraph(rng, n, 0.026)), X: Features{Sparse: randSparse(rng, n, f, 320)}}, n, classes, rng)
}

func benchModel(b *testing.B, cfg Config, eval bool) {
	rng := rand.New(rand.NewPCG(61, 62))
	cfg.InFeatures, cfg.Hidden, cfg.Classes = 1433, 256, 7
	benchClient(b, cfg, coraClient(rng), rng, eval)
}

// benchClient times a local epoch of a model of cfg on c: forward, loss,
// backward and Adam step, then with eval a forward in evaluation.
func benchClient(b *testing.B, cfg Config, c testClient, rng *rand.Rand, eval bool) {
	m, err := NewModel(cfg, rng)
	if err != nil {
		b.Fatal(err)
	}
	opt := NewAdam(m.Params(), 0.01, 1e-6)
	dlogits := mat.NewDense(len(c.labels), cfg.Classes, nil)
	b.ReportAllocs()
	stop := cputime.Start(b)
	for b.Loop() {
		logits, err := m.Forward(c.in, true, rng)
		if err != nil {
			b.Fatal(err)
		}
		SoftmaxCrossEntropy(logits, c.labels, c.train, dlogits)
		m.ZeroGrad()
		m.Backward(dlogits)
		opt.Step()
		if eval {
			if _, err := m.Forward(c.in, false, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	stop()
}

// BenchmarkModelEpoch is one local epoch of a Cora-10 FedAux client:
// forward, loss, backward and Adam step (N = 250, F = 1433 sparse,
// d = 256, C = 7, dense kernel).
func BenchmarkModelEpoch(b *testing.B) {
	benchModel(b, Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5}, false)
}

// BenchmarkModelRound adds the evaluation forward pass a round performs
// after local training.
func BenchmarkModelRound(b *testing.B) {
	benchModel(b, Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5}, true)
}

// BenchmarkModelEpochGCN is BenchmarkModelEpoch for FedAvg's plain GCN.
func BenchmarkModelEpochGCN(b *testing.B) {
	benchModel(b, Config{Dropout: 0.5}, false)
}

// BenchmarkPrecision runs BenchmarkModelRound's FedAux client and
// BenchmarkModelEpochGCN's FedAvg client at both precisions, as
// sub-benchmarks prec=f64 and prec=f32 (benchstat -col /prec).
func BenchmarkPrecision(b *testing.B) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"fedaux-round", Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5}},
		{"gcn-round", Config{Dropout: 0.5}},
	} {
		for _, p := range []Precision{F64, F32} {
			b.Run(c.name+"/prec="+p.String(), func(b *testing.B) {
				cfg := c.cfg
				cfg.Precision = p
				benchModel(b, cfg, true)
			})
		}
	}
}

// BenchmarkComputerEpoch is a local epoch and an evaluation of a
// computer-10 FedAux client at both precisions (computerClient, d = 256,
// the fast Gauss transform on one goroutine, as the engine picks for a
// client of this size).
func BenchmarkComputerEpoch(b *testing.B) {
	for _, p := range []Precision{F64, F32} {
		b.Run("prec="+p.String(), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(63, 64))
			cfg := Config{Masked: true, Kernel: true, Score: Cosine, Sigma: 1, Dropout: 0.5, Precision: p, Gauss: Fast{Workers: 1}}
			cfg.InFeatures, cfg.Hidden, cfg.Classes = 767, 256, 10
			benchClient(b, cfg, computerClient(rng), rng, true)
		})
	}
}

// BenchmarkPrecisionAVX2 is BenchmarkPrecision with the kernels at the
// AVX2 level (what a CPU without AVX-512 runs).
func BenchmarkPrecisionAVX2(b *testing.B) {
	prev := vec.Use(vec.AVX2)
	defer vec.Use(prev)
	BenchmarkPrecision(b)
}

// BenchmarkGCNSparseLayer times a forward and a backward of the first
// layer on a client of the size of an Amazon-Computer-10 client: 1375
// nodes, 767 bag-of-words features of which a third are non-zero, 256
// outputs, masked (terms.sumCompressed sums it by blocks).
func BenchmarkGCNSparseLayer(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, fin, fout = 1375, 767, 256
	prop, err := NewPropagator(randGraph(rng, n, 0.02))
	if err != nil {
		b.Fatal(err)
	}
	x := Features{Sparse: randSparse(rng, n, fin, 320)} // about 270 distinct a row
	l := NewGCN("conv", fin, fout, true, rng)
	r := randDense(rng, n, fout, 1)
	stop := cputime.Start(b)
	for b.Loop() {
		l.Forward(prop, x, true)
		l.Backward(r, false)
	}
	stop()
}

// BenchmarkDrawScale draws the dropout scale of a computer-10 client's
// hidden layer (1,375 nodes x 256) at p = 1/2 in both precisions.
func BenchmarkDrawScale(b *testing.B) {
	const n = 1375 * 256
	b.Run("f64", func(b *testing.B) {
		s, rng := make([]float64, n), rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			drawScale(s, 0.5, rng)
		}
	})
	b.Run("f32", func(b *testing.B) {
		s, rng := make([]float32, n), rand.New(rand.NewPCG(1, 2))
		for b.Loop() {
			drawScale(s, 0.5, rng)
		}
	})
}
