package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// profiles starts what -cpuprofile and -trace ask for and returns the
// function that stops them and writes -memprofile's heap profile, so that
// they cover a run's or a console session's whole life, start-up
// included: defer stop(&err). Every file is created before anything runs:
// a name that cannot be written is an error then, not a missing file at
// the end. stop sets *err, unless it holds an error already, to the first
// error of writing or closing them.
func (f *runFlags) profiles() (stop func(err *error), err error) {
	var ends []func() error
	stop = func(err *error) {
		for i := len(ends) - 1; i >= 0; i-- {
			if e := ends[i](); e != nil && *err == nil {
				*err = e
			}
		}
	}
	// open creates path for flag's profile, calls start (if any) on it,
	// and adds to stop the call of end on it and the file's closing.
	open := func(flag, path string, start func(io.Writer) error, end func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		pf, err := os.Create(path)
		// The profilers write in the background and drop write errors:
		// ew keeps the first.
		ew := &errWriter{w: pf}
		if err == nil && start != nil {
			if err = start(ew); err != nil {
				pf.Close()
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
		ends = append(ends, func() error {
			err := end(ew)
			if err == nil {
				err = ew.err
			}
			if cerr := pf.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%s: %w", flag, err)
			}
			return nil
		})
		return nil
	}
	stopCPU := func(io.Writer) error { pprof.StopCPUProfile(); return nil }
	stopTrace := func(io.Writer) error { trace.Stop(); return nil }
	for _, p := range []struct {
		flag, path string
		start, end func(io.Writer) error
	}{
		{"-cpuprofile", f.cpuProf, pprof.StartCPUProfile, stopCPU},
		{"-trace", f.traceOut, trace.Start, stopTrace},
		{"-memprofile", f.memProf, nil, pprof.WriteHeapProfile},
	} {
		if err := open(p.flag, p.path, p.start, p.end); err != nil {
			var ignored error
			stop(&ignored)
			return nil, err
		}
	}
	return stop, nil
}

// errWriter writes to w and keeps the first error, after which it writes
// nothing.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
