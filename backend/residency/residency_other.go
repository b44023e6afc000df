//go:build !linux

package residency

// ReleaseStartupPages does nothing where the executable's mappings cannot
// be listed.
func ReleaseStartupPages() error { return nil }
