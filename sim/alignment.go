package sim

import "math"

// WantAlignment, given to Engine.Want, asks for every client's alignment
// (ClientMetrics.Alignment): the absolute cosine between its APV and the
// leading eigenvector of its embedding covariance (Theorem 1 of the
// paper says the first converges to the second). It is not a matrix:
// Offered does not list it and WantAll does not include it. Models
// without an APV have none.
const WantAlignment = "alignment"

// alignment sets up.Alignment to |cos(apv, pc1)|, where pc1 is the unit
// leading eigenvector of the covariance of the rows of the model's last
// embeddings (the pc1 signature), and up.AlignmentInit to |cos(apv0,
// pc1)|, apv0 the APV the run started from; it sets neither when the
// model has no APV. A zero APV has alignment 0.
func (c *Client) alignment(up *Update) {
	apv := c.model.Param("apv")
	if apv == nil {
		return
	}
	setAlignment(up, apv.Value, c.apvInit, leadingEigenvector(c.model.Embeddings()))
}

// setAlignment sets up's alignment of apv and of apv0 with pc1.
func setAlignment(up *Update, apv, apv0, pc1 []float64) {
	a, a0 := absCosine(apv, pc1), absCosine(apv0, pc1)
	up.Alignment, up.AlignmentInit = &a, &a0
}

// absCosine returns |cos(a, b)| (at most 1 despite rounding), 0 when
// either is zero.
func absCosine(a, b []float64) float64 { return math.Min(1, math.Abs(cosine(a, b))) }
