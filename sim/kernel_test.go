package sim_test

import (
	"strings"
	"testing"

	"github.com/fedaux/fedaux/gnn"
	"github.com/fedaux/fedaux/graphio"
	"github.com/fedaux/fedaux/sim"
)

func TestChooseGauss(t *testing.T) {
	tests := []struct {
		kernel sim.Kernel
		n      int
		want   string
	}{
		{"auto", sim.DenseCrossover - 1, "dense"},
		{"auto", sim.DenseCrossover, "fast"},
		{"dense", 100000, "dense"},
		{"fast", 10, "fast"},
	}
	for _, tt := range tests {
		if got := sim.ChooseGauss(tt.kernel, tt.n, 1).Name(); got != tt.want {
			t.Errorf("ChooseGauss(%s, %d) = %s, want %s", tt.kernel, tt.n, got, tt.want)
		}
	}
}

// TestDenseKernelRefusedWhenTooLarge builds a client whose N x N kernel
// exceeds the dense budget and expects New to refuse it by name, but only
// for an algorithm that builds the kernel.
func TestDenseKernelRefusedWhenTooLarge(t *testing.T) {
	n := 1
	for int64(n)*int64(n)*8 <= gnn.DefaultDenseBudget {
		n *= 2
	}
	// An edgeless graph of n nodes with one feature: cheap to build.
	adj := &graphio.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	x := &graphio.CSR{Rows: n, Cols: 1, Indptr: make([]int, n+1)}
	for i := range n {
		x.Indptr[i+1] = i + 1
	}
	x.Indices = make([]int, n)
	x.Values = make([]float64, n)
	g := &graphio.Graph{Adj: adj, Features: x, Labels: make([]int, n), NumClasses: 2}
	roles := make([]graphio.Role, n)
	roles[n-2], roles[n-1] = graphio.Val, graphio.Test
	d := &sim.Data{Clients: []*graphio.Client{{ID: 0, Graph: g, Roles: roles}}, NumFeatures: 1, NumClasses: 2}
	c := sim.SmallConfig("fedaux")
	c.Kernel = "dense"
	_, err := sim.New(c, d, nil)
	if sim.SettingKey(err) != "kernel" || !strings.HasPrefix(err.Error(), "sim: kernel = dense, want fast or auto: client 0 has") || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("New with a %d-node client and -kernel dense: %v, want a SettingError naming kernel", n, err)
	}
	// A model without the kernel head builds no kernel: nothing to refuse.
	c.Algo = "fedavg"
	if _, err := sim.New(c, d, nil); err != nil {
		t.Errorf("fedavg with -kernel dense refused: %v", err)
	}
}
