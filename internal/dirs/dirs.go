// Package dirs says what is wrong with a path that should name a
// directory.
package dirs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Check returns nil if path is a directory; else an error naming it,
// "PATH: no such directory" or "PATH: not a directory", or os.Stat's
// error for any other failure. Callers put their own name before it.
func Check(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such directory", path)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s: not a directory", path)
	}
	return nil
}
