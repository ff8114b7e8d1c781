package gnn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SmoothL1 returns FedSage+'s degree loss, torch's smooth_l1_loss with
// beta 1 averaged over the nodes idx:
//
//	L^d = (1/|idx|) sum_{i in idx} l(pred_i - target_i),
//	l(r) = r^2/2 if |r| < 1, |r| - 1/2 otherwise.
//
// When dPred is not nil (len(pred) entries) scale dL/dpred is added to
// it. An empty idx gives 0.
func SmoothL1(pred, target []float64, idx []int, scale float64, dPred []float64) float64 {
	if len(idx) == 0 {
		return 0
	}
	inv := 1 / float64(len(idx))
	var loss float64
	for _, i := range idx {
		r := pred[i] - target[i]
		g := r
		if math.Abs(r) < 1 {
			loss += r * r / 2
		} else {
			loss += math.Abs(r) - 0.5
			g = math.Copysign(1, r)
		}
		if dPred != nil {
			dPred[i] += scale * g * inv
		}
	}
	return loss * inv
}

// GreedyLoss returns FedSage+'s feature loss with greedy matching over
// R nodes: row rows[r] of gen (MaxPred x Width generated features per
// row) against row r of target (MaxPred x Width true features),
//
//	L^f = (1/(R n_max)) sum_r sum_{j < min(n_max, pred_r)} 1[true_r > 0] min_{u < min(n_max, true_r)} mse(x~_rj, x_ru),
//
// with mse(a, b) = (1/Width) ||a - b||^2 and n_max = MaxPred: each
// generated neighbour is matched to its nearest true one (the first on
// ties). The reference codes compare a scalar with a row sum here and
// end up matching roughly the last true neighbour; this takes the true
// minimum, as docs/method.md#fedsage asks. rows nil means rows[r] = r.
//
// When dGen is not nil (gen's shape) scale dL/dgen is added to it.
func GreedyLoss(gen *mat.Dense, rows []int, target *mat.Dense, pred, truth []int, scale float64, dGen *mat.Dense) float64 {
	r, c := target.Dims()
	if len(pred) != r || len(truth) != r || (rows != nil && len(rows) != r) || c%MaxPred != 0 {
		panic(fmt.Sprintf("gnn: greedy loss: %dx%d targets, %d predicted and %d true counts, %d rows", r, c, len(pred), len(truth), len(rows)))
	}
	if r == 0 {
		return 0
	}
	w := c / MaxPred
	norm := 1 / float64(r*MaxPred)
	g, t := gen.RawMatrix(), target.RawMatrix()
	var d mat.RawMatrixer
	if dGen != nil {
		d = dGen
	}
	var loss float64
	for k := 0; k < r; k++ {
		if truth[k] <= 0 {
			continue
		}
		i := k
		if rows != nil {
			i = rows[k]
		}
		nu := min(MaxPred, truth[k])
		for j := 0; j < min(MaxPred, pred[k]); j++ {
			x := g.Data[i*g.Stride+j*w : i*g.Stride+(j+1)*w]
			best, bestU := math.Inf(1), 0
			for u := 0; u < nu; u++ {
				y := t.Data[k*t.Stride+u*w : k*t.Stride+(u+1)*w]
				var s float64
				for e, v := range x {
					diff := v - y[e]
					s += diff * diff
				}
				if s < best {
					best, bestU = s, u
				}
			}
			loss += best / float64(w)
			if d != nil {
				raw := d.RawMatrix()
				dst := raw.Data[i*raw.Stride+j*w : i*raw.Stride+(j+1)*w]
				y := t.Data[k*t.Stride+bestU*w : k*t.Stride+(bestU+1)*w]
				a := scale * norm * 2 / float64(w)
				for e, v := range x {
					dst[e] += a * (v - y[e])
				}
			}
		}
	}
	return loss * norm
}
