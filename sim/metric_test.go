package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/fedaux/fedaux/graphio"
)

// bruteAUC counts, over every (positive, negative) pair, 1 when the
// positive scores higher and 1/2 on a tie.
func bruteAUC(s []float64, pos []bool) float64 {
	var num, den float64
	for i := range s {
		for j := range s {
			if pos[i] && !pos[j] {
				den++
				switch {
				case s[i] > s[j]:
					num++
				case s[i] == s[j]:
					num += 0.5
				}
			}
		}
	}
	return 100 * num / den
}

func TestROCAUC(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 2 + r.IntN(40)
		logits := mat.NewDense(n, 2, nil)
		labels := make([]int, n)
		idx := []int{}
		s := []float64{}
		pos := []bool{}
		for i := range n {
			// Few distinct values, so that ties happen.
			logits.Set(i, 0, float64(r.IntN(4)))
			logits.Set(i, 1, float64(r.IntN(4)))
			labels[i] = r.IntN(2)
			if r.IntN(4) > 0 {
				idx = append(idx, i)
				s = append(s, logits.At(i, 1)-logits.At(i, 0))
				pos = append(pos, labels[i] == 1)
			}
		}
		got := ROCAUC.Score(logits, labels, idx)
		np := 0
		for _, p := range pos {
			if p {
				np++
			}
		}
		if np == 0 || np == len(pos) {
			if got != 50 {
				t.Fatalf("trial %d: one class: %g, want 50", trial, got)
			}
			continue
		}
		if want := bruteAUC(s, pos); math.Abs(got-want) > 1e-9 {
			t.Fatalf("trial %d: AUC %g, pairwise count %g", trial, got, want)
		}
	}
	// Perfect and reversed rankings.
	logits := mat.NewDense(4, 2, []float64{0, -2, 0, -1, 0, 1, 0, 2})
	if got := rocAUC(logits, []int{0, 0, 1, 1}, []int{0, 1, 2, 3}); got != 100 {
		t.Errorf("perfect ranking: %g", got)
	}
	if got := rocAUC(logits, []int{1, 1, 0, 0}, []int{0, 1, 2, 3}); got != 0 {
		t.Errorf("reversed ranking: %g", got)
	}
}

func TestMetricText(t *testing.T) {
	for _, m := range []Metric{Accuracy, ROCAUC} {
		b, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Metric
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("%v: round trip gave %v, %v", m, back, err)
		}
	}
	if _, err := ParseMetric("auc"); err == nil {
		t.Error("auc parsed")
	}
	if ROCAUC.Label() != "ROC AUC" || Accuracy.Label() != "accuracy" {
		t.Error("labels")
	}
}

func TestValidateMetric(t *testing.T) {
	g := &graphio.Graph{Labels: []int{0, 1, 0, 1, 0, 0}}
	c := &graphio.Client{ID: 3, Graph: g, Roles: []graphio.Role{graphio.Val, graphio.Val, graphio.Test, graphio.Test, graphio.Train, graphio.Train}}
	d := &Data{Clients: []*graphio.Client{c}, NumClasses: 2, Metric: ROCAUC}
	if err := validateMetric(d); err != nil {
		t.Fatal(err)
	}
	g.Labels[3] = 0
	if err := validateMetric(d); err == nil || err.Error() != "sim: client 3's test nodes hold one class only: ROC AUC is undefined (use more nodes per client or fewer clients)" {
		t.Errorf("error %v", err)
	}
	d.NumClasses = 3
	if err := validateMetric(d); err == nil {
		t.Error("three classes accepted")
	}
	d.Metric = Accuracy
	if err := validateMetric(d); err != nil {
		t.Error(err)
	}
}
