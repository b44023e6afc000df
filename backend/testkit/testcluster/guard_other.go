//go:build !linux

package testcluster

// processGuard is Linux-only; elsewhere a test process that dies without
// stopping its control plane leaves it running.
type processGuard struct{}

var guard processGuard

func (*processGuard) update() {}

func controlPlaneProcesses() []int { return nil }
