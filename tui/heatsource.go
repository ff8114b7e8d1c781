package tui

import (
	"slices"

	"github.com/fedaux/fedaux/export"
	"github.com/fedaux/fedaux/sim"
)

// Names of the heat map's sources that are not similarity views.
const (
	srcSimilarity  = "similarity" // the strategy's own similarity, when it is no view
	srcWeights     = "weights"
	srcGroundTruth = "ground truth"
)

// heatSource is one K x K matrix of a round that the heat map can show.
type heatSource struct {
	name string // the title: a signature (apv, pc1, ...), weights or ground truth
	desc string // what the entries are, for the legend line
	m    [][]float64
	kind export.Kind
	// setsW marks the similarity the mixing weights were derived from.
	setsW bool
	// later marks a view the engine can compute but the round did not,
	// nobody having shown it (m is nil): it is computed from the next
	// round on once shown (see viewsWanted).
	later bool
}

// heatSources lists the matrices of rep that m switches between, in a
// fixed order: the similarity of every signature the engine offers
// (offered, sim.Sources order, then any other), those rep lacks marked
// later, the strategy's similarity when it is none of them, the mixing
// weights and the ground truth. It is empty for a nil report.
func heatSources(rep *sim.RoundReport, offered []string) []heatSource {
	if rep == nil {
		return nil
	}
	var out []heatSource
	for _, name := range offered {
		if _, ok := rep.Views[sim.Source(name)]; !ok && name != sim.MatrixGroundTruth {
			out = append(out, heatSource{name: name, desc: "not computed", later: true})
		}
	}
	for _, m := range rep.Matrices() {
		if len(m.M) == 0 {
			continue
		}
		s := heatSource{name: m.Name, desc: "cosine", m: m.M, kind: m.Kind, setsW: m.SetWeights}
		switch {
		case m.Name == sim.MatrixSimilarity:
			s.name, s.desc = srcSimilarity, "the strategy's similarity"
		case m.Name == sim.MatrixWeights:
			s.name, s.desc = srcWeights, "mixing weights (Eq. 4)"
		case m.Name == sim.MatrixGroundTruth:
			s.name, s.desc = srcGroundTruth, "embedding cosine"
		case m.Kind == export.AbsCosine:
			s.desc = "|cosine|"
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b heatSource) int { return rank(a, offered) - rank(b, offered) })
	return out
}

// rank orders the heat map's sources: the offered views in their order,
// then any other view, then the strategy's similarity, the weights and
// the ground truth.
func rank(s heatSource, offered []string) int {
	switch s.name {
	case srcSimilarity:
		return len(offered) + 1
	case srcWeights:
		return len(offered) + 2
	case srcGroundTruth:
		return len(offered) + 3
	}
	if i := slices.Index(offered, s.name); i >= 0 {
		return i
	}
	return len(offered)
}

// viewsWanted returns the optional matrices (sim.Engine.Want) that the
// console reads: the view on the heat map (name, "" for the one that sets
// the weights, which every round computes) and the ground truth, which
// orders the clients when the strategy has no similarity and which the
// export's log writes.
func viewsWanted(name string) []string {
	if name == "" || name == srcGroundTruth || name == srcWeights || name == srcSimilarity {
		return []string{sim.MatrixGroundTruth}
	}
	return []string{name, sim.MatrixGroundTruth}
}

// pickSource returns the index in srcs of the source named name; for ""
// or a name srcs lacks, the similarity that set the weights, else the
// first source. It is -1 when srcs is empty.
func pickSource(srcs []heatSource, name string) int {
	if len(srcs) == 0 {
		return -1
	}
	if name != "" {
		for i, s := range srcs {
			if s.name == name {
				return i
			}
		}
	}
	for i, s := range srcs {
		if s.setsW {
			return i
		}
	}
	return 0
}

// stretchBelow is the auto-stretch rule's threshold: a matrix whose
// off-diagonal entries span less than this fraction of its raw scale
// (2 for cosines, 1 for |cosines| and weights) opens stretched. On the
// raw scale its off-diagonal cells would all fall in one shade, or two
// neighbours (the scale has 9 shades in colour, 5 without, so a shade is
// 12.5 % or 25 % of it), and the map would show nothing of the matrix.
const stretchBelow = 0.01

// autoStretch reports whether the rule (see stretchBelow) stretches
// source s: its off-diagonal entries differ, and span less than
// stretchBelow of its raw scale. A matrix whose off-diagonal entries are
// all equal (FedAvg's uniform weights) stays raw: there is nothing to
// stretch.
func autoStretch(s heatSource) bool {
	lo, hi, ok := export.OffDiagRange(s.m)
	if !ok || !(hi > lo) {
		return false
	}
	raw := export.RawScale(s.kind)
	return hi-lo < stretchBelow*(raw.Hi-raw.Lo)
}

// scaleMode is how the heat map chooses its scale: by the auto-stretch
// rule for each matrix shown, until the user chooses one with z.
type scaleMode int

const (
	scaleAuto scaleMode = iota
	scaleRaw
	scaleStretched
)

// stretched reports whether mode draws source s stretched.
func (mode scaleMode) stretched(s heatSource) bool {
	switch mode {
	case scaleRaw:
		return false
	case scaleStretched:
		return true
	}
	return autoStretch(s)
}

// scaleFor returns the colour scale of source s: its kind's fixed range,
// or its off-diagonal range when stretched.
func scaleFor(s heatSource, stretched bool) export.Scale {
	if stretched {
		return export.StretchedScale(s.m)
	}
	return export.RawScale(s.kind)
}
