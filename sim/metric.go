package sim

import (
	"cmp"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/fedaux/fedaux/graphio"
)

// Metric is what a run reports as a client's validation and test score
// (the val_acc and test_acc fields of the log keep their names whatever
// the metric): the accuracy, or for a binary task the ROC AUC, as the
// heterophilous benchmark of Platonov et al. (ICLR 2023) reports its two
// binary sets. Both are percentages.
type Metric int

const (
	// Accuracy is the percentage of nodes whose arg-max logit is their
	// label.
	Accuracy Metric = iota
	// ROCAUC is the area under the ROC curve of the logit margin
	// z_1 - z_0 (monotone in the softmax probability of class 1), in
	// percent, ties counted half (the Mann-Whitney statistic). Binary
	// tasks only.
	ROCAUC
)

var metricNames = [...]string{Accuracy: "accuracy", ROCAUC: "rocauc"}
var metricLabels = [...]string{Accuracy: "accuracy", ROCAUC: "ROC AUC"}

// String returns "accuracy" or "rocauc", as scenario files and logs
// spell the metric.
func (m Metric) String() string {
	if m < 0 || int(m) >= len(metricNames) {
		return fmt.Sprintf("Metric(%d)", int(m))
	}
	return metricNames[m]
}

// Label returns the metric's name for people: "accuracy" or "ROC AUC".
func (m Metric) Label() string {
	if m < 0 || int(m) >= len(metricLabels) {
		return m.String()
	}
	return metricLabels[m]
}

// ParseMetric returns the metric named s ("accuracy" or "rocauc").
func ParseMetric(s string) (Metric, error) {
	for m, name := range metricNames {
		if s == name {
			return Metric(m), nil
		}
	}
	return 0, fmt.Errorf("sim: unknown metric %q (have accuracy, rocauc)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (m Metric) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(metricNames) {
		return nil, fmt.Errorf("sim: invalid metric %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Metric) UnmarshalText(b []byte) error {
	v, err := ParseMetric(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Score returns the metric of the nodes idx (local indices) under the
// logits and labels of a client's graph, in percent.
func (m Metric) Score(logits *mat.Dense, labels, idx []int) float64 {
	if m == ROCAUC {
		return rocAUC(logits, labels, idx)
	}
	return accuracy(logits, labels, idx)
}

// rocAUC returns the ROC AUC, in percent, of the margin z_1 - z_0 of the
// nodes idx for their binary labels; 50 when idx lacks one class (the
// engine refuses such clients before a run, see validateMetric).
func rocAUC(logits *mat.Dense, labels, idx []int) float64 {
	type node struct {
		s   float64
		pos bool
	}
	ns := make([]node, len(idx))
	var npos int
	for k, i := range idx {
		row := logits.RawRowView(i)
		ns[k] = node{row[1] - row[0], labels[i] == 1}
		if ns[k].pos {
			npos++
		}
	}
	nneg := len(ns) - npos
	if npos == 0 || nneg == 0 {
		return 50
	}
	slices.SortStableFunc(ns, func(a, b node) int { return cmp.Compare(a.s, b.s) })
	// Sum of the positives' ranks (1-based), ties given their mean rank.
	var rankSum float64
	for lo := 0; lo < len(ns); {
		hi := lo + 1
		for hi < len(ns) && ns[hi].s == ns[lo].s {
			hi++
		}
		mid := float64(lo+hi+1) / 2 // mean of ranks lo+1..hi
		for _, n := range ns[lo:hi] {
			if n.pos {
				rankSum += mid
			}
		}
		lo = hi
	}
	u := rankSum - float64(npos)*float64(npos+1)/2
	return 100 * u / (float64(npos) * float64(nneg))
}

// validateMetric checks that data can be scored with its metric: ROC AUC
// needs two classes, and both in every client's validation and test
// nodes.
func validateMetric(data *Data) error {
	if data.Metric != ROCAUC {
		return nil
	}
	if data.NumClasses != 2 {
		return fmt.Errorf("sim: metric rocauc needs a binary task, the data has %d classes", data.NumClasses)
	}
	for _, c := range data.Clients {
		var have [2][2]bool // [role val/test][class]
		for i, r := range c.Roles {
			y := c.Graph.Labels[i]
			if y < 0 || y > 1 {
				continue
			}
			switch r {
			case graphio.Val:
				have[0][y] = true
			case graphio.Test:
				have[1][y] = true
			}
		}
		for k, role := range []string{"validation", "test"} {
			if !have[k][0] || !have[k][1] {
				return fmt.Errorf("sim: client %d's %s nodes hold one class only: ROC AUC is undefined (use more nodes per client or fewer clients)", c.ID, role)
			}
		}
	}
	return nil
}
