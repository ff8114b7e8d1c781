package datasets

import (
	"archive/zip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Sums are the checksums of a file on disk.
type Sums struct {
	Size    int64
	SHA256  string
	GitBlob string
}

// Checksum reads the file at path and returns its size, sha256 and git
// blob id.
func Checksum(path string) (Sums, error) {
	f, err := os.Open(path)
	if err != nil {
		return Sums{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Sums{}, err
	}
	h256, h1 := sha256.New(), sha1.New()
	fmt.Fprintf(h1, "blob %d\x00", fi.Size())
	n, err := io.Copy(io.MultiWriter(h256, h1), f)
	if err != nil {
		return Sums{}, fmt.Errorf("%s: %w", path, err)
	}
	if n != fi.Size() {
		return Sums{}, fmt.Errorf("%s: changed while read", path)
	}
	return Sums{Size: n, SHA256: hex.EncodeToString(h256.Sum(nil)), GitBlob: hex.EncodeToString(h1.Sum(nil))}, nil
}

// Check compares sums with the file's pinned checksums: nil when they
// match, an error that says what differs otherwise. A file without a
// pinned checksum is an error of type *UnverifiedError.
func (f File) Check(s Sums) error {
	switch {
	case f.Size > 0 && s.Size != f.Size:
		return fmt.Errorf("size %d bytes, want %d (sha256 %s)", s.Size, f.Size, s.SHA256)
	case f.SHA256 != "" && s.SHA256 != f.SHA256:
		return fmt.Errorf("sha256 %s, want %s", s.SHA256, f.SHA256)
	case f.SHA256 == "" && f.GitBlob != "" && s.GitBlob != f.GitBlob:
		return fmt.Errorf("git blob id %s, want %s (sha256 %s)", s.GitBlob, f.GitBlob, s.SHA256)
	case !f.Verified():
		return &UnverifiedError{File: f, Sums: s}
	}
	return nil
}

// UnverifiedError reports a file that has no published checksum.
type UnverifiedError struct {
	File File
	Sums Sums
}

func (e *UnverifiedError) Error() string {
	return fmt.Sprintf("no published checksum to verify it against (it has %d bytes, sha256 %s)", e.Sums.Size, e.Sums.SHA256)
}

// State is what a data directory holds of a dataset.
type State int

// States of a dataset in a data directory.
const (
	Missing    State = iota // no file of it
	Partial                 // some files, or an unfinished download
	Present                 // every file, not all of them verifiable
	Verified                // every file, each matching its pinned checksum
	Mismatched              // a file whose checksum differs from the pinned one
)

var stateNames = [...]string{"missing", "partial", "present", "verified", "CHECKSUM DIFFERS"}

// String names the state as `fedaux data` prints it.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("State(%d)", int(s))
	}
	return stateNames[s]
}

// Status is a dataset's state in a data directory, and for Mismatched the
// files that differ.
type Status struct {
	State State
	Bad   []string // "path: what differs"
}

// StatusIn returns the dataset's state in dir, reading (and hashing)
// every file it holds.
func (d *Dataset) StatusIn(dir string) Status {
	var st Status
	have, all := 0, 0
	verified, unfinished := true, false
	if d.Unpacked != nil {
		for _, p := range d.Unpacked {
			all++
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
				have++
			}
		}
		verified = false // the archive's members have no checksum of their own
	} else {
		for _, f := range d.Files {
			all++
			path := filepath.Join(dir, filepath.FromSlash(f.Path))
			s, err := Checksum(path)
			if err != nil {
				if _, perr := os.Stat(path + partialSuffix); perr == nil {
					unfinished = true
				}
				continue
			}
			have++
			switch err := f.Check(s); err.(type) {
			case nil:
			case *UnverifiedError:
				verified = false
			default:
				st.Bad = append(st.Bad, f.Path+": "+err.Error())
			}
		}
	}
	switch {
	case len(st.Bad) > 0:
		st.State = Mismatched
	case unfinished:
		st.State = Partial
	case have == all && verified:
		st.State = Verified
	case have == all:
		st.State = Present
	case have == 0:
		st.State = Missing
	default:
		st.State = Partial
	}
	return st
}

// ReadZip reads every member of the zip file at path (an .npz) through,
// which checks each against its CRC-32: a file that no checksum pins,
// such as a Planetoid set's converted NAME.npz, is at least whole.
func ReadZip(path string) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer z.Close()
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		_, err = io.Copy(io.Discard, r)
		r.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}
