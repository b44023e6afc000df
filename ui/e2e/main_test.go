// Package e2e runs the real driftdeck binary in a pseudo-terminal and reads
// its screen through a terminal emulator.
package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// binary is driftdeck as users run it (with the race detector when the
// tests have it).
var binary string

func TestMain(m *testing.M) {
	bin, out, err := testbin.Command("github.com/driftdeck/driftdeck")
	if err != nil {
		fmt.Fprintf(os.Stderr, "building driftdeck: %v\n%s", err, out)
		os.Exit(1)
	}
	binary = bin
	// The TestCluster... tests share one real control plane, stopped here.
	testcluster.Main(m, testcluster.Options{})
}
