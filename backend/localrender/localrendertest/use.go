// Package localrendertest points tests at a driftdeck-render helper built
// from this checkout.
package localrendertest

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/localrender"
	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
)

// Use builds the helper once per test process and makes the test's local
// renders and clones run through it.
func Use(t testing.TB) {
	t.Helper()
	t.Setenv(localrender.HelperEnv, testbin.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-render"))
}
