//go:build !linux

package prefault

func populate(start, n uintptr) error { return nil }
