package sim

import (
	"fmt"
	"math/rand/v2"
	"runtime"

	"github.com/fedaux/fedaux/gnn"
	"gonum.org/v1/gonum/mat"
)

// sageClassifier is a FedSage+ client's classifier: FedSage+'s GraphSAGE
// (plainSAGE) or FedSage+APV's, with the APV head (gnn.SAGEAPVNet).
type sageClassifier interface {
	Forward(adj *gnn.MeanAdj, x gnn.Features, extra *mat.Dense, train bool, rng *rand.Rand) (*mat.Dense, error)
	Backward(dOut *mat.Dense, needExtra bool) *mat.Dense
	Params() []*gnn.Param
	Hidden() *mat.Dense
}

// plainSAGE is FedSage+'s classifier, whose forward pass cannot fail.
type plainSAGE struct{ *gnn.SAGENet }

func (p plainSAGE) Forward(adj *gnn.MeanAdj, x gnn.Features, extra *mat.Dense, train bool, rng *rand.Rand) (*mat.Dense, error) {
	return p.SAGENet.Forward(adj, x, extra, train, rng), nil
}

// newSageHead widens net, the classifier a FedSage+ client of n nodes
// draws, into FedSage+APV's: the head's own weights and the APV come from
// the "init-apv" stream, shared by all clients (see fedSageAPV). Its
// kernel transform is chosen as the engine chooses a FedAux client's,
// from the client's size and the cores the worker pool leaves idle (the
// transform's result does not depend on them).
func newSageHead(net *gnn.SAGENet, cfg *Config, n, clients int) *gnn.SAGEAPVNet {
	inner := max(1, runtime.GOMAXPROCS(0)/min(cfg.workers(), clients))
	return gnn.NewSAGEAPVNet(net, cfg.Score, cfg.Sigma, chooseGauss(cfg.Kernel, n, inner), stream(cfg.Seed, "init-apv", 0))
}

// headSignatures adds to up, after the round's evaluation forward pass,
// the signatures msg asks for that a FedSage+APV client can give (the
// APV, its change over the round, and pc1 of the embeddings of every row
// the kernel reads, generated ones included) and its alignment.
func (c *sageClient) headSignatures(msg *Message, up *Update) {
	apv := c.head.Score.APV.Value
	up.Signatures = map[Source][]float64{}
	var pc1 []float64
	eigen := func() []float64 {
		if pc1 == nil {
			pc1 = leadingEigenvector(c.head.Hidden())
		}
		return pc1
	}
	for _, s := range msg.Signatures {
		switch {
		case s == SourceAPV:
			up.Signatures[s] = append([]float64(nil), apv...)
		case s == SourceAPVDelta && len(c.apvStart) == len(apv):
			up.Signatures[s] = difference(apv, c.apvStart)
		case s == SourcePC1:
			up.Signatures[s] = append([]float64(nil), eigen()...)
		}
	}
	if msg.Alignment {
		setAlignment(up, apv, c.apvInit, eigen())
	}
}

// late computes, between rounds, what headSignatures and the mean
// embedding give after round round's evaluation: that forward pass is
// run again on the graph it read (the full graph up to the generator
// phase's last round, whose evaluation precedes the mending; the mended
// graph after it). It draws nothing and reads only the parameters,
// unchanged since.
func (c *sageClient) late(round int, sigs []Source, embedding bool) (*Update, error) {
	up := &Update{ClientMetrics: ClientMetrics{ID: c.ID}}
	if c.head == nil && !embedding {
		return up, nil // FedSage+'s clients give no signature
	}
	g := c.full
	if c.mend != nil && round > c.genRounds {
		g = c.mend.graph
	}
	if _, err := c.cls.Forward(g.adj, g.x, g.extra, false, nil); err != nil {
		return nil, fmt.Errorf("client %d: %w", c.ID, err)
	}
	if embedding {
		up.Embedding = meanRows(sageRowsOf(c.cls.Hidden(), len(c.labels)))
	}
	if c.head != nil {
		c.headSignatures(&Message{Signatures: sigs}, up)
	}
	return up, nil
}
