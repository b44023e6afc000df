//go:build race

package e2e

// The binary under test is built with the race detector when the tests are:
// it then reuses the packages `go test -race` has just compiled (on a cold
// cache a plain build of the whole program takes minutes), and it reports
// races the screens provoke.
func init() { buildFlags = append(buildFlags, "-race") }
