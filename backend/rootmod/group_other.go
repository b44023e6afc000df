//go:build !linux

package rootmod

// interruptFollowers cannot list a group's members on this platform; a
// command that outlives tofu is still ended when tofu exits.
func interruptFollowers(int) {}
