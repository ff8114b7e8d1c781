//go:build unix

package sim_test

import (
	"syscall"
	"time"
)

// cpuTime returns the user and system CPU time the process has used, or
// 0 when the system does not say.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
