// Package objstoretest builds the driftdeck-state helper for tests.
package objstoretest

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
)

// Helper builds cmd/driftdeck-state once per test process and returns its
// path.
func Helper(t testing.TB) string {
	t.Helper()
	return testbin.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-state")
}
