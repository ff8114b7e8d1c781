package export

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// A Series is one line of an error-bar plot: a mean and a standard
// deviation per x position (NaN where there is none).
type Series struct {
	Name      string
	Mean, Std []float64
}

// seriesColors are the lines' colours, in order.
var seriesColors = []color.Color{testColor, valColor,
	color.RGBA{R: 0x27, G: 0xae, B: 0x60, A: 0xff}, color.RGBA{R: 0x8e, G: 0x44, B: 0xad, A: 0xff},
	color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}, markerColor}

// WriteErrorBars draws each series' mean against the x positions, evenly
// spaced and labelled by xs (so that 0 and values decades apart share an
// axis), with a bar of one standard deviation either side.
func WriteErrorBars(w io.Writer, title, xlabel, ylabel string, xs []string, series []Series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	var ticks []plot.Tick
	for i, x := range xs {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: x})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	lo, hi := math.Inf(1), math.Inf(-1)
	for si, s := range series {
		// Offset the series a little so that their bars do not overlap.
		off := (float64(si) - float64(len(series)-1)/2) * 0.06
		var pts plotter.XYs
		var errs plotter.YErrors
		for i, m := range s.Mean {
			if math.IsNaN(m) {
				continue
			}
			sd := s.Std[i]
			pts = append(pts, plotter.XY{X: float64(i) + off, Y: m})
			errs = append(errs, struct{ Low, High float64 }{sd, sd})
			lo, hi = math.Min(lo, m-sd), math.Max(hi, m+sd)
		}
		if len(pts) == 0 {
			continue
		}
		c := seriesColors[si%len(seriesColors)]
		line, scatter, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		line.Color, scatter.Color = c, c
		scatter.Shape = draw.CircleGlyph{}
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{pts, errs})
		if err != nil {
			return err
		}
		eb.Color = c
		eb.CapWidth = vg.Points(6)
		p.Add(line, scatter, eb)
		p.Legend.Add(s.Name, line, scatter)
	}
	if lo <= hi {
		pad := math.Max(0.5, (hi-lo)*0.15)
		// Room above the data for the legend, a line per series.
		legend := (hi - lo + 2*pad) * 0.07 * float64(len(series))
		p.Y.Min, p.Y.Max = lo-pad, hi+pad+legend
	}
	img := vgimg.New(7*vg.Inch, 4.5*vg.Inch)
	p.Draw(draw.New(img))
	return writePNG(w, img)
}

// table is a rows x cols matrix drawn with row 0 at the top.
type table struct{ m [][]float64 }

func (t table) Dims() (c, r int)   { return len(t.m[0]), len(t.m) }
func (t table) Z(c, r int) float64 { return t.m[len(t.m)-1-r][c] }
func (t table) X(c int) float64    { return float64(c) }
func (t table) Y(r int) float64    { return float64(r) }

// WriteValueHeatMap draws m (rows labelled by ys, top to bottom; columns
// by xs) as a heat map over its own range, each cell annotated with its
// value; NaN cells are left blank.
func WriteValueHeatMap(w io.Writer, title, xlabel, ylabel string, xs, ys []string, m [][]float64) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range m {
		for _, v := range row {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !(lo <= hi) {
		lo, hi = 0, 1
	}
	if hi-lo < 1e-9 {
		hi = lo + 1e-9
	}
	cm := newViridis(lo, hi)
	pal := cm.Palette(256)
	p := plot.New()
	p.Title.Text = title
	hm := plotter.NewHeatMap(table{m}, pal)
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.White
	p.Add(hm)
	var labels plotter.XYLabels
	var dark []bool // the label sits on a bright cell
	for r, row := range m {
		for c, v := range row {
			if math.IsNaN(v) {
				continue
			}
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(len(m) - 1 - r)})
			labels.Labels = append(labels.Labels, fmt.Sprintf("%.2f", v))
			dark = append(dark, v > (lo+hi)/2)
		}
	}
	if len(labels.XYs) > 0 {
		lb, err := plotter.NewLabels(labels)
		if err != nil {
			return err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
			lb.TextStyle[i].Color = color.White
			if dark[i] {
				lb.TextStyle[i].Color = color.Black
			}
		}
		p.Add(lb)
	}
	var xt, yt []plot.Tick
	for i, x := range xs {
		xt = append(xt, plot.Tick{Value: float64(i), Label: x})
	}
	for i, y := range ys {
		yt = append(yt, plot.Tick{Value: float64(len(ys) - 1 - i), Label: y})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(ys))-0.5

	return writeWithColorBar(w, p, cm, "mean", 6*vg.Inch, 4.5*vg.Inch, 1*vg.Inch)
}
