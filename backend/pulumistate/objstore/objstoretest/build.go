// Package objstoretest builds the driftdeck-state helper for tests.
package objstoretest

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/internal/helperbin/helperbintest"
)

// Helper builds cmd/driftdeck-state once per test process and returns its
// path.
func Helper(t testing.TB) string {
	t.Helper()
	return helperbintest.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-state")
}
