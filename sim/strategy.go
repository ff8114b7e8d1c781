package sim

import (
	"math"
	"slices"

	"github.com/fedaux/fedaux/gnn"
)

// Knobs are the settings a user may change between rounds.
type Knobs struct {
	Alpha float64 // Eq. 4 temperature (when Partners is 0)
	Sigma float64 // Eq. 5 bandwidth (sent to clients)
	// Partners, when positive, sets alpha per client each round so that
	// the mixing weights' effective number of partners (exp of the row
	// entropy) equals it ("-alpha auto").
	Partners float64
}

// RoundInput is what the server knows when it mixes: the clients' updates,
// the similarity matrix of each signature they carry, and the knobs.
type RoundInput struct {
	Updates []*Update
	Views   map[Source][][]float64
	Knobs   Knobs
	Round   int // the round being mixed, from 1
}

// Mixing is the server's decision for a round.
type Mixing struct {
	// W is the K x K row-stochastic mixing matrix (Eq. 6: theta_k =
	// sum_l W_kl theta_l); nil means no communication.
	W [][]float64
	// Similarity is the matrix W was derived from (nil when none), and
	// Source the view of RoundInput.Views it is ("" when none).
	Similarity [][]float64
	Source     Source
	// Alphas holds the per-client alpha chosen by auto alpha (nil otherwise).
	Alphas []float64
	// Clusters, for clustered strategies (GCFL), lists the clusters after
	// the round as positions in RoundInput.Updates (read, not kept, by the
	// engine); nil otherwise.
	Clusters [][]int
	// ClusterNorms holds, per cluster before the round's splits, GCFL's
	// split statistics (compared with -eps1 and -eps2); nil otherwise.
	ClusterNorms []ClusterNorm
}

// ClusterNorm is GCFL's split statistic for one cluster in one round: a
// cluster splits when Mean < eps1 and Max > eps2.
type ClusterNorm struct {
	Mean float64 `json:"mean"` // || mean_{k in C} dW_k ||
	Max  float64 `json:"max"`  // max_{k in C} ||dW_k||
}

// A Strategy is the part of a federated algorithm that differs from the
// others: the client model, which parameters travel, and the server's
// mixing weights. Everything else (local training, the weighted mixing
// itself, evaluation) is shared by all strategies.
type Strategy interface {
	// Name is the algorithm's name as given to -algo.
	Name() Algorithm
	// Model sets the client model's architecture flags in cfg.
	Model(cfg *gnn.Config)
	// Shares reports whether parameter p is sent to the server and mixed.
	Shares(p *gnn.Param) bool
	// Mix decides the round's mixing weights.
	Mix(in *RoundInput) Mixing
}

type algorithm struct {
	describe string
	make     func(c *Config) Strategy
}

var algorithms = map[Algorithm]algorithm{
	FedAux: {"FedAux: masked GCN + APV kernel; server mixes by softmax(alpha * APV cosine) (Eq. 3, 4, 6)",
		func(c *Config) Strategy { return fedAux{source: c.Source, apvMix: c.APVMix} }},
	FedAvgMask: {"ablation ii: FedAux client, uniform server weights (alpha = 0)",
		func(c *Config) Strategy { return fedAux{uniform: true, source: c.Source, apvMix: c.APVMix} }},
	FedAvg: {"FedAvg: plain 2-layer GCN, every client starts each round from the mean", func(*Config) Strategy { return fedAvg{} }},
	Local:  {"Local: each client trains the FedAux client model alone, no communication", func(*Config) Strategy { return local{} }},
	FedProx: {"FedProx: FedAvg with the local proximal term (mu/2)||theta - theta_global||^2 (-mu)",
		func(c *Config) Strategy { return fedProx{mu: c.Mu} }},
	FedPer: {"FedPer: plain GCN, GCN layers averaged, classifier head kept local", func(*Config) Strategy { return fedPer{} }},
	GCFL: {"GCFL: clustered FedAvg; a cluster splits by min cut of update cosines when its mean update norm < -eps1 and max > -eps2",
		func(c *Config) Strategy { return &gcfl{eps1: c.GCFLEps1, eps2: c.GCFLEps2} }},
	FedPub: {"FED-PUB: MaskedGCN; server mixes by softmax(tau * cosine of functional embeddings of a proxy graph) (-tau)", newFedPub},
	FedAuxHard: {"ablation i: FedAux with the kernel replaced by sort by score + two 1-D convolutions",
		func(c *Config) Strategy { return fedAuxHard{fedAux{source: c.Source, apvMix: c.APVMix}} }},
	FedGTA: {"FedGTA: plain GCN; label-propagation moments and smoothing confidence; each client mixes the clients whose moment cosine > -gta_eps, weighted by confidence", newFedGTA},
	FedGNN: {"FedGNN-NC: plain GCN on the graph expanded with cut-edge neighbours' embeddings relayed by the server; LDP; FedAvg by training-set size", newFedGNN},
	FedSagePlus: {"FedSage+: NeighGen rounds (-gen_rounds) train missing-neighbour generators across clients, then FedAvg of GraphSAGE on the mended graphs",
		newFedSagePlus},
	FedPubAPV: {"FED-PUB+APV: FED-PUB's MaskedGCN + APV head; server mixes by softmax(alpha * APV cosine), no proxy graph (docs/method.md#the-apv-variants; FedAux's algorithm)",
		newFedPubAPV},
	FedGTAAPV: {"FedGTA+APV: GCN + APV head; client k mixes its accept set (-gta_accept) weighted by confidence * exp(alpha * APV cosine)",
		newFedGTAAPV},
	FedSageAPV: {"FedSage+APV: FedSage+'s NeighGen rounds, then GraphSAGE + APV head mixed by softmax(alpha * APV cosine) instead of FedAvg",
		newFedSageAPV},
}

// Algorithms lists the algorithms, sorted by name.
func Algorithms() []Algorithm {
	names := make([]Algorithm, 0, len(algorithms))
	for n := range algorithms {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Describe returns a one-line description of the algorithm.
func (a Algorithm) Describe() string { return algorithms[a].describe }

// newStrategy returns the strategy that cfg.Algo names.
func newStrategy(cfg *Config) (Strategy, bool) {
	a, ok := algorithms[cfg.Algo]
	if !ok {
		return nil, false
	}
	return a.make(cfg), true
}

// fedAux mixes every non-mask parameter (the APV too when apvMix) with
// weights softmax(alpha * sim(k, l)) over l, sim the cosine of the chosen
// signature (Eq. 3, 4, 6; the paper's signature is the APV).
type fedAux struct {
	uniform bool
	source  Source
	apvMix  bool
}

func (f fedAux) Name() Algorithm {
	if f.uniform {
		return "fedavg_mask"
	}
	return "fedaux"
}
func (fedAux) Model(cfg *gnn.Config) { cfg.Masked, cfg.Kernel = true, true }
func (f fedAux) Uses() []Source      { return []Source{f.source} }
func (f fedAux) Shares(p *gnn.Param) bool {
	return !p.Personal && (f.apvMix || p.Name != "apv")
}
func (f fedAux) Mix(in *RoundInput) Mixing {
	sim := in.Views[f.source] // Eq. 3 for the APV
	if f.uniform {
		return Mixing{W: softmaxRows(sim, 0), Similarity: sim, Source: f.source}
	}
	if in.Knobs.Partners > 0 {
		w := make([][]float64, len(sim))
		alphas := make([]float64, len(sim))
		for k, row := range sim {
			alphas[k] = alphaForPartners(row, in.Knobs.Partners)
			w[k] = softmaxRows([][]float64{row}, alphas[k])[0]
		}
		return Mixing{W: w, Similarity: sim, Alphas: alphas, Source: f.source}
	}
	return Mixing{W: softmaxRows(sim, in.Knobs.Alpha), Similarity: sim, Source: f.source} // Eq. 4
}

// fedAvg is plain FedAvg on a plain GCN: the unweighted mean.
type fedAvg struct{}

func (fedAvg) Name() Algorithm          { return "fedavg" }
func (fedAvg) Model(cfg *gnn.Config)    { cfg.Masked, cfg.Kernel = false, false }
func (fedAvg) Shares(p *gnn.Param) bool { return !p.Personal }
func (fedAvg) Mix(in *RoundInput) Mixing {
	return Mixing{W: uniformWeights(len(in.Updates))}
}

// local trains every client alone.
type local struct{}

func (local) Name() Algorithm        { return "local" }
func (local) Model(cfg *gnn.Config)  { cfg.Masked, cfg.Kernel = true, true }
func (local) Shares(*gnn.Param) bool { return false }
func (local) Mix(*RoundInput) Mixing { return Mixing{} }

func uniformWeights(k int) [][]float64 {
	w := make([][]float64, k)
	for i := range w {
		w[i] = make([]float64, k)
		for j := range w[i] {
			w[i][j] = 1 / float64(k)
		}
	}
	return w
}

// cosineMatrix returns the matrix of cosine similarities between vectors;
// a zero vector has similarity 0 with every other and 1 with itself.
func cosineMatrix(v [][]float64) [][]float64 {
	k := len(v)
	norms := make([]float64, k)
	for i, x := range v {
		norms[i] = norm(x)
	}
	m := make([][]float64, k)
	for i := range m {
		m[i] = make([]float64, k)
	}
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			var c float64
			switch {
			case i == j:
				c = 1
			case norms[i] > 0 && norms[j] > 0:
				c = dot(v[i], v[j]) / (norms[i] * norms[j])
			}
			m[i][j], m[j][i] = c, c
		}
	}
	return m
}

// softmaxRows returns w_kl = exp(alpha s_kl) / sum_r exp(alpha s_kr) (Eq. 4).
func softmaxRows(s [][]float64, alpha float64) [][]float64 {
	w := make([][]float64, len(s))
	for i, row := range s {
		w[i] = make([]float64, len(row))
		hi := math.Inf(-1)
		for _, v := range row {
			hi = math.Max(hi, alpha*v)
		}
		var sum float64
		for j, v := range row {
			w[i][j] = math.Exp(alpha*v - hi)
			sum += w[i][j]
		}
		for j := range row {
			w[i][j] /= sum
		}
	}
	return w
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func norm(v []float64) float64 { return math.Sqrt(dot(v, v)) }

// cosine returns cos(a, b), 0 when either is zero.
func cosine(a, b []float64) float64 {
	na, nb := norm(a), norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	return dot(a, b) / (na * nb)
}
