//go:build !unix

package proctime

import "time"

// CPU reports that the operating system gives no CPU time.
func CPU() (time.Duration, bool) { return 0, false }
