package gnn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fedaux/fedaux/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// oldSlotForward and oldSlotBackward are SlotLinear's products as they
// were before vec.RowSumsAt (one axpy or dot product per entry of h),
// kept to check that the blocked ones give their bits. They read the
// layer's rows of each slot as Forward left them.

// oldEachTile is eachTile as it was: tiles of 32 rows by 256 columns,
// blocks of columns before blocks of rows.
func oldEachTile(l *SlotLinear, fn func(s, a0, a1, c0, c1 int, tile []float64)) {
	stride := l.Slots * l.Width
	tile := make([]float64, 32*256)
	for s := 0; s < l.Slots; s++ {
		if len(l.rows[s]) == 0 {
			continue
		}
		for c0 := 0; c0 < l.Width; c0 += 256 {
			c1 := min(c0+256, l.Width)
			w := c1 - c0
			for a0 := 0; a0 < l.In; a0 += 32 {
				a1 := min(a0+32, l.In)
				t := tile[:(a1-a0)*w]
				for a := a0; a < a1; a++ {
					src := l.W[a*stride+s*l.Width+c0 : a*stride+s*l.Width+c1]
					for j, v := range src {
						t[(a-a0)*w+j] = float64(v)
					}
				}
				fn(s, a0, a1, c0, c1, t)
			}
		}
	}
}

func oldSlotForward(l *SlotLinear, out, h *mat.Dense) {
	o, x := out.RawMatrix(), h.RawMatrix()
	oldEachTile(l, func(s, a0, a1, c0, c1 int, tile []float64) {
		w := c1 - c0
		for _, i := range l.rows[s] {
			dst := o.Data[i*o.Stride+s*l.Width+c0 : i*o.Stride+s*l.Width+c1]
			for a, v := range x.Data[i*x.Stride+a0 : i*x.Stride+a1] {
				if v != 0 {
					axpy(dst, v, tile[a*w:(a+1)*w])
				}
			}
		}
	})
	for s, rows := range l.rows {
		b := l.Bias.Value[s*l.Width : (s+1)*l.Width]
		for _, i := range rows {
			axpy(o.Data[i*o.Stride+s*l.Width:i*o.Stride+(s+1)*l.Width], 1, b)
		}
	}
}

func oldSlotBackward(l *SlotLinear, dOut, dh *mat.Dense, grad []float64) {
	d, x := dOut.RawMatrix(), l.h.RawMatrix()
	stride := l.Slots * l.Width
	g := dh.RawMatrix().Data
	oldEachTile(l, func(s, a0, a1, c0, c1 int, tile []float64) {
		w := c1 - c0
		for _, i := range l.rows[s] {
			src := d.Data[i*d.Stride+s*l.Width+c0 : i*d.Stride+s*l.Width+c1]
			hrow := x.Data[i*x.Stride+a0 : i*x.Stride+a1]
			for a, v := range hrow {
				if v != 0 {
					lo := (a0+a)*stride + s*l.Width
					axpy(grad[lo+c0:lo+c1], v, src)
				}
				if v != 0 || !l.GradOnlyNonzero {
					g[i*l.In+a0+a] += dot(src, tile[a*w:(a+1)*w])
				}
			}
		}
	})
}

// TestSlotLinearBitIdentical compares SlotLinear's forward and backward
// products with the previous ones bit for bit, at every kernel level, on
// shapes around the tiles (old: 32 rows by 256 columns; new: 64 by
// 1024) and shortLoop, with
// zeros, negative zeros, infinities and NaNs in the input.
func TestSlotLinearBitIdentical(t *testing.T) {
	for l := vec.Portable; l <= vec.Best(); l++ {
		t.Run(l.String(), func(t *testing.T) {
			prev := vec.Use(l)
			defer vec.Use(prev)
			rng := rand.New(rand.NewPCG(21, uint64(l)))
			for it := range 60 {
				in := 1 + rng.IntN(150)
				slots := 1 + rng.IntN(5)
				width := 1 + rng.IntN(40)
				switch it % 6 {
				case 0:
					width = 250 + rng.IntN(20)
				case 1:
					width = 1000 + rng.IntN(60)
				}
				n := 1 + rng.IntN(30)
				name := fmt.Sprintf("case %d (n %d, in %d, slots %d, width %d)", it, n, in, slots, width)
				layer := NewSlotLinear("out", in, slots, width, rng)
				layer.GradOnlyNonzero = rng.IntN(2) == 0
				counts := make([]int, n)
				for i := range counts {
					counts[i] = rng.IntN(slots + 1)
				}
				h := denseCase(rng, n, in, []float64{0, 0.5, 0.8}[rng.IntN(3)], rng.IntN(3) == 0)
				got := mat.DenseCopyOf(layer.Forward(h, counts))
				want := mat.NewDense(n, slots*width, nil)
				oldSlotForward(layer, want, h)
				sameMatBits(t, name+" forward", got, want)

				dOut := denseCase(rng, n, slots*width, 0.1, rng.IntN(3) == 0)
				grad := make([]float64, in*slots*width)
				for i := range grad {
					grad[i] = rng.NormFloat64()
				}
				wantGrad := append([]float64(nil), grad...)
				layer.AttachGrad(grad)
				dh := mat.DenseCopyOf(layer.Backward(dOut, true))
				wantDh := mat.NewDense(n, in, nil)
				oldSlotBackward(layer, dOut, wantDh, wantGrad)
				sameMatBits(t, name+" dh", dh, wantDh)
				sameMatBits(t, name+" dW", mat.NewDense(1, len(grad), grad), mat.NewDense(1, len(grad), wantGrad))
			}
		})
	}
}
