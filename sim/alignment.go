package sim

import "math"

// WantAlignment, given to Engine.Want, asks for every client's alignment
// (ClientMetrics.Alignment): the absolute cosine between its APV and the
// leading eigenvector of its embedding covariance (Theorem 1 of the
// paper says the first converges to the second). It is not a matrix:
// Offered does not list it and WantAll does not include it. Models
// without an APV have none.
const WantAlignment = "alignment"

// alignment returns |cos(apv, pc1)|, where pc1 is the unit leading
// eigenvector of the covariance of the rows of the model's last
// embeddings (the pc1 signature), and whether the model has an APV. A
// zero APV has alignment 0.
func (c *Client) alignment() (float64, bool) {
	apv := c.model.Param("apv")
	if apv == nil {
		return 0, false
	}
	return absCosine(apv.Value, leadingEigenvector(c.model.Embeddings())), true
}

// absCosine returns |cos(a, b)|, 0 when either is zero.
func absCosine(a, b []float64) float64 {
	na, nb := math.Sqrt(dot(a, a)), math.Sqrt(dot(b, b))
	if na == 0 || nb == 0 {
		return 0
	}
	return math.Min(1, math.Abs(dot(a, b))/(na*nb))
}
