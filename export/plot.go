package export

import (
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

var (
	valColor    = color.RGBA{R: 0xe6, G: 0x7e, B: 0x22, A: 0xff}
	testColor   = color.RGBA{R: 0x29, G: 0x80, B: 0xb9, A: 0xff}
	markerColor = color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}
)

// writeConvergence draws mean validation and test accuracy over the
// rounds, with a dashed vertical line at each round from which a knob
// changed.
func (r *Run) writeConvergence(w io.Writer) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s %s (seed %d): mean accuracy over clients", r.Header.Preset, r.Header.Algo, r.Header.Seed)
	p.X.Label.Text = "round"
	p.Y.Label.Text = "accuracy (%)"
	p.Add(plotter.NewGrid())
	val := make(plotter.XYs, len(r.Reports))
	test := make(plotter.XYs, len(r.Reports))
	lo, hi := 100.0, 0.0
	for i, rep := range r.Reports {
		val[i] = plotter.XY{X: float64(rep.Round), Y: rep.MeanVal}
		test[i] = plotter.XY{X: float64(rep.Round), Y: rep.MeanTest}
		lo = math.Min(lo, math.Min(rep.MeanVal, rep.MeanTest))
		hi = math.Max(hi, math.Max(rep.MeanVal, rep.MeanTest))
	}
	if len(r.Reports) == 0 {
		lo, hi = 0, 100
	}
	lo, hi = math.Max(0, math.Floor(lo/10)*10), math.Min(100, math.Ceil(hi/10)*10)
	if hi-lo < 10 {
		lo, hi = math.Max(0, hi-10), math.Max(hi, 10)
	}
	p.Y.Min, p.Y.Max = lo, hi
	p.X.Min = 1
	p.X.Max = math.Max(2, float64(len(r.Reports)))
	for _, c := range r.Controls {
		mk, err := plotter.NewLine(plotter.XYs{{X: float64(c.Round), Y: lo}, {X: float64(c.Round), Y: hi}})
		if err != nil {
			return err
		}
		mk.Color = markerColor
		mk.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(mk)
		lb, err := plotter.NewLabels(plotter.XYLabels{
			XYs:    []plotter.XY{{X: float64(c.Round), Y: hi}},
			Labels: []string{fmt.Sprintf("%s=%s", c.Name, strconv.FormatFloat(c.To, 'g', 4, 64))},
		})
		if err != nil {
			return err
		}
		p.Add(lb)
	}
	for _, s := range []struct {
		name string
		xy   plotter.XYs
		c    color.Color
	}{{"mean val", val, valColor}, {"mean test", test, testColor}} {
		if len(s.xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return err
		}
		l.Color, l.Width = s.c, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Legend.Top = false
	p.Legend.Left = false
	img := vgimg.New(8*vg.Inch, 4.5*vg.Inch)
	p.Draw(draw.New(img))
	return writePNG(w, img)
}

// writePNG encodes the canvas as PNG with the fastest compression: the
// plots are mostly flat colour, so they stay small, and encoding
// dominates the export's time.
func writePNG(w io.Writer, c *vgimg.Canvas) error {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, c.Image())
}

// grid is a K x K matrix shown in a display order, row 0 at the top.
type grid struct {
	m     [][]float64
	order []int
}

// Dims, Z, X and Y make grid a plotter.GridXYZ.
func (g grid) Dims() (c, r int)   { return len(g.order), len(g.order) }
func (g grid) Z(c, r int) float64 { return g.m[g.order[len(g.order)-1-r]][g.order[c]] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// WriteHeatMap draws m as a PNG heat map with clients in ClientOrder, its
// colours spanning scale sc (cells outside it take the colour of the
// nearer end), with a colour bar and a title that state the scale and
// the matrix's true range. m must be square.
func WriteHeatMap(w io.Writer, title string, m [][]float64, groups []int, sc Scale) error {
	if err := checkSquare(m); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return writeHeatMap(w, title, m, groups, ClientOrder(len(m), groups, m), sc)
}

// writeHeatMap is WriteHeatMap with the clients in order, which must be
// ClientOrder(len(m), groups, m): callers drawing one matrix on several
// scales compute it once.
func writeHeatMap(w io.Writer, title string, m [][]float64, groups, order []int, sc Scale) error {
	k := len(m)
	lo, hi := sc.Lo, sc.Hi
	if hi <= lo {
		hi = lo + 1e-9
	}
	cm := newViridis(lo, hi)
	pal := cm.Palette(256)

	p := plot.New()
	p.Title.Text = title + "\n" + scaleCaption(m, sc)
	hm := plotter.NewHeatMap(grid{m: m, order: order}, pal)
	hm.Min, hm.Max = lo, hi
	cols := pal.Colors()
	hm.Underflow, hm.Overflow = cols[0], cols[len(cols)-1]
	p.Add(hm)
	label := func(id int) string {
		if len(groups) == k {
			return fmt.Sprintf("%d (g%d)", id, groups[id])
		}
		return strconv.Itoa(id)
	}
	var xt, yt []plot.Tick
	for c, id := range order {
		xt = append(xt, plot.Tick{Value: float64(c), Label: strconv.Itoa(id)})
		yt = append(yt, plot.Tick{Value: float64(k - 1 - c), Label: label(id)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.X.Label.Text = "client"
	p.Y.Label.Text = "client"
	p.X.Min, p.X.Max = -0.5, float64(k)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(k)-0.5

	return writeWithColorBar(w, p, cm, sc.Name(), 7*vg.Inch, 6*vg.Inch, 1.1*vg.Inch)
}

// writeWithColorBar draws p with a vertical colour bar of cm, titled
// title, barWidth wide at its right, and writes the PNG.
func writeWithColorBar(w io.Writer, p *plot.Plot, cm *viridis, title string, width, height, barWidth vg.Length) error {
	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.HideX()
	bar.Y.Padding = 0
	bar.Title.Text = title
	img := vgimg.New(width, height)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, -barWidth, 0, 0))
	bar.Draw(draw.Crop(dc, width-barWidth, -vg.Inch/8, 0, -vg.Inch/2))
	return writePNG(w, img)
}

// scaleCaption states a heat map's scale and the true range of its
// matrix, on two lines: "raw scale [-1, 1]" or "stretched over the
// off-diagonal range [0.99993, 0.99999]", then "min 0.99993, max 1;
// off-diagonal 0.99993 to 0.99999" (raw) or "min 0.99993, max 1; cells
// outside the range take its end colours" (stretched, when some do).
func scaleCaption(m [][]float64, sc Scale) string {
	lo, hi := Range(m)
	los, his := RangeLabels(lo, hi)
	a, b := sc.Labels()
	if sc.Stretched {
		s := fmt.Sprintf("stretched over the off-diagonal range [%s, %s]\nmin %s, max %s", a, b, los, his)
		if lo < sc.Lo || hi > sc.Hi {
			s += "; cells outside the range take its end colours"
		}
		return s
	}
	s := fmt.Sprintf("raw scale [%s, %s]\nmin %s, max %s", a, b, los, his)
	if olo, ohi, ok := OffDiagRange(m); ok {
		x, y := RangeLabels(olo, ohi)
		s += fmt.Sprintf("; off-diagonal %s to %s", x, y)
	}
	return s
}
