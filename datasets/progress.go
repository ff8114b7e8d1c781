package datasets

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws a one-line progress bar, redrawn at most ten times a
// second.
type progress struct {
	w           io.Writer
	name        string
	have, total int64
	last        time.Time
}

func newProgress(w io.Writer, name string, have, total int64) *progress {
	p := &progress{w: w, name: name, have: have, total: total}
	p.draw()
	return p
}

// Write counts bytes (progress is the tee of the download).
func (p *progress) Write(b []byte) (int, error) {
	p.have += int64(len(b))
	if time.Since(p.last) >= 100*time.Millisecond {
		p.draw()
	}
	return len(b), nil
}

func (p *progress) draw() {
	if p.w == nil {
		return
	}
	p.last = time.Now()
	mb := func(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\r%-40s %s", p.name, mb(p.have))
		return
	}
	const width = 30
	frac := min(1, float64(p.have)/float64(p.total))
	fill := int(frac * width)
	fmt.Fprintf(p.w, "\r%-40s [%s%s] %3.0f%% %s / %s", p.name, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*frac, mb(p.have), mb(p.total))
}

func (p *progress) done(ok bool) {
	if p.w == nil {
		return
	}
	p.draw()
	if ok {
		fmt.Fprintln(p.w)
	} else {
		fmt.Fprintln(p.w, " (cut)")
	}
}
