//go:build unix

package proctime

import (
	"syscall"
	"time"
)

// CPU returns the user and system CPU time the process has used so far,
// every thread and the garbage collector included.
func CPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
