// Package testdemo holds what the tests of packages that start demos in
// process share.
package testdemo

import (
	"os"
	"testing"

	"github.com/driftdeck/driftdeck/backend/demo"
)

// Main runs a package's tests, then removes the state backends of the
// demos they started, as the command line does: each demo removes its own
// when its context ends, in a goroutine the process may exit before.
func Main(m *testing.M) {
	code := m.Run()
	demo.Cleanup()
	os.Exit(code)
}
