package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// profiles starts what -cpuprofile and -trace ask for and returns the
// function that stops them and writes -memprofile's heap profile, so that
// they cover a run's or a console session's whole life, start-up
// included. Every file is created before anything runs: a name that
// cannot be written is an error then, not a missing file at the end. stop
// returns the first error of closing or writing them.
func (f *runFlags) profiles() (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var first error
		for i := len(stops) - 1; i >= 0; i-- {
			if err := stops[i](); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	fail := func(flag string, err error) (func() error, error) {
		stop()
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	if f.cpuProf != "" {
		pf, err := os.Create(f.cpuProf)
		if err != nil {
			return fail("-cpuprofile", err)
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			pf.Close()
			return fail("-cpuprofile", err)
		}
		stops = append(stops, func() error {
			pprof.StopCPUProfile()
			return closeFlagFile("-cpuprofile", pf)
		})
	}
	if f.traceOut != "" {
		tf, err := os.Create(f.traceOut)
		if err != nil {
			return fail("-trace", err)
		}
		if err := trace.Start(tf); err != nil {
			tf.Close()
			return fail("-trace", err)
		}
		stops = append(stops, func() error {
			trace.Stop()
			return closeFlagFile("-trace", tf)
		})
	}
	if f.memProf != "" {
		mf, err := os.Create(f.memProf)
		if err != nil {
			return fail("-memprofile", err)
		}
		stops = append(stops, func() error {
			if err := pprof.WriteHeapProfile(mf); err != nil {
				mf.Close()
				return fmt.Errorf("-memprofile: %w", err)
			}
			return closeFlagFile("-memprofile", mf)
		})
	}
	return stop, nil
}

// closeFlagFile closes the file a flag named, the error naming the flag.
func closeFlagFile(flag string, f *os.File) error {
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}
