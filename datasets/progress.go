package datasets

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws a one-line progress bar, redrawn at most ten times a
// second; plain, for a log rather than a terminal, it writes one line when
// the download starts and one when it ends.
type progress struct {
	w           io.Writer
	plain       bool
	name        string
	have, total int64
	last        time.Time
}

func newProgress(w io.Writer, plain bool, name string, have, total int64) *progress {
	p := &progress{w: w, plain: plain, name: name, have: have, total: total}
	if plain && w != nil {
		from := ""
		if have > 0 {
			from = fmt.Sprintf(", resuming at %s", mb(have))
		}
		size := "size unknown"
		if total > 0 {
			size = mb(total)
		}
		fmt.Fprintf(w, "%s: downloading (%s%s)\n", name, size, from)
		return p
	}
	p.draw()
	return p
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// Write counts bytes (progress is the tee of the download).
func (p *progress) Write(b []byte) (int, error) {
	p.have += int64(len(b))
	if time.Since(p.last) >= 100*time.Millisecond {
		p.draw()
	}
	return len(b), nil
}

func (p *progress) draw() {
	if p.w == nil || p.plain {
		return
	}
	p.last = time.Now()
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
	if p.plain {
		if ok {
			fmt.Fprintf(p.w, "%s: %s downloaded\n", p.name, mb(p.have))
		} else {
			fmt.Fprintf(p.w, "%s: cut after %s\n", p.name, mb(p.have))
		}
		return
	}
	p.draw()
	if ok {
		fmt.Fprintln(p.w)
	} else {
		fmt.Fprintln(p.w, " (cut)")
	}
}
