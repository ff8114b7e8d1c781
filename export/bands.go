package export

import (
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// WriteBands draws each series' mean against x = 1, 2, ... (rounds) as a
// line, over a translucent band of one standard deviation either side.
// NaN entries are left out. Values are percentages: the axis stays
// within [0, 100].
func WriteBands(w io.Writer, title, xlabel, ylabel string, series []Series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = false
	p.Legend.Left = false
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for si, s := range series {
		var line, upper, lower plotter.XYs
		for i, m := range s.Mean {
			if math.IsNaN(m) {
				continue
			}
			sd := 0.0
			if i < len(s.Std) && !math.IsNaN(s.Std[i]) {
				sd = s.Std[i]
			}
			x := float64(i + 1)
			line = append(line, plotter.XY{X: x, Y: m})
			upper = append(upper, plotter.XY{X: x, Y: m + sd})
			lower = append(lower, plotter.XY{X: x, Y: m - sd})
			lo, hi = math.Min(lo, m-sd), math.Max(hi, m+sd)
			n = max(n, i+1)
		}
		if len(line) == 0 {
			continue
		}
		c := seriesColors[si%len(seriesColors)]
		band := append(upper, reversed(lower)...)
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return err
		}
		r, g, b, _ := c.RGBA()
		poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
		poly.LineStyle.Width = 0
		l, err := plotter.NewLine(line)
		if err != nil {
			return err
		}
		l.Color, l.Width = c, vg.Points(1.5)
		p.Add(poly, l)
		p.Legend.Add(s.Name, l)
	}
	if lo <= hi {
		pad := math.Max(0.5, (hi-lo)*0.05)
		p.Y.Min, p.Y.Max = math.Max(0, lo-pad), math.Min(100, hi+pad)
		p.X.Min, p.X.Max = 1, math.Max(2, float64(n))
	}
	img := vgimg.New(8*vg.Inch, 4.5*vg.Inch)
	p.Draw(draw.New(img))
	return writePNG(w, img)
}

func reversed(xy plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(xy))
	for i, v := range xy {
		out[len(xy)-1-i] = v
	}
	return out
}
