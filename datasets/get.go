package datasets

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// partialSuffix marks a download in progress beside its final name; a
// later Get resumes it.
const partialSuffix = ".partial"

// MirrorEnv is the environment variable that sets the mirror when no
// flag does.
const MirrorEnv = "FEDAUX_MIRROR"

// Options control Get.
type Options struct {
	// Mirror is a base URL that holds every file at its canonical URL's
	// path ("" for the canonical sources).
	Mirror string
	// Client is the HTTP client (nil: one with a 30 s connect and header
	// timeout and no overall limit).
	Client *http.Client
	// Progress receives a progress bar (nil: none).
	Progress io.Writer
	// PlainProgress writes one line per download to Progress instead of a
	// bar redrawn in place: for logs and anything not a terminal.
	PlainProgress bool
	// Unverified installs files that have no published checksum (their
	// sha256 is printed); without it they stay as NAME.partial.
	Unverified bool
	// Attempts is how many times one file is tried, resuming after a cut
	// (0: 3).
	Attempts int
}

// FileError is a failed download: which file, from where, why, and how to
// place it by hand.
type FileError struct {
	File File
	URL  string
	Dest string
	Err  error
}

func (e *FileError) Error() string {
	how := fmt.Sprintf("place the file by hand at %s", e.Dest)
	switch {
	case e.File.SHA256 != "":
		how += " (sha256 " + e.File.SHA256 + ")"
	case e.File.GitBlob != "":
		how += " (git blob " + e.File.GitBlob + ")"
	}
	return fmt.Sprintf("%s: %v\n  %s, or set Options.Mirror to a server that holds %s", e.URL, e.Err, how, e.File.MirrorPath())
}

func (e *FileError) Unwrap() error { return e.Err }

// URLFor returns where Get fetches f: the canonical URL, or the mirror
// with the URL's path.
func URLFor(f File, mirror string) (string, error) {
	if mirror == "" {
		return f.URL, nil
	}
	m, err := url.Parse(mirror)
	if err != nil || m.Scheme == "" || m.Host == "" {
		return "", fmt.Errorf("mirror %q: want a base URL such as http://host:8080/fedaux", mirror)
	}
	return strings.TrimRight(mirror, "/") + f.MirrorPath(), nil
}

// Get downloads every file of the datasets into dir that is not already
// there and verified, and unpacks archives. Each file is fetched into
// NAME.partial (resumed with an HTTP Range request when a previous
// attempt was cut), verified against its pinned checksum and only then
// renamed to its final name, so a failure never leaves a partial file
// under that name. A file already present with a different checksum is
// an error and is left alone. Get goes on with the other files after a
// failure and returns every error joined.
func Get(ctx context.Context, dir string, ds []*Dataset, opt Options) error {
	if opt.Client == nil {
		opt.Client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   30 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
		}}
	}
	if opt.Attempts <= 0 {
		opt.Attempts = 3
	}
	var errs []error
	for _, d := range ds {
		if err := getDataset(ctx, dir, d, opt); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.Name, err))
		}
	}
	return errors.Join(errs...)
}

func getDataset(ctx context.Context, dir string, d *Dataset, opt Options) error {
	if d.Unpacked != nil && d.StatusIn(dir).State == Present {
		return nil // unpacked earlier
	}
	var errs []error
	for _, f := range d.Files {
		if err := getFile(ctx, dir, f, opt); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 || d.Unpack == nil {
		return errors.Join(errs...)
	}
	archive := filepath.Join(dir, filepath.FromSlash(d.Files[0].Path))
	if err := unpack(archive, dir, d.Unpack); err != nil {
		return fmt.Errorf("unpacking %s: %w", archive, err)
	}
	return os.Remove(archive)
}

func getFile(ctx context.Context, dir string, f File, opt Options) error {
	dest := filepath.Join(dir, filepath.FromSlash(f.Path))
	if s, err := Checksum(dest); err == nil {
		switch err := f.Check(s); err.(type) {
		case nil, *UnverifiedError:
			return nil // there already
		default:
			return fmt.Errorf("%s is already there but differs from the published file: %v; remove it and run again", dest, err)
		}
	}
	u, err := URLFor(f, opt.Mirror)
	if err != nil {
		return err
	}
	fail := func(err error) error { return &FileError{File: f, URL: u, Dest: dest, Err: err} }
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fail(err)
	}
	partial := dest + partialSuffix
	download := func() error {
		for attempt := 1; ; attempt++ {
			err := fetch(ctx, opt, u, partial, f)
			if err == nil {
				return nil
			}
			var perm permanentError
			if errors.As(err, &perm) || attempt >= opt.Attempts || ctx.Err() != nil {
				return err
			}
		}
	}
	// A NAME.partial left by an earlier run is resumed; when the file it
	// makes differs from the published one, the fault may be the old part
	// (cut from another server, or damaged), so the file is fetched once
	// more from its first byte before the mismatch is reported.
	fi, serr := os.Stat(partial)
	resumed := serr == nil && fi.Size() > 0
	if err := download(); err != nil {
		return fail(err)
	}
	s, err := Checksum(partial)
	if err != nil {
		return fail(err)
	}
	if cerr := f.Check(s); resumed && cerr != nil {
		if _, unverified := cerr.(*UnverifiedError); !unverified {
			os.Remove(partial)
			if err := download(); err != nil {
				return fail(err)
			}
			if s, err = Checksum(partial); err != nil {
				return fail(err)
			}
		}
	}
	switch cerr := f.Check(s); cerr.(type) {
	case nil:
	case *UnverifiedError:
		if !opt.Unverified {
			return fail(fmt.Errorf("downloaded to %s, but %v; check it and run again with Options.Unverified set to install it", partial, cerr))
		}
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "%s: installed unverified (sha256 %s)\n", f.Path, s.SHA256)
		}
	default:
		os.Remove(partial)
		return fail(fmt.Errorf("the download does not match the published file: %v (removed it; a mirror or proxy may serve a different file)", cerr))
	}
	if err := os.Rename(partial, dest); err != nil {
		return fail(err)
	}
	return nil
}

// permanentError is a failure that another attempt would not mend (an
// HTTP status other than a server error).
type permanentError struct{ error }

// fetch downloads u into partial, resuming from its current size.
func fetch(ctx context.Context, opt Options, u, partial string, f File) error {
	var have int64
	if fi, err := os.Stat(partial); err == nil {
		have = fi.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return permanentError{err}
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := opt.Client.Do(req)
	if err != nil {
		var dns *net.DNSError
		var op *net.OpError
		if errors.As(err, &dns) || errors.As(err, &op) {
			return permanentError{fmt.Errorf("cannot reach the server (offline?): %w", err)}
		}
		return err
	}
	defer resp.Body.Close()
	flags := os.O_WRONLY | os.O_CREATE
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		if !strings.HasPrefix(resp.Header.Get("Content-Range"), "bytes "+strconv.FormatInt(have, 10)+"-") {
			return permanentError{fmt.Errorf("server answered the resume with Content-Range %q", resp.Header.Get("Content-Range"))}
		}
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		if resp.Header.Get("Content-Range") == "bytes */"+strconv.FormatInt(have, 10) {
			return nil // complete already
		}
		os.Remove(partial) // larger than the file: start again
		return fmt.Errorf("partial download larger than the file; starting again")
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC
		have = 0
	case resp.StatusCode >= 500:
		return fmt.Errorf("server error: %s", resp.Status)
	default:
		return permanentError{fmt.Errorf("HTTP %s", resp.Status)}
	}
	out, err := os.OpenFile(partial, flags, 0o644)
	if err != nil {
		return permanentError{err}
	}
	total := f.Size
	if resp.ContentLength > 0 {
		total = have + resp.ContentLength
	}
	bar := newProgress(opt.Progress, opt.PlainProgress, f.Path, have, total)
	_, err = io.Copy(out, io.TeeReader(resp.Body, bar))
	bar.done(err == nil)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("download cut: %w", err)
	}
	if resp.ContentLength >= 0 {
		if fi, err := os.Stat(partial); err == nil && fi.Size() != have+resp.ContentLength {
			return fmt.Errorf("download cut at %d of %d bytes", fi.Size(), have+resp.ContentLength)
		}
	}
	return nil
}

// unpack extracts the archive members under each prefix of m into dir
// (member prefix replaced by the directory prefix), each through a
// temporary file renamed into place.
func unpack(archive, dir string, m map[string]string) error {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return err
	}
	defer zr.Close()
	n := 0
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() {
			continue
		}
		for from, to := range m {
			rest, ok := strings.CutPrefix(zf.Name, from)
			if !ok || rest == "" {
				continue
			}
			if strings.Contains(rest, "..") || strings.HasPrefix(rest, "/") {
				return fmt.Errorf("member %q: unsafe path", zf.Name)
			}
			dest := filepath.Join(dir, filepath.FromSlash(to+rest))
			if err := extract(zf, dest); err != nil {
				return fmt.Errorf("member %s: %w", zf.Name, err)
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no member under %v", keys(m))
	}
	return nil
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func extract(zf *zip.File, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	tmp := dest + partialSuffix
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, rc) // archive/zip checks the CRC-32 at the end
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, dest)
}
