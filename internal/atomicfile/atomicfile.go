package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Write writes path through write: into a temporary file .NAME.*.tmp of
// its own in the same directory, which it syncs and renames over path,
// then syncs the directory so that the rename survives a crash. On error
// the temporary file is removed and path is left as it was.
//
// A path that is there must be a regular file (or a link to one): Write
// refuses to replace a directory, a device or a pipe.
//
// Each call has its own temporary file, so that processes writing one
// path at once (the shards of a study rendering its report) each replace
// it whole, the last rename winning. Only a process killed between
// creating its temporary file and renaming it leaves one behind:
// RemoveStale and RemoveStaleIn clear those.
func Write(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := Replaceable(path); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

var errNotRegular = errors.New("not a regular file; not replaced")

// Replaceable reports an error when something is at path that Write
// would not replace: anything but a regular file (or a link to one).
func Replaceable(path string) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return &os.PathError{Op: "write", Path: path, Err: errNotRegular}
	}
	return nil
}

// RemoveStale removes the temporary files that Write(path) left when a
// process was killed mid-write. The caller must know that no Write of
// path is under way (a study runs each cell in one process at a time).
func RemoveStale(path string) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	return removeGlob(filepath.Join(dir, "."+globEscape(base)+".*.tmp"), 0)
}

// RemoveStaleIn removes the temporary files that Write left in dir when
// a process was killed mid-write, those last modified longer than age
// ago: a Write under way is younger.
func RemoveStaleIn(dir string, age time.Duration) error {
	return removeGlob(filepath.Join(dir, ".*.*.tmp"), age)
}

func removeGlob(pattern string, age time.Duration) error {
	names, err := filepath.Glob(pattern)
	if err != nil {
		return err
	}
	for _, n := range names {
		if age > 0 {
			if fi, err := os.Stat(n); err != nil || time.Since(fi.ModTime()) < age {
				continue
			}
		}
		if err := os.Remove(n); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// globEscape escapes the pattern characters of name.
func globEscape(name string) string {
	var b []byte
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '*', '?', '[', '\\':
			b = append(b, '\\', c)
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// syncDir makes a rename in dir durable. File systems that cannot sync a
// directory report os.ErrInvalid, which is not an error here.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
