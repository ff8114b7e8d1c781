package methods

import (
	"reflect"
	"testing"

	"github.com/fedaux/fedaux/sim"
)

func TestFedGNNMixByTrainingSize(t *testing.T) {
	in := &sim.RoundInput{Updates: []*sim.Update{{Train: 10}, {Train: 30}, {Train: 60}}}
	m := fedGNN{}.Mix(in)
	for k := range m.W {
		if !reflect.DeepEqual(m.W[k], []float64{0.1, 0.3, 0.6}) {
			t.Errorf("row %d: %v, want [0.1 0.3 0.6]", k, m.W[k])
		}
	}
}

func TestFedGNNRelay(t *testing.T) {
	tag := func(b byte) sim.NodeTag { return sim.NodeTag{b} }
	bs := []*sim.Boundary{
		{Tags: []sim.NodeTag{tag(1), tag(2)}, Embeddings: [][]float64{{1}, {2}}, Degrees: []float64{3, 4}, Wants: []sim.NodeTag{tag(5), tag(9)}},
		nil, // absent
		{Tags: []sim.NodeTag{tag(5)}, Embeddings: [][]float64{{5}}, Degrees: []float64{1}, Wants: []sim.NodeTag{tag(1), tag(2), tag(7)}},
	}
	out := fedGNN{}.Relay(bs)
	if out[1] != nil {
		t.Errorf("an absent client got %+v", out[1])
	}
	want0 := &sim.Remote{Tags: []sim.NodeTag{tag(5)}, Embeddings: [][]float64{{5}}, Degrees: []float64{1}}
	want2 := &sim.Remote{Tags: []sim.NodeTag{tag(1), tag(2)}, Embeddings: [][]float64{{1}, {2}}, Degrees: []float64{3, 4}}
	if !reflect.DeepEqual(out[0], want0) || !reflect.DeepEqual(out[2], want2) {
		t.Errorf("relayed %+v, %+v; want %+v, %+v", out[0], out[2], want0, want2)
	}
}
