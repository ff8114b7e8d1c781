//go:build !unix

package sim_test

import "time"

// cpuTime returns 0: the process's CPU time is not read on this system.
func cpuTime() time.Duration { return 0 }
