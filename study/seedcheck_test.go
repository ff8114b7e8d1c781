package study

import (
	"math"
	"strings"
	"testing"

	"github.com/fedaux/fedaux/internal/tiny"
	"github.com/fedaux/fedaux/presets"
	"github.com/fedaux/fedaux/sim"
)

// TestCheckSeeds: a study takes 1..MaxSeeds seeds whose last is a seed
// (a hundred billion seeds ran the program out of memory making their
// cells, and MaxUint64 and the seed after it wrapped round to 0), and a
// Grid refuses the others before making a cell.
func TestCheckSeeds(t *testing.T) {
	for _, tt := range []struct {
		first uint64
		n     int
		want  string // "" for allowed
	}{
		{42, 1, ""},
		{42, MaxSeeds, ""},
		{math.MaxUint64, 1, ""},
		{math.MaxUint64 - 2, 3, ""},
		{42, 0, "seeds = 0, want 1..10000"},
		{42, -3, "seeds = -3, want 1..10000"},
		{42, MaxSeeds + 1, "seeds = 10001, want 1..10000"},
		{42, 100000000000, "seeds = 100000000000, want 1..10000"},
		{math.MaxUint64, 2, "seeds = 2 from seed 18446744073709551615: the last would pass the largest seed, 18446744073709551615"},
		{math.MaxUint64 - 2, 4, "the last would pass the largest seed"},
	} {
		err := CheckSeeds(tt.first, tt.n)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckSeeds(%d, %d) = %v, want nil", tt.first, tt.n, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckSeeds(%d, %d) = %v, want %q", tt.first, tt.n, err, tt.want)
		}
	}
	g := Grid{Presets: []*presets.Preset{tiny.Preset("tiny-4", 4)}, Algos: []sim.Algorithm{"fedavg"}, Seeds: 100000000000, Seed: 1}
	if cells, err := g.Cells(); err == nil || err.Error() != "seeds = 100000000000, want 1..10000" {
		t.Errorf("Grid.Cells with 1e11 seeds: %d cells, error %v", len(cells), err)
	}
}
