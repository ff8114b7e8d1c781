package sim

import (
	"math"

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
	// Settings are the method's own settings as the next round uses them:
	// the run's Config.Options with the changes of its live settings
	// (Setting.Live) applied. Read a live one with Value.
	Settings Options
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

// SharesAPV is FedAux's Shares: every parameter that is not personal (the
// masks are), the APV only when apvMix (-apv_mix).
func SharesAPV(p *gnn.Param, apvMix bool) bool {
	return !p.Personal && (apvMix || p.Name != "apv")
}

// SimilarityMixing is FedAux's server (Eq. 4): the weights
// softmax(alpha * S) row by row, S the round's view of source (Eq. 3 for
// the APV) and alpha the round's knob, or chosen per client for the
// target number of partners under auto alpha (Knobs.Partners > 0,
// Mixing.Alphas). The Mixing names S as the similarity it came from.
func SimilarityMixing(in *RoundInput, source Source) Mixing {
	sim := in.Views[source]
	if in.Knobs.Partners > 0 {
		w := make([][]float64, len(sim))
		alphas := make([]float64, len(sim))
		for k, row := range sim {
			alphas[k] = alphaForPartners(row, in.Knobs.Partners)
			w[k] = softmaxRows([][]float64{row}, alphas[k])[0]
		}
		return Mixing{W: w, Similarity: sim, Alphas: alphas, Source: source}
	}
	return Mixing{W: softmaxRows(sim, in.Knobs.Alpha), Similarity: sim, Source: source} // Eq. 4
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

// SoftmaxRows returns w_kl = exp(alpha s_kl) / sum_r exp(alpha s_kr)
// (Eq. 4); at alpha 0 every row is uniform.
func SoftmaxRows(s [][]float64, alpha float64) [][]float64 { return softmaxRows(s, alpha) }

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
