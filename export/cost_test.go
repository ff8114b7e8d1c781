package export

import (
	"bytes"
	"image/png"
	"testing"
)

func TestWriteCostFigure(t *testing.T) {
	pts := []CostPoint{
		{Method: "fedaux", Dataset: "cora-10", Seconds: 2e-5, Bytes: 3000},
		{Method: "gcfl", Dataset: "cora-10", Seconds: 4e-3, Bytes: 5e6},
		{Method: "fedaux", Dataset: "arxiv", Seconds: 1e-5, Bytes: 2000},
	}
	var buf bytes.Buffer
	if err := WriteCostFigure(&buf, "cost", pts); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 300 {
		t.Errorf("figure %v: too small", b)
	}
	for _, bad := range [][]CostPoint{nil, {{Method: "x", Dataset: "y", Seconds: 0, Bytes: 1}}} {
		if err := WriteCostFigure(&bytes.Buffer{}, "", bad); err == nil {
			t.Errorf("points %v: want an error (log scales need positive values)", bad)
		}
	}
}
