//go:build !linux

package sim

// physicalMemory returns 0: the machine's memory is not known here.
func physicalMemory() uint64 { return 0 }
