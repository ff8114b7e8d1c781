package export

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// CostPoint is one method on one dataset in a time-versus-memory figure.
type CostPoint struct {
	Method, Dataset string
	Seconds         float64 // median time of the step
	Bytes           float64 // peak memory of the step
}

var costShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.PlusGlyph{}}

var costColors = []color.Color{
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
}

// WriteCostFigure draws time against peak memory, both on log scales: one
// point per method and dataset, a colour per method and a glyph per
// dataset, the points labelled with their methods. It writes a PNG.
func WriteCostFigure(w io.Writer, title string, pts []CostPoint) error {
	if len(pts) == 0 {
		return fmt.Errorf("export: no points to draw")
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "peak memory (bytes, input + transient)"
	p.Y.Label.Text = "time (s, median)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	methods, datasets := map[string]int{}, map[string]int{}
	var labels plotter.XYLabels
	xlo, xhi, ylo, yhi := math.Inf(1), 0.0, math.Inf(1), 0.0
	for _, pt := range pts {
		if !(pt.Seconds > 0 && pt.Bytes > 0) {
			return fmt.Errorf("export: %s on %s: time %g s and memory %g bytes must be positive for log scales", pt.Method, pt.Dataset, pt.Seconds, pt.Bytes)
		}
		mi, ok := methods[pt.Method]
		if !ok {
			mi = len(methods)
			methods[pt.Method] = mi
		}
		di, ok := datasets[pt.Dataset]
		if !ok {
			di = len(datasets)
			datasets[pt.Dataset] = di
		}
		s, err := plotter.NewScatter(plotter.XYs{{X: pt.Bytes, Y: pt.Seconds}})
		if err != nil {
			return err
		}
		s.GlyphStyle.Color = costColors[mi%len(costColors)]
		s.GlyphStyle.Shape = costShapes[di%len(costShapes)]
		s.GlyphStyle.Radius = vg.Points(4)
		p.Add(s)
		p.Legend.Add(pt.Method+" / "+pt.Dataset, s)
		// Points within a factor of 2 on both axes share one label
		// naming their methods.
		near := -1
		for i, q := range labels.XYs {
			if math.Abs(math.Log2(q.X/pt.Bytes)) < 1 && math.Abs(math.Log2(q.Y/pt.Seconds)) < 1 {
				near = i
				break
			}
		}
		switch {
		case near < 0:
			labels.XYs = append(labels.XYs, plotter.XY{X: pt.Bytes, Y: pt.Seconds})
			labels.Labels = append(labels.Labels, pt.Method)
		case !slices.Contains(strings.Split(labels.Labels[near], ", "), pt.Method):
			labels.Labels[near] += ", " + pt.Method
		}
		xlo, xhi = math.Min(xlo, pt.Bytes), math.Max(xhi, pt.Bytes)
		ylo, yhi = math.Min(ylo, pt.Seconds), math.Max(yhi, pt.Seconds)
	}
	lb, err := plotter.NewLabels(labels)
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].XAlign = draw.XLeft
		lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(2)}
	}
	p.Add(lb)
	// Room around the points (a decade's half on each side, more to the
	// right for the labels).
	p.X.Min, p.X.Max = xlo/3, xhi*30
	p.Y.Min, p.Y.Max = ylo/3, yhi*3
	c := vgimg.New(9*vg.Inch, 6*vg.Inch)
	p.Draw(draw.New(c))
	return writePNG(w, c)
}
