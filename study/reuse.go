package study

import (
	"fmt"

	"github.com/fedaux/fedaux/internal/dirs"
)

// Reuse copies into the results file file of directory out (see
// OpenStore), for every cell of cells that out does not hold, the record
// of the same key from the first of from that holds one, relabelled with
// the cell's labels: runs another study already made (a table, a sweep)
// are not made again. A record must be Complete to be reused (a store
// holds no other). The directories in from are only read.
func Reuse(out, file string, from []string, cells []*Cell) error {
	if len(from) == 0 {
		return nil
	}
	own, err := OpenStore(out, file)
	if err != nil {
		return err
	}
	for _, dir := range from {
		if err := dirs.Check(dir); err != nil {
			return fmt.Errorf("study: reuse %w", err)
		}
		other, err := OpenStore(dir, "") // read only: never appended to
		if err != nil {
			return err
		}
		for _, c := range cells {
			if _, ok := own.Get(c.Key()); ok {
				continue
			}
			// other holds Complete records only: every round of the
			// run, whose rounds the key fixes.
			if rec, ok := other.Get(c.Key()); ok {
				cp := *rec
				cp.Labels = c.Labels
				if err := own.Append(&cp); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
