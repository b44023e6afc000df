package livedescribe

import (
	"os"
	"testing"

	"github.com/driftdeck/driftdeck/backend/demo"
)

// The demos the tests start remove their state backends when their
// context ends, in a goroutine the process may exit before: the last ones
// are removed here, as the command line does.
func TestMain(m *testing.M) {
	code := m.Run()
	demo.Cleanup()
	os.Exit(code)
}
